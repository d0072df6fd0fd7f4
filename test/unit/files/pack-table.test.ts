// The pack table's lookups while small packs are binary-searched and after they are mapped, and from a big pack's
// index left on disk (pack-table.ts, disk-pack-index.ts).
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { F_DICTIONARY } from '../../../src/core/files/store/object-format';
import { encodeIndex } from '../../../src/core/files/store/pack-index';
import { PackTable, SMALL_PACK } from '../../../src/core/files/store/pack-table';
import { DiskPackIndex } from '../../../src/core/files/store/disk-pack-index';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

function pack(name: string, count: number) {
  const entries = Array.from({ length: count }, (_, i) => ({ hash: hash(`${name}-${i}`), offset: i * 10, length: 10, rawSize: 10, flags: 0 }));
  return { entries: entries.map((e) => ({ ...e })), index: { idx: encodeIndex(entries), count, size: count * 10 } };
}

test('small packs answer the same before and after their objects are mapped; removing one forgets its objects', () => {
  const table = new PackTable();
  const a = pack('a', 500);
  const b = pack('b', 40); // mapped at once
  const shared = { hash: hash('shared'), offset: 5000, length: 10, rawSize: 10, flags: 0 };
  const c = pack('c', 300);
  const cIdx = encodeIndex([...c.entries, shared]);
  table.add('a', a.index);
  table.add('b', b.index);
  table.add('c', { idx: cIdx, count: 301, size: 6000 });
  const ask = () => [
    ...[a.entries[0]!, a.entries[499]!, b.entries[7]!, c.entries[299]!, shared].map((e) => {
      const loc = table.find(e.hash);
      return `${e.hash.slice(0, 6)} ${loc?.pack} ${loc?.offset} ${table.contains(e.hash)} ${table.locations(e.hash).length}`;
    }),
    `${table.find(hash('none'))} ${table.contains(hash('none'))} ${table.locations(hash('none')).length}`,
  ];
  const before = ask();
  assert.match(before[0]!, / a 0 true 1$/);
  assert.match(before[3]!, / c 2990 true 1$/);
  assert.match(before[4]!, / c 5000 true 1$/);
  assert.equal(before[5], 'undefined false 0');
  // enough lookups to map both larger packs (twice their objects each)
  for (let i = 0; i < 1200; i++) table.contains(hash(`miss-${i}`));
  assert.deepEqual(ask(), before, 'mapped: the same answers');
  table.remove('c');
  assert.equal(table.find(shared.hash), undefined);
  assert.equal(table.contains(c.entries[0]!.hash), false);
  assert.equal(table.find(a.entries[3]!.hash)?.pack, 'a');
  // a pack removed before it was mapped
  const d = pack('d', 200);
  table.add('d', d.index);
  assert.equal(table.find(d.entries[10]!.hash)?.offset, 100);
  table.remove('d');
  assert.equal(table.find(d.entries[10]!.hash), undefined);
  assert.equal(table.contains(d.entries[10]!.hash), false);
});

