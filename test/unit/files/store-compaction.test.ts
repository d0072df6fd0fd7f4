// Store compaction (store-compaction.ts): blobs rewritten smaller into a compacted pack with a dictionary, trees into
// an ordinary pack, every snapshot restoring exactly as before; a stopped or repeated compaction, a damaged object,
// a lost index and a gc of a compacted pack lose nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { F_DEFLATED, F_DICT, F_DICTIONARY, F_TREE } from '../../../src/core/files/store/object-format';
import { ObjectStore } from '../../../src/core/files/store/object-store';
import { BACKGROUND_TEMP } from '../../../src/core/files/store/pack-writer';
import { entryAt, indexCount } from '../../../src/core/files/store/pack-index';
import { setBackgroundCompactor } from '../../../src/core/files/store/compaction-handoff';
import { CompactionAborted, compactStore, type Locked } from '../../../src/core/files/store/store-compaction';
import { withStoreLock } from '../../../src/core/files/store/store-lock';
import { prng } from '../../support/prng';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

const packDir = (fc: FileCheckpointer) => join(fc.storeDir, 'packs');
const files = (fc: FileCheckpointer) => readdirSync(packDir(fc)).sort();
const packs = (fc: FileCheckpointer) =>
  files(fc)
    .filter((n) => n.endsWith('.pack'))
    .map((n) => n.slice(0, -5));
const hasCompactedPack = (fc: FileCheckpointer) => packs(fc).some((p) => p.endsWith('-c'));
/** `count` files of 512 KiB of random base64: enough blobs at the fast level to make a store due for compaction. */
const randomTree = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`data/r${i}.txt`, randomBytes(512 * 1024).toString('base64')]));
const entries = (fc: FileCheckpointer, pack: string) => {
  const idx = readFileSync(join(packDir(fc), pack + '.idx'));
  return Array.from({ length: indexCount(idx) ?? 0 }, (_, i) => entryAt(idx, i));
};

/** Source-like files that share lines, as a real workspace's do (what the dictionary is trained on). */
async function sharedLinesWorkspace(dir: string, count = 120): Promise<string> {
  const ws = join(dir, 'ws');
  const rand = prng(7);
  const pool = Array.from({ length: 60 }, (_, i) => `export const value${i} = compute(${i}, options.threshold ?? ${i * 7});`);
  const tree: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const lines = [`// file ${i}`];
    for (let j = 0; j < 80; j++) lines.push(pool[Math.floor(rand() * pool.length)]!);
    tree[`src/m${i % 6}/f${i}.ts`] = lines.join('\n') + '\n';
  }
  await writeTree(ws, tree);
  return ws;
}

async function storeSize(dir: string): Promise<number> {
  const s = await ObjectStore.open(dir);
  try {
    return await s.sizeOnDisk();
  } finally {
    await s.closeHandles();
  }
}

/** Every object of the store reads back (inflated and hashed). */
async function readAll(dir: string): Promise<number> {
  const s = await ObjectStore.open(dir);
  try {
    let n = 0;
    for (const { hash, loc } of s.table.entries()) {
      if (loc.flags & F_DICTIONARY) continue;
      await s.read(hash, loc.flags & F_TREE ? 'tree' : 'blob');
      n++;
    }
    return n;
  } finally {
    await s.closeHandles();
  }
}

