// A bulk snapshot (a first snapshot) stores its blobs as they are while the disk keeps up with the pack's writes, and
// Huffman-codes them only while those writes are behind (pack-writer.ts, compressBulk): compressing every file was
// most of a first snapshot's CPU. Either way every object reads back as it was, and compaction still recompresses.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileCheckpointer } from '../../../src/core/files';
import { F_DEFLATED, F_DICTIONARY, F_TREE } from '../../../src/core/files/store/object-format';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { BULK_OBJECTS, DISK_BEHIND_BYTES } from '../../../src/core/files/store/pack-writer';
import { tempBase, userAnchor, writeTree } from './helpers';

/** Compressible, distinct contents of about `size` bytes. */
const text = (i: number, size: number) => Buffer.from(`// file ${i}\n${`const value${i % 13} = compute(${i % 7}, "text");\n`.repeat(Math.ceil(size / 40))}`);

test('a bulk pack stores its blobs raw while its writes keep up, Huffman-coded once they are behind, and all read back', async () => {
  const base = await tempBase('arw-bulk-');
  try {
    const store = await ObjectStore.open(join(base.dir, 'store'));
    const w = store.newPack();
    // added without waiting: no write finishes meanwhile, so the bytes handed to the file pile up as a slow disk's do
    const size = 8 * 1024;
    const count = BULK_OBJECTS + Math.ceil((2 * DISK_BEHIND_BYTES) / size);
    const blobs = Array.from({ length: count }, (_, i) => {
      const data = text(i, size);
      return { data, hash: hashObject('blob', data) };
    });
    const adds = blobs.map((b) => w.add('blob', b.hash, b.data));
    await Promise.all(adds);
    await w.commit(false);
    const flags = new Map<string, number>();
    for (const { hash, loc } of store.table.entries()) flags.set(hash, loc.flags);
    const deflated = blobs.map((b) => (flags.get(b.hash)! & F_DEFLATED) !== 0);
    // the first objects of any pack at level 1 (a small snapshot's), then raw until DISK_BEHIND_BYTES were waiting to
    // be written, then Huffman-coded to the end
    assert.ok(deflated.slice(0, BULK_OBJECTS).every(Boolean), 'a small pack is deflated');
    const behind = deflated.indexOf(true, BULK_OBJECTS);
    assert.ok(behind > BULK_OBJECTS, 'raw while the writes keep up');
    assert.ok(
      deflated.slice(BULK_OBJECTS, behind).every((d) => !d),
      'raw while the writes keep up',
    );
    assert.ok(deflated.slice(behind).every(Boolean), 'Huffman-coded once they are behind');
    const rawBytes = blobs.slice(BULK_OBJECTS, behind).reduce((n, b) => n + b.data.length, 0);
    assert.ok(rawBytes <= DISK_BEHIND_BYTES && rawBytes > DISK_BEHIND_BYTES - 2 * size - BULK_OBJECTS * 1024, `${rawBytes} raw bytes`);
    const reopened = await ObjectStore.open(join(base.dir, 'store'));
    for (const b of [blobs[0]!, blobs[BULK_OBJECTS + 10]!, blobs[count - 1]!]) assert.deepEqual(await reopened.read(b.hash, 'blob'), b.data);
    await reopened.closeHandles();
    await store.closeHandles();
  } finally {
    await base.cleanup();
  }
});

