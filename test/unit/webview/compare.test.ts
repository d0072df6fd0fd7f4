// Compare branches: the protocol's schema, the host controller (with fake services) and the renderer (hostile text
// stays text; the hooks the e2e test uses are there).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompareController } from '../../../src/extension/webviews/compare-controller';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { compareToHostSchema, parseMessage, type CompareToHost, type CompareToWebview } from '../../../src/shared/protocol';
import type { BranchCompareModel } from '../../../src/shared/view-models';
import { renderCompare, renderLoadError, renderLoading } from '../../../webview-ui/src/compare/render';
import { FakeServices, FakeUi, sampleCompare } from './fakes';
import { inertnessProblems } from './inert-html';

const ref = { sessionRef: '/sessions/s1.jsonl', branchA: 'main', branchB: 'main-v2' };
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function harness() {
  const services = new FakeServices();
  const ui = new FakeUi();
  const posted: CompareToWebview[] = [];
  const titles: string[] = [];
  const controller = new CompareController(ref, services, (m) => posted.push(m), ui, {
    refreshDelayMs: 5,
    onModel: (m) => titles.push(`${m.a.name}|${m.b.name}`),
  });
  return { services, ui, posted, titles, controller };
}
const lastModel = (posted: CompareToWebview[]): BranchCompareModel | undefined => {
  const m = posted.filter((p) => p.type === 'model').at(-1);
  return m?.type === 'model' ? m.model : undefined;
};

describe('compare webview → host messages', () => {
  const valid: CompareToHost[] = [
    { type: 'ready' },
    { type: 'openFileDiff', requestId: 1, path: 'src/a.ts' },
    { type: 'openMessage', entryId: 'a1b2c3d4' },
    { type: 'swap' },
    { type: 'refresh' },
  ];
  for (const message of valid) it(`accepts ${message.type}`, () => assert.deepEqual(parseMessage(compareToHostSchema, message), message));
  const malformed: [string, unknown][] = [
    ['an unknown type', { type: 'switchBranch', branch: 'x' }],
    ['a diff without a request id', { type: 'openFileDiff', path: 'a' }],
    ['an empty path', { type: 'openFileDiff', requestId: 1, path: '' }],
    ['a huge path', { type: 'openFileDiff', requestId: 1, path: 'x'.repeat(5000) }],
    ['an extra field', { type: 'swap', branchA: 'evil' }],
    ['a numeric entry id', { type: 'openMessage', entryId: 7 }],
  ];
  for (const [what, raw] of malformed) it(`rejects ${what}`, () => assert.equal(parseMessage(compareToHostSchema, raw), undefined));
});

