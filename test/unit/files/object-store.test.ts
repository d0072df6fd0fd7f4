import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempBase } from './helpers';
import { indexSize } from '../../../src/core/files/store/pack-table';

const blob = (text: string) => {
  const data = Buffer.from(text);
  return { data, hash: hashObject('blob', data) };
};

async function writePack(store: ObjectStore, blobs: { data: Buffer; hash: string }[]): Promise<void> {
  const w = store.newPack();
  for (const b of blobs) await w.add('blob', b.hash, b.data);
  await w.commit(false);
}

test('objects spread over many small packs and one big pack are all found, and unknown hashes are not', async () => {
  const base = await tempBase();
  try {
    const store = await ObjectStore.open(base.dir);
    // one pack past the small-pack limit (binary-searched), then many tiny ones (the shared map)
    const big = Array.from({ length: 5000 }, (_, i) => blob(`big ${i}`));
    await writePack(store, big);
    const small = Array.from({ length: 60 }, (_, i) => blob(`small ${i}`));
    for (let i = 0; i < small.length; i += 3) await writePack(store, small.slice(i, i + 3));
    const reopened = await ObjectStore.open(base.dir);
    for (const s of [store, reopened]) {
      for (const b of [big[0]!, big[2500]!, big[4999]!, ...small]) {
        assert.ok(s.has(b.hash), `has ${b.hash}`);
        assert.deepEqual(await s.read(b.hash, 'blob'), b.data);
      }
      assert.equal(s.has(blob('never stored').hash), false);
      assert.equal(s.has('not a hash'), false);
    }
  } finally {
    await base.cleanup();
  }
});

test("a short-lived process keeps a big pack's index in memory, a long-lived one on disk; both find the same objects", async () => {
  const base = await tempBase();
  try {
    const big = Array.from({ length: 5000 }, (_, i) => blob(`big ${i}`));
    await writePack(await ObjectStore.open(base.dir), big);
    const onDisk = await ObjectStore.open(base.dir);
    const inMemory = await ObjectStore.open(base.dir, { indexesInMemory: true });
    assert.equal(onDisk.table.heldIndexBytes, 4 * big.length, 'only the first four bytes of each hash');
    assert.equal(inMemory.table.heldIndexBytes, indexSize(big.length), 'the whole index it read at open');
    for (const s of [onDisk, inMemory]) {
      for (const b of [big[0]!, big[1234]!, big[4999]!]) {
        assert.ok(s.isBlob(b.hash), `isBlob ${b.hash}`);
        assert.deepEqual(await s.read(b.hash, 'blob'), b.data);
      }
      assert.equal(s.has(blob('never stored').hash), false);
    }
    // a pack written by the process itself is held the same way
    const more = Array.from({ length: 4200 }, (_, i) => blob(`more ${i}`));
    await writePack(inMemory, more);
    assert.equal(inMemory.table.heldIndexBytes, indexSize(big.length) + indexSize(more.length));
    assert.ok(inMemory.isBlob(more[4100]!.hash));
  } finally {
    await base.cleanup();
  }
});

test('an object kept in two small packs is still found after gc rewrites one of them, and a dropped one is gone', async () => {
  const base = await tempBase();
  try {
    const x = blob('x');
    const y = blob('y');
    const dead = blob('dead');
    // two writers that do not see each other's packs store x twice
    const a = await ObjectStore.open(base.dir);
    const b = await ObjectStore.open(base.dir);
    await writePack(a, [x, dead]);
    await writePack(b, [x, y]);
    const store = await ObjectStore.open(base.dir);
    assert.ok(store.has(x.hash) && store.has(y.hash) && store.has(dead.hash));
    const { removedObjects } = await store.gc(new Set([x.hash, y.hash]));
    assert.equal(removedObjects, 2); // dead, and the second copy of x
    assert.equal(store.has(dead.hash), false);
    for (const o of [x, y]) assert.deepEqual(await store.read(o.hash, 'blob'), o.data);
    const again = await ObjectStore.open(base.dir);
    assert.equal(again.has(dead.hash), false);
    for (const o of [x, y]) assert.deepEqual(await again.read(o.hash, 'blob'), o.data);
  } finally {
    await base.cleanup();
  }
});

test('once there are more than 32 small packs they are merged into one; every object stays readable, also reopened', async () => {
  const base = await tempBase();
  try {
    const store = await ObjectStore.open(base.dir);
    const big = Array.from({ length: 5000 }, (_, i) => blob(`big ${i}`));
    await writePack(store, big);
    const small = Array.from({ length: 70 }, (_, i) => blob(`small ${i}`));
    for (let i = 0; i < 32; i++) await writePack(store, small.slice(i * 2, i * 2 + 2));
    const packFiles = async () => (await readdir(join(base.dir, 'packs'))).filter((n) => n.endsWith('.pack')).length;
    assert.equal(await store.consolidateSmallPacks(), 0, '32 small packs are fine');
    await writePack(store, small.slice(64, 70));
    assert.equal(await packFiles(), 34);
    assert.equal(await store.consolidateSmallPacks(), 33);
    assert.equal(await packFiles(), 2, 'the big pack and the merged one');
    const reopened = await ObjectStore.open(base.dir);
    for (const s of [store, reopened]) {
      for (const b of [big[0]!, big[4999]!, ...small]) assert.deepEqual(await s.read(b.hash, 'blob'), b.data, b.hash);
    }
  } finally {
    await base.cleanup();
  }
});

test('objects a verifying writer stored count as verified in its process without a read back; others are read back', async () => {
  const base = await tempBase();
  try {
    const store = await ObjectStore.open(base.dir);
    const fresh = blob('written by a pre-restore snapshot');
    const plain = blob('written by an ordinary snapshot');
    const v = store.newPack({ verify: new Set([fresh.hash]) });
    await v.add('blob', fresh.hash, fresh.data);
    await v.commit(false);
    await writePack(store, [plain]);
    // damage the last byte of every pack after the fact: only a read back can see it
    for (const name of (await readdir(store.packDir)).filter((n) => n.endsWith('.pack'))) {
      const p = join(store.packDir, name);
      const bytes = await readFile(p);
      bytes[bytes.length - 1]! ^= 0xff;
      await writeFile(p, bytes);
    }
    assert.equal(store.hasVerified(fresh.hash, 'blob'), true, 'deflated and written from the bytes it hashed');
    assert.equal(store.hasVerified(plain.hash, 'blob'), false, 'an ordinary writer’s copy is read back');
    const reopened = await ObjectStore.open(base.dir);
    assert.equal(reopened.hasVerified(fresh.hash, 'blob'), false, 'another process reads it back');
  } finally {
    await base.cleanup();
  }
});

test('asking whether a hash no pack holds is stored intact answers no without calling it damaged', async () => {
  const base = await tempBase();
  try {
    const store = await ObjectStore.open(base.dir);
    await writePack(store, [blob('kept')]);
    const fresh = blob('a fresh edit');
    assert.equal(store.hasVerified(fresh.hash, 'blob'), false);
    await assert.rejects(store.read(fresh.hash, 'blob'), /is missing from the checkpoint store/);
    assert.equal(store.hasVerified(blob('kept').hash, 'blob'), true);
  } finally {
    await base.cleanup();
  }
});
