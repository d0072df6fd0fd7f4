import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleCli, bundleThreadsInto, tempBase, writeTree } from './helpers';
import { cliRunOf } from '../qa/cli-harness';

let base: Awaited<ReturnType<typeof tempBase>>;
let cli: string;

before(async () => {
  base = await tempBase('arw-files-cli-');
  cli = join(base.dir, 'cli.js');
  bundleCli(cli);
  // as in dist/: the hashing and compaction threads' bundles beside the CLI's
  bundleThreadsInto(base.dir);
});
after(() => base.cleanup());

function run(home: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return cliRunOf(spawnSync(process.execPath, [cli, ...args, '--home', home], { encoding: 'utf8', env: { ...process.env, AGENT_REWIND_HOME: '', ...env } }));
}

test('CLI: append snapshots automatically; rewind-files previews, rewinds, refuses with exit 1; undo-rewind; gc', async () => {
  const ws = join(base.dir, 'ws1');
  const home = join(base.dir, 'home1');
  await writeTree(ws, { 'app.ts': 'one\n', 'notes.md': 'n1\n' });
  const { id } = run(home, ['new', '--cwd', ws, '--json']).json;
  const u1 = run(home, ['append', id, '--role', 'user', '--text', 'make it two', '--id', 'u1', '--json']);
  assert.equal(u1.code, 0, u1.stderr);
  // the agent works through the shell, then its turn ends
  await writeFile(join(ws, 'app.ts'), 'two\n');
  await writeFile(join(ws, 'extra.ts'), 'generated\n');
  assert.equal(run(home, ['append', id, '--role', 'assistant', '--text', 'done', '--id', 'a1', '--json']).code, 0);
  // then the user edits notes.md by hand
  await writeFile(join(ws, 'notes.md'), 'n2 by hand\n');

  const dry = run(home, ['rewind-files', id, 'u1', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(dry.json.filesChanged, ['app.ts', 'extra.ts']);
  assert.deepEqual(dry.json.userModified, ['notes.md']);
  assert.equal(dry.json.canRewind, true);
  const human = run(home, ['rewind-files', id, 'u1', '--dry-run']);
  assert.match(human.stdout, /would rewind 2 files/);
  assert.match(human.stdout, /you changed them since, outside any agent turn.*\n  notes\.md/);

  const refused = run(home, ['rewind-files', id, 'a1']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'agent-rewind rewind-files: Entry a1 is not a user message; files can only be rewound to the moment a user message was sent.\n');
  const refusedDry = run(home, ['rewind-files', id, 'a1', '--dry-run', '--json']);
  assert.equal(refusedDry.code, 1);
  assert.equal(refusedDry.stdout, '');
  assert.equal(refusedDry.stderr, refused.stderr);

  const real = run(home, ['rewind-files', id, 'u1', '--json']);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(await readFile(join(ws, 'app.ts'), 'utf8'), 'one\n');
  assert.equal(await readFile(join(ws, 'notes.md'), 'utf8'), 'n2 by hand\n');
  assert.equal(
    await rm(join(ws, 'extra.ts')).then(
      () => 'still there',
      () => 'gone',
    ),
    'gone',
  );

  const undo = run(home, ['undo-rewind', id, '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(await readFile(join(ws, 'app.ts'), 'utf8'), 'two\n');
  const again = run(home, ['undo-rewind', id]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /There is no file rewind to undo in this session\./);

  const gc = run(home, ['gc', '--json']);
  assert.equal(gc.code, 0, gc.stderr);
  assert.ok(gc.json.removedObjects > 0, 'the undone pre-restore snapshot is collected');
});

test('CLI: --no-snapshot leaves the message without a snapshot; snapshot --anchor takes one later', async () => {
  const ws = join(base.dir, 'ws2');
  const home = join(base.dir, 'home2');
  await writeTree(ws, { 'a.txt': 'a\n' });
  const { file } = run(home, ['new', '--cwd', ws, '--json']).json;
  assert.equal(run(home, ['append', file, '--role', 'user', '--text', 'hi', '--id', 'u1', '--no-snapshot', '--json']).code, 0);
  const none = run(home, ['rewind-files', file, 'u1']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /Message u1 has no file snapshot/);
  const snap = run(home, ['snapshot', file, '--anchor', 'u1', '--json']);
  assert.equal(snap.code, 0, snap.stderr);
  assert.equal(snap.json.files, 1);
  const wrong = run(home, ['snapshot', file, '--anchor', 'nope']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /there is no entry nope/);
  const other = join(base.dir, 'ws2-other');
  await writeTree(other, { 'b.txt': 'b\n' });
  const elsewhere = run(home, ['snapshot', file, '--anchor', 'u1', '--workspace', other, '--json']);
  assert.equal(elsewhere.json.files, 1);
});

test('CLI: a snapshot that leaves the store due for compaction starts one detached gc, which compacts it', async () => {
  const ws = join(base.dir, 'ws-compact');
  const home = join(base.dir, 'home-compact');
  const tree: Record<string, string> = {};
  for (let i = 0; i < 20; i++) tree[`data/r${i}.txt`] = randomBytes(512 * 1024).toString('base64');
  await writeTree(ws, tree);
  const { id } = run(home, ['new', '--cwd', ws, '--json']).json;
  const u1 = run(home, ['append', id, '--role', 'user', '--text', 'go', '--id', 'u1', '--json']);
  assert.equal(u1.code, 0, u1.stderr);
  const store = join(home, 'checkpoints', readdirSync(join(home, 'checkpoints'))[0]!);
  const pid = Number(await readFile(join(store, 'compact.pid'), 'utf8'));
  assert.ok(pid > 0, 'a gc was started');
  // a second snapshot while it runs starts no other
  await writeFile(join(ws, 'data/r0.txt'), 'changed\n');
  assert.equal(run(home, ['append', id, '--role', 'user', '--text', 'again', '--id', 'u2', '--json']).code, 0);
  assert.equal(Number(await readFile(join(store, 'compact.pid'), 'utf8')), pid);
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(
    readdirSync(join(store, 'packs')).some((n) => n.endsWith('-c.pack')),
    'the detached gc compacted the store',
  );
  const back = run(home, ['rewind-files', id, 'u1', '--json']);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(await readFile(join(ws, 'data/r0.txt'), 'utf8'), tree['data/r0.txt']);
});

test('CLI: a snapshot on the hashing thread (its own bundle, beside the CLI) stores what one without it stores', async () => {
  const ws = join(base.dir, 'ws-thread');
  const tree: Record<string, string> = { 'empty.txt': '', 'tiny.txt': 'x\n' };
  for (let i = 0; i < 60; i++) tree[`d${i % 5}/f${i}.txt`] = `line ${i}\n`.repeat(1 + (i % 50));
  for (let i = 0; i < 3; i++) tree[`bin/r${i}.b64`] = randomBytes(4000).toString('base64');
  await writeTree(ws, tree);
  const snapshotIn = (home: string, env: NodeJS.ProcessEnv) => {
    const { id } = run(home, ['new', '--cwd', ws, '--json']).json;
    assert.equal(run(home, ['append', id, '--role', 'user', '--text', 'go', '--id', 'u1', '--no-snapshot', '--json']).code, 0);
    const r = run(home, ['snapshot', id, '--anchor', 'u1', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return r.json;
  };
  const threaded = snapshotIn(join(base.dir, 'home-thread'), { AGENT_REWIND_HASH_THREAD_AFTER: '0' });
  const inline = snapshotIn(join(base.dir, 'home-inline'), { AGENT_REWIND_HASH_THREAD: '0' });
  assert.deepEqual(threaded.skipped, []);
  assert.equal(threaded.files, Object.keys(tree).length);
  assert.equal(threaded.root, inline.root);
});