describe('CompareController', () => {
  it('sends nothing before ready, then the comparison; its title follows the model', async () => {
    const h = harness();
    await h.controller.compute();
    assert.equal(h.posted.length, 0);
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model'],
    );
    assert.equal(lastModel(h.posted)?.files.ok, true);
    assert.deepEqual(h.titles, ['main|main-v2']);
    assert.deepEqual(
      h.services.called('compare').map((c) => c.args[0]),
      [ref],
    );
  });

  it('computes once the webview is ready when nothing was computed yet, with a loading message first', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['loading', 'model'],
    );
  });

  it('opens the diff editor for a listed file between the two snapshots, and answers the request', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'openFileDiff', requestId: 7, path: 'db.txt' });
    const [call] = h.services.called('openBranchFileDiff');
    assert.deepEqual(call?.args, [
      { sessionRef: ref.sessionRef, branch: 'main', anchorEntryId: 'u3' },
      { sessionRef: ref.sessionRef, branch: 'main-v2', anchorEntryId: 'u3b' },
      'db.txt',
    ]);
    assert.deepEqual(h.posted.at(-1), { type: 'response', requestId: 7, ok: true, result: { opened: 'db.txt' } });
  });

  it('refuses a path the comparison does not list (nothing is opened) and reports a failing diff', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'openFileDiff', requestId: 1, path: '../../etc/passwd' });
    assert.equal(h.services.called('openBranchFileDiff').length, 0);
    const refused = h.posted.at(-1);
    assert.ok(refused?.type === 'response' && !refused.ok);
    h.services.failDiff = new Error('store gone');
    await h.controller.handle({ type: 'openFileDiff', requestId: 2, path: 'db.txt' });
    const failed = h.posted.at(-1);
    assert.ok(failed?.type === 'response' && !failed.ok && /store gone/.test(failed.error));
  });

  it('opens only messages the comparison shows', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'openMessage', entryId: 'b2' });
    await h.controller.handle({ type: 'openMessage', entryId: 'u2' });
    await h.controller.handle({ type: 'openMessage', entryId: 'elsewhere' });
    assert.deepEqual(
      h.services.called('openMessage').map((c) => c.args[1]),
      ['b2', 'u2'],
    );
  });

  it('swaps the sides', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'swap' });
    assert.deepEqual(h.controller.target, { ...ref, branchA: 'main-v2', branchB: 'main' });
    assert.equal(lastModel(h.posted)?.a.name, 'main-v2');
    assert.deepEqual(h.titles, ['main|main-v2', 'main-v2|main']);
  });

  describe('B of another session (a Claude Code original and its fork)', () => {
    const forkFile = '/claude/fork.jsonl';
    const twoSessions = () => {
      const base = sampleCompare();
      const model = sampleCompare({
        a: { ...base.a, name: 'main', session: { sessionRef: ref.sessionRef, sessionId: 'session-1', title: 'Pick a database' } },
        b: { ...base.b, name: 'main', session: { sessionRef: forkFile, sessionId: 'fork-1', title: 'Pick a database' } },
      });
      const services = new FakeServices();
      services.compareModel = model;
      const posted: CompareToWebview[] = [];
      const target = { sessionRef: ref.sessionRef, branchA: 'main', branchB: 'main', sessionRefB: forkFile };
      const controller = new CompareController(target, services, (m) => posted.push(m), new FakeUi(), { refreshDelayMs: 5 });
      return { services, posted, controller, target };
    };

    it("watches both sessions, opens each side's messages and snapshots in its own session", async () => {
      const h = twoSessions();
      assert.deepEqual(
        h.services.called('onDidChangeSession').map((c) => c.args[0]),
        [{ sessionRef: ref.sessionRef }, { sessionRef: forkFile }],
      );
      await h.controller.handle({ type: 'ready' });
      assert.deepEqual(h.services.called('compare')[0]?.args, [h.target]);
      await h.controller.handle({ type: 'openMessage', entryId: 'b2' });
      await h.controller.handle({ type: 'openMessage', entryId: 'a2' });
      await h.controller.handle({ type: 'openMessage', entryId: 'u2' });
      assert.deepEqual(
        h.services.called('openMessage').map((c) => c.args),
        [
          [{ sessionRef: forkFile }, 'b2'],
          [{ sessionRef: ref.sessionRef }, 'a2'],
          [{ sessionRef: ref.sessionRef }, 'u2'],
        ],
      );
      await h.controller.handle({ type: 'openFileDiff', requestId: 3, path: 'db.txt' });
      assert.deepEqual(h.services.called('openBranchFileDiff')[0]?.args, [
        { sessionRef: ref.sessionRef, branch: 'main', anchorEntryId: 'u3' },
        { sessionRef: forkFile, branch: 'main', anchorEntryId: 'u3b' },
        'db.txt',
      ]);
    });

    it('swaps the sessions with the branches', async () => {
      const h = twoSessions();
      await h.controller.handle({ type: 'ready' });
      await h.controller.handle({ type: 'swap' });
      assert.deepEqual(h.controller.target, { sessionRef: forkFile, sessionRefB: ref.sessionRef, branchA: 'main', branchB: 'main' });
      assert.equal(lastModel(h.posted)?.a.session?.sessionRef, forkFile);
    });
  });

  it('shows why the comparison failed, and recomputes when the session file changes', async () => {
    const h = harness();
    h.services.failCompare = new Error('Branch "main-v2" not found');
    await h.controller.handle({ type: 'ready' });
    const err = h.posted.at(-1);
    assert.ok(err?.type === 'loadError' && /Branch "main-v2" not found/.test(err.message));
    h.services.failCompare = undefined;
    h.services.fireChange();
    await tick(30);
    assert.equal(h.posted.at(-1)?.type, 'model');
  });

  it('ignores malformed messages and stops listening when disposed', async () => {
    const h = harness();
    await h.controller.handle({ type: 'openFileDiff', path: 'db.txt' });
    await h.controller.handle(null);
    assert.equal(h.posted.length, 0);
    assert.equal(h.services.listenerCount, 1);
    h.controller.dispose();
    assert.equal(h.services.listenerCount, 0);
  });
});

