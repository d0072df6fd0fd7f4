// Scenario: folder modes come back with the folder: a 0700 folder is not restored as 0755, a sticky 1777 folder
// keeps its sticky bit, a setgid folder its setgid bit; a folder whose mode alone changed gets its mode back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { SnapshotRecords } from '../../../src/core/files/snapshot-records';
import { tempBase, userAnchor, writeTree } from './helpers';

const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;

test(
  'folder modes (0700, sticky 1777, setgid 2750) are restored, for removed folders and for changed modes',
  { skip: process.platform === 'win32' },
  async () => {
    const base = await tempBase('arw-rel-modes-');
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'private/key.txt': 'k\n', 'shared/tmp.txt': 't\n', 'group/g.txt': 'g\n', 'open/o.txt': 'o\n', 'private/deep/d.txt': 'd\n' });
    await chmod(join(ws, 'private'), 0o700);
    await chmod(join(ws, 'private/deep'), 0o750);
    await chmod(join(ws, 'shared'), 0o1777);
    await chmod(join(ws, 'group'), 0o2750);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    try {
      await fc.snapshot('s', 'u1');
      await rm(join(ws, 'private'), { recursive: true });
      await rm(join(ws, 'shared'), { recursive: true });
      await chmod(join(ws, 'group'), 0o755);
      await chmod(join(ws, 'open'), 0o700);
      const r = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
      assert.deepEqual(r.skipped, []);
      assert.equal((await modeOf(join(ws, 'private'))).toString(8), '700');
      assert.equal((await modeOf(join(ws, 'private/deep'))).toString(8), '750');
      assert.equal((await modeOf(join(ws, 'shared'))).toString(8), '1777');
      assert.equal((await modeOf(join(ws, 'group'))).toString(8), '2750');
      assert.equal((await modeOf(join(ws, 'open'))).toString(8), '755');
      // and undo puts the changed modes back as they were before the rewind
      await fc.undoLastRewind('s');
      assert.equal((await modeOf(join(ws, 'group'))).toString(8), '755');
      assert.equal((await modeOf(join(ws, 'open'))).toString(8), '700');
    } finally {
      await fc.dispose();
      await base.cleanup();
    }
  },
);

test(
  'a snapshot whose folders carry no mode (0) keeps the old behaviour: the folder is made as mkdir makes it',
  { skip: process.platform === 'win32' },
  async () => {
    const base = await tempBase('arw-rel-modes-');
    const ws = join(base.dir, 'ws');
    const storeDir = join(base.dir, 'store');
    await mkdir(ws);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), storeDir });
    try {
      const store = await ObjectStore.open(storeDir);
      const w = store.newPack();
      const blob = Buffer.from('x\n');
      await w.add('blob', hashObject('blob', blob), blob);
      const sub = Buffer.from(JSON.stringify([['x.txt', 'f', 0o644, hashObject('blob', blob), 2]]));
      await w.add('tree', hashObject('tree', sub), sub);
      const root = Buffer.from(JSON.stringify([['old', 'd', 0, hashObject('tree', sub), 0]]));
      await w.add('tree', hashObject('tree', root), root);
      await w.commit(false);
      await store.closeHandles();
      await new SnapshotRecords(storeDir).put({
        v: 1,
        sessionId: 's',
        anchorId: 'old',
        kind: 'user-message',
        root: hashObject('tree', root),
        createdAt: new Date().toISOString(),
        files: 1,
        totalBytes: 2,
      });
      await fc.rewindFiles('s', 'old', { anchor: userAnchor });
      const umask = process.umask();
      assert.equal(await modeOf(join(ws, 'old')), 0o777 & ~umask);
      await writeFile(join(ws, 'old/x.txt'), 'y\n');
      await chmod(join(ws, 'old'), 0o700);
      await fc.rewindFiles('s', 'old', { anchor: userAnchor });
      assert.equal(await modeOf(join(ws, 'old')), 0o700, 'a mode the snapshot does not know is left as it is');
    } finally {
      await fc.dispose();
      await base.cleanup();
    }
  },
);
