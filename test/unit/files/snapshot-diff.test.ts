// diffSnapshots: two stored snapshots compared tree to tree (folders only on one side listed file by file, binary
// files without line counts), the same in-thread and through the files worker; the two may be of two sessions of the
// folder (a session and its fork).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, WorkerFileCheckpointer } from '../../../src/core/files';
import { startTsFilesWorker, tempBase, writeTree } from './helpers';

test('diffSnapshots lists what differs between two snapshots, from A to B, in-thread and in the worker', async () => {
  const base = await tempBase('arw-snapdiff-');
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  try {
    await writeTree(ws, { 'same.txt': 'same\n', 'app.txt': 'one\ntwo\n', 'old/a.txt': 'a\n', 'old/deep/b.txt': 'b\nb\n', 'pic.bin': 'x\0y' });
    const cp = new FileCheckpointer({ workspaceRoot: ws, home });
    await cp.snapshot('s', 'A');
    await rm(join(ws, 'old'), { recursive: true });
    await mkdir(join(ws, 'new'));
    await writeFile(join(ws, 'new/c.txt'), 'c\n');
    await writeFile(join(ws, 'app.txt'), 'one\nthree\nfour\n');
    await writeFile(join(ws, 'pic.bin'), 'x\0z');
    await cp.snapshot('s', 'B');
    await cp.snapshot('fork', 'F');
    const expected = [
      ['app.txt', 'modified', 2, 1, false],
      ['new/c.txt', 'added', 1, 0, false],
      ['old/a.txt', 'deleted', 0, 1, false],
      ['old/deep/b.txt', 'deleted', 0, 2, false],
      ['pic.bin', 'modified', 0, 0, true],
    ];
    const rows = (d: Awaited<ReturnType<FileCheckpointer['diffSnapshots']>>) => d.map((f) => [f.path, f.status, f.insertions, f.deletions, f.binary]);
    const at = (sessionId: string, anchorId: string) => ({ sessionId, anchorId });
    assert.deepEqual(rows(await cp.diffSnapshots(at('s', 'A'), at('s', 'B'))), expected);
    assert.deepEqual(await cp.diffSnapshots(at('s', 'A'), at('s', 'A')), []);
    assert.deepEqual(rows(await cp.diffSnapshots(at('s', 'A'), at('fork', 'F'))), expected);
    assert.deepEqual(await cp.diffSnapshots(at('fork', 'F'), at('s', 'B')), []);
    await assert.rejects(cp.diffSnapshots(at('s', 'A'), at('s', 'nope')), /no file snapshot nope in this session/);
    await assert.rejects(cp.diffSnapshots(at('s', 'A'), at('fork', 'nope')), /no file snapshot nope in session fork/);
    await cp.dispose();

    const worker = new WorkerFileCheckpointer({ workspaceRoot: ws, home }, startTsFilesWorker);
    try {
      assert.deepEqual(rows(await worker.diffSnapshots(at('s', 'A'), at('s', 'B'))), expected);
      assert.deepEqual(rows(await worker.diffSnapshots(at('s', 'A'), at('fork', 'F'))), expected);
    } finally {
      await worker.dispose();
    }
  } finally {
    await base.cleanup();
  }
});
