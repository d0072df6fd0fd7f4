// The agent replaced a folder with a file or a symlink; the rewind makes the folder again and puts its files back.
// The planner's check of each path it writes must not look through what is there now: under a file lstat(2) fails
// with ENOTDIR (the rewind failed with that error, its preview too), and under a symlink it would look at what the
// link points to, outside the workspace, and refuse (or allow) the rewind for what is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

for (const replacement of ['file', 'symlink'] as const) {
  test(`a folder the agent replaced with a ${replacement}: the preview and the rewind make the folder again with its files`, async () => {
    const base = await tempBase('arw-folder-replaced-');
    const ws = join(base.dir, 'ws');
    const outside = join(base.dir, 'outside');
    await writeTree(ws, { 'd/a.txt': 'a at u1\n', 'd/sub/b.txt': 'b at u1\n', 'keep.txt': 'keep\n' });
    // what a link would point to: a folder where d/a.txt is a folder, so looking through the link refuses the rewind
    await mkdir(join(outside, 'a.txt'), { recursive: true });
    await writeFile(join(outside, 'sub'), 'a file where d/sub is a folder\n');
    const sentinel = await fingerprint(outside);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    try {
      await fc.snapshot('s', 'u1');
      await rm(join(ws, 'd'), { recursive: true });
      if (replacement === 'file') await writeFile(join(ws, 'd'), 'd, a file by the agent\n');
      else await symlink(outside, join(ws, 'd'));
      await fc.snapshot('s', 'a1', 'turn-end');

      const dry = await fc.rewindFiles('s', 'u1', { anchor: userAnchor, dryRun: true });
      assert.equal(dry.error, undefined);
      assert.equal(dry.canRewind, true);
      assert.deepEqual(dry.filesChanged, ['d', 'd/a.txt', 'd/sub/b.txt']);
      const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
      assert.deepEqual(real.filesChanged, dry.filesChanged);
      assert.deepEqual(await readTree(ws), { 'd/a.txt': 'a at u1\n', 'd/sub/b.txt': 'b at u1\n', 'keep.txt': 'keep\n' });
      assert.deepEqual(await fingerprint(outside), sentinel, 'nothing outside the workspace changed');
      await fc.undoLastRewind('s');
      if (replacement === 'file') assert.equal(await readFile(join(ws, 'd'), 'utf8'), 'd, a file by the agent\n');
    } finally {
      await fc.dispose();
      await base.cleanup();
    }
  });
}
