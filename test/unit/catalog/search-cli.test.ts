// `agent-rewind search`, run as a real process from a bundle with the wasm next to it (as dist/cli.js runs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sessionDirFor } from '../../../src/core/session/paths';
import { PI_FIXTURES, fingerprint } from './catalog-fixture';
import { cliRunOf } from '../qa/cli-harness';
import { bundleCli } from '../files/helpers';

describe('agent-rewind search', () => {
  let dir: string;
  let cli: string;
  let piFolder: string;
  const project = '/proj/search-demo';

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ar-search-cli-'));
    const bin = join(dir, 'bin');
    cli = join(bin, 'cli.cjs');
    bundleCli(cli);
    copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(bin, 'sql-wasm.wasm'));
    // HOME is the temp dir, so ~/.pi/agent/sessions/--proj-search-demo--/ holds the copied pi fixtures
    piFolder = sessionDirFor(join(dir, '.pi', 'agent', 'sessions'), project);
    mkdirSync(piFolder, { recursive: true });
    cpSync(PI_FIXTURES, piFolder, { recursive: true });
    for (const name of readdirSync(piFolder)) chmodSync(join(piFolder, name), 0o644);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function run(args: string[]) {
    return cliRunOf(
      spawnSync(process.execPath, [cli, ...args, '--home', join(dir, 'home')], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: '' },
      }),
    );
  }

  it("finds messages of a folder's pi sessions with session id, ref, entry id and snippet (--json)", async () => {
    const before = await fingerprint(piFolder);
    const r = run(['search', 'Hello world', '--cwd', project, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.json.map((h: any) => [h.sessionId, h.ref, h.entryId, h.kind]),
      [
        ['a1b2c3d4-e5f6-7890-abcd-ef1234567890', join(piFolder, 'simple-session.v3.jsonl'), '00000005', 'toolResult'],
        ['a1b2c3d4-e5f6-7890-abcd-ef1234567890', join(piFolder, 'simple-session.v3.jsonl'), '00000006', 'assistant'],
      ],
    );
    assert.equal(r.json[1].snippet, 'The file contains: Hello world content');
    assert.deepEqual(await fingerprint(piFolder), before);
    assert.deepEqual(readdirSync(join(dir, 'home')), ['catalog.sqlite']);
  });

  it('prints hits grouped by session, and says so when nothing matches', () => {
    const r = run(['search', 'approach', 'B', '--cwd', project, '--limit', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Start working on feature A {2}\(pi, branch-sess-1234-5678-90ab-cdef12345678\)\n {2}.*session-with-branch-summary\.v3\.jsonl\n {2}00000004 {2}assistant on tip-00000004: Sure, let's try approach B\.\n$/,
    );
    const none = run(['search', 'xylophone', '--cwd', project]);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, 'No message matches "xylophone".\n');
    // another folder has no sessions
    assert.deepEqual(run(['search', 'hello', '--cwd', '/proj/other', '--json']).json, []);
    // --all looks at every folder
    assert.ok(run(['search', 'hello', '--all', '--json']).json.length > 0);
  });

  it('rejects a missing query and bad numbers with exit code 2; FTS syntax is just text', () => {
    const empty = run(['search']);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /what should be searched for/);
    const bad = run(['search', 'x', '--limit', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--limit must be a whole number of at least 1, not "0"/);
    const syntax = run(['search', '"unbalanced AND (OR', '--cwd', project, '--json']);
    assert.equal(syntax.code, 0, syntax.stderr);
    assert.deepEqual(syntax.json, []);
  });
});