test("a big pack's index stays on disk: four bytes per object in memory, and the same answers as from memory", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arw-disk-idx-'));
  try {
    const big = pack('big', SMALL_PACK + 500);
    // two hashes whose first four bytes are one of the pack's: a lookup reads every entry with that start
    const twin = big.entries[1234]!.hash.slice(0, 8) + 'f'.repeat(56);
    const twin2 = big.entries[1234]!.hash.slice(0, 8) + '0'.repeat(56);
    const entries = [
      ...big.entries,
      { hash: twin, offset: 1, length: 2, rawSize: 3, flags: 0 },
      { hash: hash('dict'), offset: 7, length: 3, rawSize: 3, flags: F_DICTIONARY },
    ];
    const idx = encodeIndex(entries.map((e) => ({ ...e })));
    const file = join(dir, 'big.idx');
    await writeFile(file, idx);
    const index = { idx, count: entries.length, size: 10 * entries.length };
    const inMemory = new PackTable();
    inMemory.add('big', index);
    const onDisk = new PackTable();
    onDisk.add('big', index, file);
    assert.equal(inMemory.heldIndexBytes, idx.length);
    assert.equal(onDisk.heldIndexBytes, 4 * entries.length, 'only the first four bytes of each hash');
    const ask = (t: PackTable) => [...entries.map((e) => e.hash), twin2, hash('none')].map((h) => JSON.stringify([t.find(h), t.contains(h), t.locations(h)]));
    assert.deepEqual(ask(onDisk), ask(inMemory));
    assert.equal(onDisk.find(twin)?.offset, 1);
    assert.equal(onDisk.contains(twin2), false);
    assert.deepEqual([...onDisk.entries()], [...inMemory.entries()]);
    assert.deepEqual(onDisk.dictionaries('big'), inMemory.dictionaries('big'));
    assert.equal(onDisk.dictionaries('big').length, 1);
    assert.ok(onDisk.indexOf('big')?.equals(idx));
    assert.ok(onDisk.all()[0]![1].idx.equals(idx));
    // the file dropped (another process's gc): still read through the descriptor opened when the pack was added
    await rm(file);
    assert.equal(onDisk.find(entries[4000]!.hash)?.offset, entries[4000]!.offset);
    onDisk.remove('big');
    assert.equal(onDisk.contains(entries[4000]!.hash), false);
    // an index file that is not there when the pack is added: kept in memory
    const fallback = new PackTable();
    fallback.add('big', index, file);
    assert.equal(fallback.heldIndexBytes, idx.length);
    assert.equal(fallback.find(entries[4000]!.hash)?.offset, entries[4000]!.offset);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A pack of `count` objects whose index is in a file of `dir`, looked up through a DiskPackIndex. */
async function diskIndexOf(dir: string, count: number) {
  const big = pack('big', count);
  const idx = encodeIndex(big.entries.map((e) => ({ ...e })));
  const file = join(dir, 'big.idx');
  await writeFile(file, idx);
  const disk = new DiskPackIndex(file, idx, big.entries.length);
  const lookup = (h: string) => {
    const key = Buffer.from(h, 'hex');
    const i = disk.find(key, key.readUInt32BE(0));
    return i < 0 ? undefined : disk.loc(i);
  };
  return { big, disk, lookup };
}

test("a big pack's index on disk: a miss reads nothing from the file, a hit found and located reads its entry once", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arw-disk-idx-'));
  try {
    const { big, disk, lookup } = await diskIndexOf(dir, SMALL_PACK + 10);
    // a restore's new blobs: the four bytes kept in memory answer them (a few in 2^32 share them and read one entry)
    for (let n = 0; n < 200; n++) assert.equal(lookup(hash(`not stored ${n}`)), undefined);
    assert.equal(disk.reads, 0);
    // its stored files (isBlob: find, then the entry's flags): one read each, not one to find and one to locate
    const sorted = [...big.entries].sort((a, b) => (a.hash < b.hash ? -1 : 1));
    for (const e of [sorted[7]!, sorted[3000]!, sorted[7]!]) assert.equal(lookup(e.hash)?.offset, e.offset);
    assert.equal(disk.reads, 3);
    assert.equal(disk.loc(sorted.findIndex((e) => e.hash === sorted[7]!.hash)).offset, sorted[7]!.offset);
    assert.equal(disk.reads, 3, 'the entry it holds is not read again');
    disk.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a big pack's index on disk: a burst of hits reads the whole file once, answers the same, and gives it back when the burst ends", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arw-disk-burst-'));
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  try {
    const { big, disk, lookup } = await diskIndexOf(dir, 6000);
    const entries = big.entries;
    // a warm snapshot's few hundred hits: one read each, nothing more held
    for (let n = 0; n < 300; n++) assert.equal(lookup(entries[n]!.hash)?.offset, entries[n]!.offset);
    assert.equal(disk.reads, 300);
    assert.equal(disk.wholeReads, 0);
    mock.timers.tick(1500); // a new window: the hits before it do not count towards a burst
    // a rewind's thousands: the first ones read their entry, then the whole file once serves the rest, every answer
    // the one the file gives
    for (let n = 0; n < entries.length; n++) {
      const e = entries[(n * 7919) % entries.length]!;
      assert.deepEqual(lookup(e.hash), { offset: e.offset, length: e.length, rawSize: e.rawSize, flags: e.flags });
    }
    assert.equal(disk.wholeReads, 1);
    assert.ok(disk.reads < 300 + 1100, `${disk.reads} entries read one by one`);
    for (let n = 0; n < 50; n++) assert.equal(lookup(hash(`not stored ${n}`)), undefined);
    // a second after the last hit the whole file is given back: the next hits read their entry again
    mock.timers.tick(2100);
    const before = disk.reads;
    assert.equal(lookup(entries[5]!.hash)?.offset, entries[5]!.offset);
    assert.equal(disk.reads, before + 1);
    assert.equal(disk.wholeReads, 1);
    disk.close();
  } finally {
    mock.timers.reset();
    await rm(dir, { recursive: true, force: true });
  }
});
