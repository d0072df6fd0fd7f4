// adoptSnapshot: another session's user-message snapshot recorded under a second session with the same root (a fork's
// copied prompt), through the worker proxy as the extension calls it; nothing else is ever adopted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { WorkerFileCheckpointer } from '../../../src/core/files';
import { startTsFilesWorker, tempBase, writeTree } from './helpers';

test('adopts only a user-message snapshot, same root, rewindable and undoable in the adopting session', async () => {
  const base = await tempBase('arw-adopt-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'origin\n' });
  const cp = new WorkerFileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') }, startTsFilesWorker);
  try {
    const origin = await cp.snapshot('origin', 'p1', 'user-message');
    await cp.snapshot('origin', 't1', 'turn-end');
    await writeTree(ws, { 'a.txt': 'later\n' });

    assert.equal(await cp.adoptSnapshot('origin', 'nope', 'fork', 'x'), undefined);
    assert.equal(await cp.adoptSnapshot('origin', 't1', 'fork', 'x'), undefined, 'not a user-message snapshot');
    assert.equal(await cp.adoptSnapshot('gone', 'p1', 'fork', 'x'), undefined);
    assert.deepEqual(await cp.listSnapshots('fork'), []);

    const adopted = await cp.adoptSnapshot('origin', 'p1', 'fork', 'origin:origin:p1');
    assert.deepEqual([adopted?.sessionId, adopted?.anchorId, adopted?.root, adopted?.kind], ['fork', 'origin:origin:p1', origin.root, 'user-message']);
    // again: the same record, no error
    assert.equal((await cp.adoptSnapshot('origin', 'p1', 'fork', 'origin:origin:p1'))?.root, origin.root);
    assert.deepEqual(
      (await cp.listSnapshots('origin')).map((r) => r.anchorId),
      ['p1', 't1'],
    );

    await cp.rewindFiles('fork', 'origin:origin:p1', { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'origin\n');
    await cp.undoLastRewind('fork');
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'later\n');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});