test('compaction stores blobs smaller, with a dictionary, and every snapshot restores exactly as before', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const at1 = await fingerprint(ws);
    await writeFile(join(ws, 'src/m0/f0.ts'), 'changed\n');
    await writeFile(join(ws, 'src/new.ts'), 'export const added = 1;\n');
    await fc.snapshot('s', 'u2');
    const at2 = await fingerprint(ws);
    const before = await storeSize(fc.storeDir);
    const objects = await readAll(fc.storeDir);

    const res = await fc.compact();
    assert.ok(res, 'there was something to compact');
    const after = await storeSize(fc.storeDir);
    assert.ok(after < before * 0.8, `compacted ${after} bytes, ${before} before`);
    assert.equal(res.objects, objects);
    const [compacted, ...others] = packs(fc).sort((a, b) => Number(b.endsWith('-c')) - Number(a.endsWith('-c')));
    assert.ok(compacted?.endsWith('-c') && others.length === 1 && !others[0]!.endsWith('-c'), packs(fc).join(' '));
    const inCompacted = entries(fc, compacted!);
    assert.equal(inCompacted.filter((e) => e.flags & F_DICTIONARY).length, 2, 'one dictionary, stored twice');
    assert.ok(inCompacted.some((e) => e.flags & F_DICT));
    assert.ok(
      inCompacted.every((e) => !(e.flags & F_TREE)),
      'trees stay in an ordinary pack',
    );
    // the name a version without compaction takes for a pack: the compacted one is not one, the trees' pack is
    const OLD_PACK_NAME = /^[0-9a-z]+-[0-9a-f]+\.pack$/;
    assert.ok(!OLD_PACK_NAME.test(compacted + '.pack') && OLD_PACK_NAME.test(others[0]! + '.pack'));
    assert.equal(await readAll(fc.storeDir), objects);

    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    await fc.rewindFiles('s', 'u2', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at2);
    // and new snapshots go on beside the compacted pack
    await writeFile(join(ws, 'src/m1/f1.ts'), 'again\n');
    await fc.snapshot('s', 'u3');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('a stopped compaction changes nothing; one killed after its packs were in place is finished by the next', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const at1 = await fingerprint(ws);
    await fc.dispose();
    const listing = files(fc);
    const store = await ObjectStore.open(fc.storeDir);
    const locked: Locked = (fn) =>
      withStoreLock(join(fc.storeDir, 'lock'), async () => {
        await store.reload({ repair: true });
        return fn(store);
      });
    const stop = new AbortController();
    stop.abort();
    await assert.rejects(compactStore(locked, { force: true, signal: stop.signal }), CompactionAborted);
    assert.deepEqual(files(fc), listing, 'no pack added or removed, no temp file left');

    // killed between putting the new packs in place and removing the old: both are there
    const saved = listing.map((n) => [n, readFileSync(join(packDir(fc), n))] as const);
    await compactStore(locked, { force: true });
    for (const [n, data] of saved) writeFileSync(join(packDir(fc), n), data);
    await store.closeHandles();
    const again = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    const res = await again.compact();
    assert.ok(res);
    assert.equal(packs(again).filter((p) => p.endsWith('-c')).length, 1, 'what was compacted already is not compacted twice');
    assert.ok(!files(again).some((n) => saved.some(([s]) => s === n)), 'the old packs are gone');
    await writeFile(join(ws, 'src/m0/f0.ts'), 'changed\n');
    await again.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    await again.dispose();
  } finally {
    await cleanup();
  }
});

