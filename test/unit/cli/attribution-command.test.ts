// Issue 27's acceptance, from a terminal: session A (ours, through `append`) and session B (Claude Code, through its
// hooks) work in one folder with the user's hand edits in between. `rewind-files A u1 --dry-run --json` says who
// changed each file; the default rewind brings back only A's changes; the options bring back the others'; undo-rewind
// puts everything back exactly and redo-rewind makes the same choice again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleCli, bundleThreadsInto, fingerprint, readTree, tempBase, writeTree } from '../files/helpers';
import { cliRunOf } from '../qa/cli-harness';

let base: Awaited<ReturnType<typeof tempBase>>;
let cli: string;

before(async () => {
  base = await tempBase('arw-attribution-cli-');
  cli = join(base.dir, 'cli.js');
  bundleCli(cli);
  bundleThreadsInto(base.dir);
});
after(() => base.cleanup());

const B = 'cccccccc-1111-4222-8333-444444444444';
const start = { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'u.txt': 'u0\n' };

async function scenario() {
  const ws = join(base.dir, `ws-${Math.random().toString(36).slice(2)}`);
  const home = join(`${ws}-home`);
  await writeTree(ws, start);
  const env = { ...process.env, AGENT_REWIND_HOME: home, HOME: base.dir, CLAUDE_CONFIG_DIR: join(base.dir, 'claude') };
  const run = (args: string[]) => cliRunOf(spawnSync(process.execPath, [cli, ...args, '--home', home], { encoding: 'utf8', env, cwd: ws }));
  const hook = (input: object) => {
    const r = spawnSync(process.execPath, [cli, 'hook', 'claude'], { encoding: 'utf8', env, input: JSON.stringify({ session_id: B, cwd: ws, ...input }) });
    assert.equal(r.status, 0, r.stderr);
  };
  const { id } = run(['new', '--cwd', ws, '--json']).json as { id: string };
  assert.equal(run(['append', id, '--role', 'user', '--text', 'change a', '--id', 'u1', '--json']).code, 0);
  await writeFile(join(ws, 'a.txt'), 'a1 by A\n');
  assert.equal(run(['append', id, '--role', 'assistant', '--text', 'done', '--id', 'r1', '--json']).code, 0);
  await writeFile(join(ws, 'u.txt'), 'u1 by hand\n');
  hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p-1', prompt: 'change b' });
  await writeFile(join(ws, 'b.txt'), 'b1 by Claude Code\n');
  hook({ hook_event_name: 'Stop', prompt_id: 'p-1', stop_hook_active: false });
  return { ws, id, run };
}

test('rewind-files --dry-run --json gives each file changedBy: this-session, other-session (with otherSession and otherPrompt), user', async () => {
  const { id, run } = await scenario();
  const dry = run(['rewind-files', id, 'u1', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  const files = (dry.json as { files: { path: string; changedBy: string; otherSession?: string; otherPrompt?: string; kept: boolean }[] }).files;
  assert.deepEqual(
    files.map((f) => ({ path: f.path, changedBy: f.changedBy, otherSession: f.otherSession, otherPrompt: f.otherPrompt, kept: f.kept })),
    [
      { path: 'a.txt', changedBy: 'this-session', otherSession: undefined, otherPrompt: undefined, kept: false },
      { path: 'b.txt', changedBy: 'other-session', otherSession: B, otherPrompt: 'p-1', kept: true },
      { path: 'u.txt', changedBy: 'user', otherSession: undefined, otherPrompt: undefined, kept: true },
    ],
  );
  const human = run(['rewind-files', id, 'u1', '--dry-run']);
  assert.match(human.stdout, /would rewind 1 file/);
  assert.match(human.stdout, /left as they are \(you changed them since, outside any agent turn; --overwrite-user-modified rewinds them too\):\n {2}u\.txt/);
  assert.match(
    human.stdout,
    new RegExp(`another session changed them since; --include-other-sessions rewinds them too\\):\\n  b\\.txt  \\(session ${B}, prompt p-1\\)`),
  );
  assert.doesNotMatch(human.stdout, /b\.txt.*by hand|by hand[^\n]*\n {2}b\.txt/);
});

test("the default rewind brings back only this session's changes, byte for byte; the options bring back the others'; undo and redo are exact", async () => {
  const { ws, id, run } = await scenario();
  const before = await fingerprint(ws);
  const now = await readTree(ws);
  const def = run(['rewind-files', id, 'u1', '--json']);
  assert.equal(def.code, 0, def.stderr);
  assert.deepEqual(await readTree(ws), { ...now, 'a.txt': start['a.txt'] });
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);

  const all = run(['rewind-files', id, 'u1', '--include-other-sessions', '--overwrite-user-modified', '--json']);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(await readTree(ws), start);
  const after = await fingerprint(ws);
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);
  const redo = run(['redo-rewind', id]);
  assert.equal(redo.code, 0, redo.stderr);
  assert.deepEqual(await fingerprint(ws), after, 'redo makes the same choice: every file back as at u1');
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);

  const others = run(['rewind-files', id, 'u1', '--include-other-sessions', '--json']);
  assert.equal(others.code, 0, others.stderr);
  assert.deepEqual(await readTree(ws), { ...now, 'a.txt': start['a.txt'], 'b.txt': start['b.txt'] });
});

test('rewind-files --only brings back exactly the named files, whoever changed them; undo-rewind and redo-rewind follow the selection', async () => {
  const { ws, id, run } = await scenario();
  const before = await fingerprint(ws);
  const now = await readTree(ws);
  const dry = run(['rewind-files', id, 'u1', '--only', 'b.txt', '--only', join(ws, 'u.txt'), '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual((dry.json as { filesChanged: string[] }).filesChanged, ['b.txt', 'u.txt']);
  const real = run(['rewind-files', id, 'u1', '--only', 'b.txt', '--only', join(ws, 'u.txt')]);
  assert.equal(real.code, 0, real.stderr);
  assert.match(real.stdout, /rewound 2 files/);
  const chosen = { ...now, 'b.txt': start['b.txt'], 'u.txt': start['u.txt'] };
  assert.deepEqual(await readTree(ws), chosen);
  const after = await fingerprint(ws);
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);
  assert.equal(run(['redo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), after, 'redo brings back the same two files only');
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);

  const outside = run(['rewind-files', id, 'u1', '--only', join(ws, '..', 'elsewhere.txt')]);
  assert.equal(outside.code, 1);
  assert.match(outside.stderr, /not a path inside the workspace/);
  assert.deepEqual(await fingerprint(ws), before);
});
