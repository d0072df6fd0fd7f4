// Scenario: a FIFO (or any non-regular file) where a .gitignore or a snapshotted file is expected must never be
// opened: opening a FIFO for reading blocks until a writer comes, so every snapshot would hang forever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempBase, writeTree } from './helpers';
import { FILES_SRC, runTs } from './reliability-helpers';

/** A child process that snapshots `ws` and prints the summary's skipped list (a hang is killed by the limit). */
async function snapshotInChild(dir: string, ws: string): Promise<{ skipped: { path: string; reason: string }[] }> {
  const script = join(dir, 'snap.mts');
  await writeFile(
    script,
    `import { FileCheckpointer } from ${JSON.stringify(FILES_SRC)};
const fc = new FileCheckpointer({ workspaceRoot: process.argv[2]!, home: process.argv[3]! });
const s = await fc.snapshot('s', 'u1');
const again = await fc.snapshot('s', 'u2');
await fc.dispose();
console.log(JSON.stringify({ skipped: s.skipped, again: again.skipped }));
`,
  );
  const r = runTs(script, [ws, join(dir, 'home')], 10_000);
  assert.equal(r.timedOut, false, 'the snapshot must not block on a FIFO');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

test('a nested .gitignore that is a FIFO does not block the snapshot; it is reported in skipped', async () => {
  const base = await tempBase('arw-rel-fifo-');
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    execFileSync('mkfifo', [join(ws, 'sub/.gitignore')]);
    const out = await snapshotInChild(base.dir, ws);
    const gi = out.skipped.filter((s) => s.path === 'sub/.gitignore');
    assert.equal(gi.length, 1, JSON.stringify(out.skipped));
    assert.match(gi[0]!.reason, /not a regular file/);
  } finally {
    await base.cleanup();
  }
});

test('a root .gitignore that is a symlink to a FIFO outside the workspace does not block the snapshot', async () => {
  const base = await tempBase('arw-rel-fifo-');
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n' });
    await mkdir(join(base.dir, 'outside'));
    execFileSync('mkfifo', [join(base.dir, 'outside/fifo')]);
    await symlink(join(base.dir, 'outside/fifo'), join(ws, '.gitignore'));
    const out = await snapshotInChild(base.dir, ws);
    assert.ok(
      out.skipped.some((s) => s.path === '.gitignore' && /ignore rules/.test(s.reason) && /not a regular file/.test(s.reason)),
      JSON.stringify(out.skipped),
    );
  } finally {
    await base.cleanup();
  }
});

test('FIFOs and sockets in the workspace are never opened: reported as skipped, the snapshot finishes', async () => {
  const base = await tempBase('arw-rel-fifo-');
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n' });
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    execFileSync('python3', ['-c', `import socket; s=socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(join(ws, 'sock'))})`]);
    const out = await snapshotInChild(base.dir, ws);
    assert.deepEqual(out.skipped.map((s) => s.path).sort(), ['pipe', 'sock']);
  } finally {
    await base.cleanup();
  }
});
