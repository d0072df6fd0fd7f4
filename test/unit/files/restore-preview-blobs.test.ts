// A rewind right after its preview writes the blobs the preview already read and checked (by hash) instead of reading
// and inflating each again; a file edited by hand in between is still found and kept, as without the preview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { ObjectStore } from '../../../src/core/files/store/object-store';
import { tempBase, userAnchor, writeTree } from './helpers';

const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`src/d${i % 4}/f${i}.txt`, `line ${i}\n`.repeat(20)]));

async function countBlobReads<T>(fn: () => Promise<T>): Promise<{ value: T; reads: number }> {
  const orig = ObjectStore.prototype.read;
  let reads = 0;
  ObjectStore.prototype.read = function (this: ObjectStore, hash: string, kind, path?: string) {
    if (kind === 'blob') reads++;
    return orig.call(this, hash, kind, path);
  };
  try {
    return { value: await fn(), reads };
  } finally {
    ObjectStore.prototype.read = orig;
  }
}

test('a rewind right after its preview reads no target blob from the store again', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, files);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1');
    for (const rel of Object.keys(files)) await writeFile(join(ws, rel), 'changed\n');
    const preview = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(preview.filesChanged.length, 40);
    const { value: real, reads } = await countBlobReads(() => fc.rewindFiles('s', 'u1', { anchor: userAnchor }));
    assert.equal(real.filesChanged.length, 40);
    assert.equal(reads, 0);
    for (const [rel, text] of Object.entries(files)) assert.equal(await readFile(join(ws, rel), 'utf8'), text);
    // the undo still puts back what the rewind replaced
    await fc.undoLastRewind('s');
    for (const rel of Object.keys(files)) assert.equal(await readFile(join(ws, rel), 'utf8'), 'changed\n');
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});

test('a file edited by hand between the preview and the rewind is still kept (turn-end snapshot)', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, files);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1');
    for (const rel of Object.keys(files)) await writeFile(join(ws, rel), 'agent\n');
    await fc.snapshot('s', 'turn-1', 'turn-end');
    const preview = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(preview.userModified, []);
    await writeFile(join(ws, 'src/d1/f5.txt'), 'mine\n');
    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(real.userModified, ['src/d1/f5.txt']);
    assert.equal(await readFile(join(ws, 'src/d1/f5.txt'), 'utf8'), 'mine\n');
    assert.equal(await readFile(join(ws, 'src/d0/f4.txt'), 'utf8'), files['src/d0/f4.txt']);
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});
