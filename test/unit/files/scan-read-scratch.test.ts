// A refresh hashes the files it reads from a scratch (safe-read.ts, ReadScratch) and copies only what it keeps: the
// checkpoint service's C heap kept the pages of thousands of freed per-file buffers after a refresh that re-read many
// files (issue 26). What it keeps must still be the files' bytes: the pack's blobs and the recent reads a preview uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { utimesSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { PathFilter } from '../../../src/core/files/scan/path-filter';
import { WorkspaceModel, type ScanStats } from '../../../src/core/files/scan/workspace-model';
import { ReadScratch, readStableFile } from '../../../src/core/files/safe-read';
import { ByteSlabs, SLAB_BYTES } from '../../../src/core/files/scan/byte-slabs';
import { tempBase } from './helpers';

const FILES = 300;
const stats = (): ScanStats => ({ skipped: [], hashedFiles: 0 });

/** Files of several kinds: tiny (stored as they are), text (deflated), random (stored as they are: deflate gains nothing). */
function contentOf(i: number): Buffer {
  if (i % 3 === 0) return Buffer.from(`f${i}\n`);
  if (i % 3 === 1) return Buffer.from(`line of file ${i}\n`.repeat(1 + (i % 40)));
  return randomBytes(100 + ((i * 37) % 3000));
}

async function workspace(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < FILES; i++) {
    const rel = `d${i % 7}/f${i}.bin`;
    await mkdir(join(dir, `d${i % 7}`), { recursive: true });
    const data = contentOf(i);
    await writeFile(join(dir, rel), data);
    files.set(rel, data);
  }
  return files;
}

/** Calls of Buffer's allocators for fewer than 128 KiB (blocks in the C heap) while `run` runs. */
async function smallAllocations(run: () => Promise<void>): Promise<number> {
  const originals = { allocUnsafe: Buffer.allocUnsafe, allocUnsafeSlow: Buffer.allocUnsafeSlow, alloc: Buffer.alloc };
  let small = 0;
  for (const k of Object.keys(originals) as (keyof typeof originals)[]) {
    const orig = originals[k] as (size: number, ...rest: unknown[]) => Buffer;
    (Buffer as unknown as Record<string, unknown>)[k] = (size: number, ...rest: unknown[]) => {
      if (size < 128 * 1024) small++;
      return orig.call(Buffer, size, ...rest);
    };
  }
  try {
    await run();
  } finally {
    Object.assign(Buffer, originals);
  }
  return small;
}

test('a refresh that reads again files whose blobs are stored takes no buffer per file', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await mkdir(ws);
    const files = await workspace(ws);
    const store = await ObjectStore.open(join(base.dir, 'store'));
    const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
    const first = store.newPack();
    await model.fullScan(stats(), first);
    await first.commit(false);
    // the same bytes under new times: each file is read and hashed again, and found stored
    const t = Date.now() / 1000 - 3600;
    for (const rel of files.keys()) utimesSync(join(ws, rel), t, t);
    const again = stats();
    const w = store.newPack();
    const small = await smallAllocations(() => model.fullScan(again, w));
    await w.commit(false);
    assert.equal(again.hashedFiles, FILES, 'every file was read again');
    assert.ok(small < FILES / 10, `${small} small buffers for ${FILES} files read again`);
  } finally {
    await base.cleanup();
  }
});

test('what a refresh keeps of the files it read is their bytes: the blobs it stores and the recent reads', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await mkdir(ws);
    const store = await ObjectStore.open(join(base.dir, 'store'));
    const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
    const first = store.newPack();
    await model.fullScan(stats(), first);
    await first.commit(false);
    // written after the first scan: a refresh of reported paths reads them all, stores them and keeps them for a preview
    const files = await workspace(ws);
    const w = store.newPack();
    await model.refreshPaths(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6'], stats(), w);
    await w.commit(false);
    for (const [rel, data] of files) {
      const hash = hashObject('blob', data);
      assert.equal((model.get(rel) as { hash?: string } | undefined)?.hash, hash, rel);
      assert.deepEqual(await store.read(hash, 'blob'), data, `${rel}: the stored blob`);
      assert.deepEqual(model.recentRead(rel, hash), data, `${rel}: the recent read`);
    }
  } finally {
    await base.cleanup();
  }
});

test('reads into a scratch: each a view of one of two buffers, a recent file still read twice and compared', async () => {
  const base = await tempBase();
  try {
    const scratch = new ReadScratch();
    const a = join(base.dir, 'a.txt');
    const b = join(base.dir, 'b.txt');
    const big = join(base.dir, 'big.bin');
    await writeFile(a, 'first file\n'); // modified just now: read twice, the two reads compared
    await writeFile(b, 'second file, longer\n');
    await writeFile(big, randomBytes(ReadScratch.MAX + 1));
    const ra = readStableFile(a, false, scratch).data;
    assert.equal(ra.toString(), 'first file\n');
    assert.ok(scratch.lent(ra));
    const rb = readStableFile(b, false, scratch).data;
    assert.equal(rb.toString(), 'second file, longer\n');
    assert.ok(scratch.lent(rb));
    const rbig = readStableFile(big, false, scratch).data;
    assert.equal(scratch.lent(rbig), false, 'a file over the scratch size has a buffer of its own');
    assert.equal(rbig.length, ReadScratch.MAX + 1);
  } finally {
    await base.cleanup();
  }
});

test('byte slabs: copies share a few big buffers and stay as they were given', () => {
  const slabs = new ByteSlabs();
  const given = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 997) % 4000)));
  const expected = given.map((d) => Buffer.from(d));
  const copies = given.map((d) => slabs.copy(d));
  for (const d of given) d.fill(0);
  copies.forEach((c, i) => assert.deepEqual(c, expected[i], `copy ${i}`));
  assert.ok(new Set(copies.map((c) => c.buffer)).size <= Math.ceil((200 * 4000) / SLAB_BYTES) + 1);
  const large = randomBytes(SLAB_BYTES / 2 + 1);
  assert.deepEqual(slabs.copy(large), large);
});