test('an object that does not verify is not compacted, and the pack holding it is mended, not dropped', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const [pack] = packs(fc);
    const all = entries(fc, pack!);
    const victim = all.find((e) => !(e.flags & F_TREE) && e.length > 100)!;
    const file = join(packDir(fc), pack + '.pack');
    const buf = readFileSync(file);
    buf[victim.offset + (victim.length >> 1)]! ^= 0x5a;
    writeFileSync(file, buf);
    const res = await fc.compact();
    assert.ok(res);
    assert.equal(res.packs, 0, 'the damaged pack was not dropped as compacted');
    const compacted = packs(fc).find((p) => p.endsWith('-c'))!;
    assert.ok(!entries(fc, compacted).some((e) => e.hash === victim.hash), 'the damaged object was not copied');
    assert.equal(entries(fc, compacted).filter((e) => !(e.flags & F_DICTIONARY)).length, all.filter((e) => !(e.flags & F_TREE)).length - 1);
    // it was marked, so an operation under the lock (here already compaction's last step) mends its pack: what is
    // intact is kept, the pack goes to quarantine/ with a report
    await fc.snapshot('s', 'u2');
    assert.ok(!packs(fc).includes(pack!), files(fc).join(' '));
    assert.ok(existsSync(join(fc.storeDir, 'quarantine', pack + '.json')));
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('a compacted pack whose index is lost gets it back from the pack, dictionary included', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const at1 = await fingerprint(ws);
    await fc.compact();
    await fc.dispose();
    const compacted = packs(fc).find((p) => p.endsWith('-c'))!;
    const idx = readFileSync(join(packDir(fc), compacted + '.idx'));
    unlinkSync(join(packDir(fc), compacted + '.idx'));
    const next = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await writeFile(join(ws, 'src/m2/f2.ts'), 'changed\n');
    await next.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    assert.deepEqual(readFileSync(join(packDir(next), compacted + '.idx')), idx, 'the same index, rebuilt');
    await next.dispose();
  } finally {
    await cleanup();
  }
});

test('gc rewrites a compacted pack with the dictionary its objects need', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const at1 = await fingerprint(ws);
    await writeFile(join(ws, 'src/m0/f0.ts'), 'changed\n'.repeat(100) + randomBytes(2000).toString('hex'));
    await fc.snapshot('s', 'u2');
    await fc.compact();
    const compacted = packs(fc).find((p) => p.endsWith('-c'))!;
    await fc.deleteSnapshot('s', 'u2');
    const res = await fc.gc();
    assert.ok(res.removedObjects >= 1);
    const now = packs(fc).filter((p) => p.endsWith('-c'));
    assert.equal(now.length, 1);
    assert.notEqual(now[0], compacted, 'rewritten without the blob only u2 had');
    assert.equal(entries(fc, now[0]!).filter((e) => e.flags & F_DICTIONARY).length, 2);
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    await fc.dispose();
    assert.ok((await readAll(fc.storeDir)) > 0);
  } finally {
    await cleanup();
  }
});

test('a tracked checkpointer compacts in the background once enough blobs are stored at the fast level', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = join(dir, 'ws');
    await writeTree(ws, randomTree(20));
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.startWatching();
    await fc.snapshot('s', 'u1');
    assert.ok(!hasCompactedPack(fc), 'the snapshot did not wait for it');
    await fc.whenCompacted();
    assert.ok(hasCompactedPack(fc));
    const at1 = await fingerprint(ws);
    await writeFile(join(ws, 'data/r0.txt'), 'x');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), at1);
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('a one-shot checkpointer (a fresh CLI process) hands a due compaction off when it closes, and gc compacts', async () => {
  const { dir, cleanup } = await tempBase();
  const handed: [string, string][] = [];
  setBackgroundCompactor((ws, storeDir) => handed.push([ws, storeDir]));
  try {
    const ws = join(dir, 'ws');
    await writeTree(ws, { 'small.txt': 'small\n' });
    const small = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await small.snapshot('s', 'u0');
    await small.dispose();
    assert.deepEqual(handed, [], 'nothing due yet');
    await writeTree(ws, randomTree(20));
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    await fc.whenCompacted();
    assert.ok(!hasCompactedPack(fc), 'it would only be stopped when the process closes');
    await fc.dispose();
    assert.deepEqual(handed, [[fc.workspaceRoot, fc.storeDir]]);
    const gc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await gc.gc();
    assert.ok(hasCompactedPack(gc));
    await gc.dispose();
    assert.equal(handed.length, 1, 'gc hands nothing off');
  } finally {
    setBackgroundCompactor(undefined);
    await cleanup();
  }
});

