// A burst of lookups in a big pack's index left on disk (disk-pack-index.ts): the store reads the file whole once for
// the burst and gives it back when the operation that made it ends, so a long-lived service keeps four bytes per entry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { SMALL_PACK } from '../../../src/core/files/store/pack-table';

test('a store answers a burst of lookups in a big pack the same from the whole index, and holds nothing of it once told the operation ended', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arw-burst-'));
  try {
    const store = await ObjectStore.open(dir);
    const blobs = Array.from({ length: SMALL_PACK + 500 }, (_, i) => {
      const data = Buffer.from(`blob ${i}\n`);
      return { data, hash: hashObject('blob', data) };
    });
    const w = store.newPack();
    for (const b of blobs) await w.add('blob', b.hash, b.data);
    await w.commit(false);
    await store.reload();
    const onDisk = store.table.heldIndexBytes;
    assert.ok(onDisk < blobs.length * 8, `the big pack's index is left on disk (${onDisk} bytes held)`);
    for (const b of blobs) assert.equal(store.isBlob(b.hash), true);
    assert.equal(store.isBlob(hashObject('blob', Buffer.from('never stored'))), false);
    assert.ok(store.table.heldIndexBytes > blobs.length * 52, 'the burst holds the whole index');
    for (const b of blobs.slice(0, 200)) assert.equal((await store.read(b.hash, 'blob')).equals(b.data), true);
    store.endIndexBursts();
    assert.equal(store.table.heldIndexBytes, onDisk);
    assert.equal(store.isBlob(blobs[7]!.hash), true);
    await store.closeHandles();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a checkpointer gives back what a burst of index lookups read when its operation ends', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arw-burst-fc-'));
  try {
    const ws = join(dir, 'ws');
    await mkdir(ws);
    const ended: number[] = [];
    const original = ObjectStore.prototype.endIndexBursts;
    ObjectStore.prototype.endIndexBursts = function (this: ObjectStore) {
      ended.push(Date.now());
      return original.call(this);
    };
    try {
      await writeFile(join(ws, 'a.txt'), 'one\n');
      const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
      await fc.snapshot('s', 'm1');
      const afterSnapshot = ended.length;
      assert.ok(afterSnapshot >= 1, 'the snapshot ended its bursts');
      await writeFile(join(ws, 'a.txt'), 'two\n');
      const dry = await fc.rewindFiles('s', 'm1', { dryRun: true, anchor: { checkpointingEnabled: true, kind: 'user-message' } });
      assert.equal(dry.canRewind, true, dry.error);
      assert.ok(ended.length > afterSnapshot, 'the preview ended its bursts');
      await fc.dispose();
    } finally {
      ObjectStore.prototype.endIndexBursts = original;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