describe('the transcript toolbar asks for Compare branches with the branch it shows', () => {
  it('relays compareBranches with the shown branch', async () => {
    const services = new FakeServices();
    const c = new TranscriptController({ sessionRef: '/s.jsonl' }, services, () => {}, new FakeUi());
    await c.refresh();
    await c.handle({ type: 'compareBranches' });
    assert.deepEqual(
      services.called('compareBranches').map((x) => x.args),
      [[{ sessionRef: '/s.jsonl' }, 'main']],
    );
    c.dispose();
  });
});

describe('renderCompare', () => {
  it('draws both columns, the divergence point and a button per file', () => {
    const html = renderCompare(sampleCompare());
    assert.match(html, /data-testid="column-a" data-branch="main"/);
    assert.match(html, /data-testid="column-b" data-branch="main-v2"/);
    assert.match(html, /data-testid="divergence-message" data-entry-id="u2"/);
    assert.equal(html.match(/data-testid="file-row"/g)?.length, 3);
    assert.match(html, /<button type="button" class="file-row"[^>]*data-path="replica.conf" data-status="added"/);
    assert.match(html, /only on B/);
    assert.deepEqual(inertnessProblems(html), []);
  });

  it('says which snapshot each side is compared at', () => {
    const m = sampleCompare();
    m.b = { ...m.b, snapshot: { ...m.b.snapshot!, kind: 'turn-end', preview: 'Wrote schema.sql for MySQL.' } };
    const html = renderCompare(m);
    assert.match(html, /Files as of your message <span class="quoted">“Write the schema”/);
    assert.match(html, /Files as the agent left them after <span class="quoted">“Wrote schema.sql for MySQL.”/);
  });

  it('says when a side has no snapshot, and why the files are not compared', () => {
    const m = sampleCompare({ files: { ok: false, error: 'Branch "main" has no file snapshot on its path' } });
    m.a = { ...m.a, snapshot: null, messages: [] };
    const html = renderCompare(m);
    assert.match(html, /No file snapshot on this branch/);
    assert.match(html, /data-testid="files-error"[^>]*>.*Branch &quot;main&quot; has no file snapshot/);
    assert.match(html, /No messages after the point where they part/);
  });

  it("names each side's session when the two are of two sessions (a session and its fork)", () => {
    const m = sampleCompare({ divergence: null });
    m.a = { ...m.a, session: { sessionRef: '/a.jsonl', sessionId: 'a', title: 'Pick a database' } };
    m.b = { ...m.b, session: { sessionRef: '/b.jsonl', sessionId: 'b', title: 'Fork: Pick a database' } };
    const html = renderCompare(m);
    assert.match(html, /data-testid="session-title">Pick a database ↔ Fork: Pick a database</);
    assert.equal(html.match(/data-testid="side-session"/g)?.length, 2);
    assert.match(html, /data-testid="column-b"[^]*data-testid="side-session">.*of <span class="quoted">Fork: Pick a database</);
    assert.match(html, /share no message \(two separate conversations\)/);
    assert.doesNotMatch(renderCompare(sampleCompare()), /side-session/);
  });

  it('keeps hostile session text as text everywhere', () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(1)</script>" onmouseover="x';
    const m = sampleCompare({ title: evil, divergence: { entryId: `${evil}`, kind: 'user', preview: evil }, readOnly: { agent: evil } });
    m.a = {
      ...m.a,
      name: evil,
      messages: [{ entryId: evil, kind: 'assistant', preview: evil }],
      snapshot: { ...m.a.snapshot!, preview: evil },
      session: { sessionRef: evil, sessionId: evil, title: evil },
    };
    m.b = { ...m.b, name: `${evil}2`, session: { sessionRef: evil, sessionId: evil, title: evil } };
    m.files = {
      ok: true,
      files: [{ path: evil, status: 'modified', insertions: 1, deletions: 1, binary: false }],
      insertions: 1,
      deletions: 1,
      sameSnapshot: false,
    };
    for (const html of [renderCompare(m, { diffError: evil }), renderLoading(evil, evil), renderLoadError(evil)]) {
      assert.deepEqual(inertnessProblems(html), []);
      assert.ok(!html.includes('<script') && !html.includes('<img'), html);
    }
    m.files = { ok: false, error: evil };
    assert.deepEqual(inertnessProblems(renderCompare(m)), []);
  });
});
