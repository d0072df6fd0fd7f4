// `npm start` says what it does to the machine before it does it, and says when it reuses an old demo.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aptPlan, demoReuseNotice } from '../../../scripts/e2e/start-notices.mjs';

describe('npm start notices', () => {
  it('names the Debian packages, that they are installed as root, and the commands, before running them', () => {
    const asRoot = aptPlan(['chromium', 'ripgrep'], true);
    assert.match(asRoot.announce[0]!, /^installing missing Debian packages as root: chromium ripgrep$/);
    assert.match(asRoot.announce.join('\n'), /may upgrade packages they depend on/);
    assert.match(asRoot.announce.join('\n'), /AGENT_REWIND_NO_APT=1/);
    assert.deepEqual(asRoot.commands.at(-1)!.slice(-4), ['-y', '--no-install-recommends', 'chromium', 'ripgrep']);
    // Every command it runs is in what it said.
    for (const c of asRoot.commands) assert.ok(asRoot.announce[1]!.includes(c.join(' ')), c.join(' '));
    const withSudo = aptPlan(['curl'], false);
    assert.match(withSudo.announce[0]!, /as root through sudo: curl/);
    assert.ok(withSudo.commands.every((c) => c[0] === 'sudo' && c[1] === '-n'));
  });

  it('says an existing demo is reused, since when, and how to get a fresh one', () => {
    const text = demoReuseNotice('/r/.e2e/demo', new Date('2026-11-27T07:05:09Z'));
    assert.match(text, /^reusing the demo workspace and sessions made 2026-11-27 07:05 UTC in \/r\/\.e2e\/demo/);
    assert.match(text, /`npm start -- --fresh` makes a new one$/);
  });
});
