import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

const start = { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'gone.txt': 'g0\n', 'lib/x.txt': 'x0\n', 'lib/deep/y.txt': 'y0\n', 'old/z.txt': 'z0\n' };

/** A's turn changes everything; B's turn (another process) changes b.txt; the user removes a folder by hand. */
async function scenario(fn: (ctx: { ws: string; a: FileCheckpointer }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-only-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, start);
  const home = join(base.dir, 'home');
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const b = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    await a.snapshot('A', 'u1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'a1\n');
    await rm(join(ws, 'gone.txt'));
    await writeFile(join(ws, 'lib/x.txt'), 'x1\n');
    await writeFile(join(ws, 'lib/deep/y.txt'), 'y1\n');
    await mkdir(join(ws, 'new'));
    await writeFile(join(ws, 'new/n.txt'), 'n1\n');
    await a.snapshot('A', 'r1', 'turn-end');
    await b.snapshot('B', 'p1', 'user-message');
    await writeFile(join(ws, 'b.txt'), 'b1\n');
    await b.snapshot('B', 'p1:turn-end', 'turn-end');
    await rm(join(ws, 'old'), { recursive: true });
    await fn({ ws, a });
  } finally {
    await a.dispose();
    await b.dispose();
    await base.cleanup();
  }
}

test('only: exactly the named files come back, whoever changed them, and nothing else; undo is exact', async () => {
  await scenario(async ({ ws, a }) => {
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    const dry = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor, only: ['b.txt', 'gone.txt'] });
    assert.deepEqual(dry.filesChanged, ['b.txt', 'gone.txt']);
    assert.deepEqual(
      dry.files.filter((f) => !f.kept).map((f) => f.path),
      ['b.txt', 'gone.txt'],
    );
    const real = await a.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['b.txt', 'gone.txt'] });
    assert.deepEqual(real.filesChanged, dry.filesChanged);
    assert.deepEqual(await readTree(ws), { ...now, 'b.txt': 'b0\n', 'gone.txt': 'g0\n' });
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
  });
});

test('only: a folder stands for everything below it; a folder the user removed comes back only when chosen', async () => {
  await scenario(async ({ ws, a }) => {
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['lib/'] });
    assert.deepEqual(await readTree(ws), { ...now, 'lib/x.txt': 'x0\n', 'lib/deep/y.txt': 'y0\n' });
    assert.equal(
      (await fingerprint(ws)).some((l) => l.startsWith('old/')),
      false,
      'the folder the user removed stays removed',
    );
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['old'] });
    assert.deepEqual(await readTree(ws), { ...now, 'old/z.txt': 'z0\n' });
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
  });
});

test('without a selection, a folder whose files all stay is not brought back empty', async () => {
  await scenario(async ({ ws, a }) => {
    await a.rewindFiles('A', 'u1', { anchor: userAnchor });
    assert.equal(
      (await fingerprint(ws)).some((l) => l.startsWith('old/')),
      false,
    );
    assert.equal((await readTree(ws))['a.txt'], 'a0\n');
  });
});

test('only: a path with nothing to bring back is reported; a path out of the workspace is refused, dry run or not', async () => {
  await scenario(async ({ ws, a }) => {
    const before = await fingerprint(ws);
    const dry = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor, only: ['nope.txt'] });
    assert.deepEqual(dry.filesChanged, []);
    assert.deepEqual(dry.skipped, [{ path: 'nope.txt', reason: 'as it was at that message already: nothing to bring back' }]);
    const out = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor, only: ['../outside'] });
    assert.equal(out.canRewind, false);
    assert.match(out.error!, /unsafe path refused/);
    await assert.rejects(a.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['../outside'] }), /unsafe path refused/);
    await assert.rejects(a.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['/etc/passwd'] }), /absolute path refused/);
    assert.deepEqual(await fingerprint(ws), before);
  });
});
