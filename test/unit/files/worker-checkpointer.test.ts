// WorkerFileCheckpointer's own lifecycle: closing waits for work in flight; a worker that dies fails only the
// calls in flight, with a clear message, and the next call starts a new one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { FileCheckpointer, WorkerFileCheckpointer } from '../../../src/core/files';
import { startTsFilesWorker, tempBase, writeTree } from './helpers';

async function workspace() {
  const base = await tempBase('arw-worker-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = `content ${i}\n`.repeat(50);
  await writeTree(ws, files);
  return { ws, home: join(base.dir, 'home'), cleanup: base.cleanup };
}

test('dispose lets a snapshot in flight finish before it stops the worker', async () => {
  const { ws, home, cleanup } = await workspace();
  try {
    const cp = new WorkerFileCheckpointer({ workspaceRoot: ws, home }, startTsFilesWorker);
    const snap = cp.snapshot('s', 'u1');
    await cp.dispose();
    assert.equal((await snap).files, 300);
    await assert.rejects(cp.snapshot('s', 'u2'), /closed/);
    const again = new WorkerFileCheckpointer({ workspaceRoot: ws, home }, startTsFilesWorker);
    assert.deepEqual(
      (await again.listSnapshots('s')).map((r) => r.anchorId),
      ['u1'],
    );
    await again.dispose();
  } finally {
    await cleanup();
  }
});

test('a worker that dies fails the calls in flight with a clear error, and the next call starts a new one', async () => {
  const { ws, home, cleanup } = await workspace();
  const started: Worker[] = [];
  const cp = new WorkerFileCheckpointer({ workspaceRoot: ws, home }, () => {
    const w = startTsFilesWorker();
    started.push(w);
    return w;
  });
  try {
    await cp.snapshot('s', 'u1');
    const inFlight = cp.snapshot('s', 'u2');
    await started[0]!.terminate();
    await assert.rejects(inFlight, /file-checkpoint worker stopped/);
    const s3 = await cp.snapshot('s', 'u3');
    assert.equal(s3.files, 300);
    assert.equal(started.length, 2);
    assert.equal((await cp.readFileAtAnchor('s', 'u3', 'd1/f1.txt'))?.toString(), 'content 1\n'.repeat(50));
  } finally {
    await cp.dispose();
    await cleanup();
  }
});

test('a workspace folder that does not exist is refused at once, as in-thread', async () => {
  const { home, cleanup } = await workspace();
  try {
    assert.throws(() => new WorkerFileCheckpointer({ workspaceRoot: join(home, 'missing'), home }, startTsFilesWorker), /does not exist/);
  } finally {
    await cleanup();
  }
});

test('a file given as the workspace is refused at once, in the worker proxy and in-thread alike', async () => {
  const { ws, home, cleanup } = await workspace();
  try {
    const file = join(ws, 'not-a-folder.txt');
    writeFileSync(file, 'x');
    assert.throws(() => new WorkerFileCheckpointer({ workspaceRoot: file, home }, startTsFilesWorker), /is not a folder/);
    assert.throws(() => new FileCheckpointer({ workspaceRoot: file, home }), /is not a folder/);
  } finally {
    await cleanup();
  }
});

test('the worker answers fileHunks and takes a hunk selection, as in-thread', async () => {
  const { ws, home, cleanup } = await workspace();
  const cp = new WorkerFileCheckpointer({ workspaceRoot: ws, home }, startTsFilesWorker);
  try {
    await cp.snapshot('s', 'u1');
    writeFileSync(join(ws, 'd1/f1.txt'), 'first\n' + 'content 1\n'.repeat(48) + 'last\n');
    const [listed] = await cp.fileHunks('s', 'u1', ['d1/f1.txt']);
    assert.ok(listed?.ok);
    assert.deepEqual(
      listed.hunks.map((h) => [h.index, h.insertions, h.deletions]),
      [
        [1, 1, 0],
        [2, 1, 2],
      ],
    );
    const r = await cp.rewindFiles('s', 'u1', {
      anchor: { checkpointingEnabled: true, kind: 'user-message' },
      hunks: [{ path: 'd1/f1.txt', hunks: [2], hash: listed.hash }],
    });
    assert.deepEqual(r.files.find((f) => f.path === 'd1/f1.txt')?.partial, { hunks: [2], of: 2, hash: listed.hash });
  } finally {
    await cp.dispose();
    await cleanup();
  }
});