test('a first snapshot of many files stores raw blobs that restore exactly and compact to deflated ones', async () => {
  const base = await tempBase('arw-bulk-first-');
  try {
    const ws = join(base.dir, 'ws');
    const files: Record<string, string> = {};
    for (let i = 0; i < BULK_OBJECTS + 300; i++) files[`d${i % 17}/f${i}.ts`] = text(i, 600 + (i % 5) * 300).toString();
    await writeTree(ws, files);
    for (const hashThreadAfter of [Infinity, 0]) {
      const home = join(base.dir, `home-${hashThreadAfter}`);
      const fc = new FileCheckpointer({ workspaceRoot: ws, home, tuning: { hashThreadAfter } });
      try {
        await fc.snapshot('s', 'u1');
        const store = await ObjectStore.open(fc.storeDir);
        let raw = 0;
        for (const { loc } of store.table.entries()) if (!(loc.flags & (F_DEFLATED | F_TREE))) raw++;
        await store.closeHandles();
        assert.ok(raw >= 200, `blobs stored raw (${raw}), hashing thread after ${hashThreadAfter}`);
        for (const p of [`d0/f0.ts`, `d3/f${BULK_OBJECTS + 20}.ts`, `d5/f${BULK_OBJECTS + 299}.ts`])
          assert.equal((await fc.readFileAtAnchor('s', 'u1', p))?.toString(), files[p], p);
        assert.ok(await fc.compact(), 'compacted');
        const after = await ObjectStore.open(fc.storeDir);
        let rawAfter = 0;
        for (const { loc } of after.table.entries()) if (!(loc.flags & (F_DEFLATED | F_TREE | F_DICTIONARY)) && loc.rawSize >= 64) rawAfter++;
        await after.closeHandles();
        assert.equal(rawAfter, 0, 'compaction deflated every blob');
        for (const p of [`d0/f0.ts`, `d5/f${BULK_OBJECTS + 299}.ts`]) assert.equal((await fc.readFileAtAnchor('s', 'u1', p))?.toString(), files[p], p);
      } finally {
        await fc.dispose();
      }
    }
  } finally {
    await base.cleanup();
  }
});

test("a rewind of 300 files keeps their undo copies and its folders' trees as they are (no deflate on the restore's time); compaction deflates them, and the undo brings the files back", async () => {
  const base = await tempBase('arw-bulk-undo-');
  try {
    const ws = join(base.dir, 'ws');
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 9}/f${i}.ts`] = text(i, 2000).toString();
    await writeTree(ws, files);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    try {
      await fc.snapshot('s', 'u1');
      const edited = Object.fromEntries(Object.keys(files).map((p, i) => [p, `${files[p]}// edited ${i}\n`]));
      await writeTree(ws, edited);
      const undoHashes = Object.values(edited).map((t) => hashObject('blob', Buffer.from(t)));
      const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
      assert.equal(real.filesChanged.length, 300);
      const store = await ObjectStore.open(fc.storeDir);
      const flags = new Map<string, number>();
      const packOf = new Map<string, string>();
      for (const { hash, loc } of store.table.entries()) {
        flags.set(hash, loc.flags);
        packOf.set(hash, loc.pack);
      }
      await store.closeHandles();
      const raw = undoHashes.filter((h) => flags.has(h) && !(flags.get(h)! & F_DEFLATED)).length;
      assert.equal(raw, 300, 'undo copies stored as they are, from the first');
      // the pre-restore pack's trees: the nine folders (and the root) the edits changed
      const preRestorePack = packOf.get(undoHashes[0]!)!;
      const trees = [...flags].filter(([h, f]) => f & F_TREE && packOf.get(h) === preRestorePack);
      assert.equal(trees.length, 10);
      assert.ok(
        trees.every(([, f]) => !(f & F_DEFLATED)),
        'its trees stored as they are',
      );
      assert.ok(await fc.compact(), 'compacted');
      const after = await ObjectStore.open(fc.storeDir);
      const treesAfter = [...after.table.entries()].filter((e) => e.loc.flags & F_TREE && trees.some(([h]) => h === e.hash));
      assert.equal(treesAfter.length, 10);
      assert.ok(
        treesAfter.every((e) => e.loc.flags & F_DEFLATED),
        'compaction deflated them',
      );
      for (const e of treesAfter) await after.read(e.hash, 'tree');
      await after.closeHandles();
      await fc.undoLastRewind('s');
      for (const [p, t] of Object.entries(edited)) assert.equal(await readFile(join(ws, p), 'utf8'), t, p);
    } finally {
      await fc.dispose();
    }
  } finally {
    await base.cleanup();
  }
});