test('closing a checkpointer stops its compaction and leaves the store as it was', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = join(dir, 'ws');
    await writeTree(ws, randomTree(24));
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.startWatching();
    await fc.snapshot('s', 'u1');
    const listing = files(fc);
    await fc.dispose();
    const after = files(fc);
    // it either finished before the close (one compacted pack) or left everything as it was
    if (after.some((n) => n.endsWith('-c.pack'))) assert.ok(listing.every((n) => !after.includes(n)));
    else assert.deepEqual(after, listing);
    assert.ok(!after.some((n) => n.startsWith('tmp-')));
  } finally {
    await cleanup();
  }
});

test('a bulk snapshot stores its blobs past the first 128 objects as they are (its writes keep up), and compaction shrinks them', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = join(dir, 'ws');
    const tree: Record<string, string> = {};
    // very repetitive: level 1 takes each to a few percent; 5 MB in all, well under what a bulk pack lets wait for the
    // disk before it compresses (pack-writer.ts, DISK_BEHIND_BYTES)
    for (let i = 0; i < 1300; i++) tree[`d${i % 13}/f${i}.txt`] = `// ${i}\n` + 'const a = b;\n'.repeat(300);
    await writeTree(ws, tree);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const [pack] = packs(fc);
    const blobs = entries(fc, pack!).filter((e) => !(e.flags & F_TREE));
    const raw = blobs.filter((e) => !(e.flags & F_DEFLATED) && e.length === e.rawSize).length;
    assert.ok(raw >= 1100 && raw <= 1300 - 100, `${raw} of ${blobs.length} blobs stored as they are`);
    await fc.compact();
    const compacted = packs(fc).find((p) => p.endsWith('-c'))!;
    assert.equal(entries(fc, compacted).filter((e) => !(e.flags & F_DICTIONARY) && e.length > e.rawSize / 8).length, 0);
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test("compaction removes a killed compaction's temp files, never a running one's", async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir, 20);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const stale = join(packDir(fc), 'tmp-old-aaaa-c.pack');
    const running = join(packDir(fc), 'tmp-new-bbbb-c.pack');
    writeFileSync(stale, 'left by a kill');
    writeFileSync(running, 'being written');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    await fc.compact();
    assert.ok(!existsSync(stale));
    assert.ok(existsSync(running));
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('past eight compacted packs, the next compaction merges all but the largest', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir, 40);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    const prints: string[][] = [];
    for (let i = 0; i < 10; i++) {
      await writeFile(join(ws, `src/round${i}.ts`), `export const round = ${i};\n`.repeat(50 + i));
      await fc.snapshot('s', `u${i}`);
      prints.push(await fingerprint(ws));
      await fc.compact();
      const compacted = packs(fc).filter((p) => p.endsWith('-c')).length;
      assert.equal(compacted, i < 9 ? i + 1 : 2, `after compaction ${i + 1}`);
    }
    for (let i = 0; i < 10; i++) {
      await fc.rewindFiles('s', `u${i}`, { anchor: userAnchor, overwriteUserModified: true });
      assert.deepEqual(await fingerprint(ws), prints[i]);
    }
    await fc.dispose();
    assert.ok((await readAll(fc.storeDir)) > 0);
  } finally {
    await cleanup();
  }
});

test("a locked reload leaves a running compaction's temp packs alone (it adopts a snapshot's that lost its rename)", async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const ws = await sharedLinesWorkspace(dir, 20);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home') });
    await fc.snapshot('s', 'u1');
    const [pack] = packs(fc);
    // a whole pack under a compaction's temp name, as one is between its last write and its rename
    const temp = join(packDir(fc), `${BACKGROUND_TEMP}${pack!.replace(/[0-9a-f]{4}$/, 'abcd')}.pack`);
    writeFileSync(temp, readFileSync(join(packDir(fc), pack + '.pack')));
    await writeFile(join(ws, 'src/m0/f0.ts'), 'changed\n');
    await fc.snapshot('s', 'u2');
    assert.ok(existsSync(temp), files(fc).join(' '));
    await fc.dispose();
  } finally {
    await cleanup();
  }
});
