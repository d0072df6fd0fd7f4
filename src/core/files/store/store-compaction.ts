// Compaction of the object store, like git's `gc --auto`: a snapshot stores its blobs with deflate level 1 (a bulk one
// as they are, or Huffman-coded: pack-writer.ts, BULK_OBJECTS), which keeps snapshots fast; once enough of those have
// gathered, they are rewritten off the hot path into a compacted pack, deflated at level 6 with a preset dictionary of the lines most shared between files (about 18% smaller on
// the benchmark's workspace, 22% on a node_modules sample, than level 1 alone). Reads stay one inflate per object.
//
// Only the start (choosing the packs) and the end (putting the new packs in place, removing the old) hold the store
// lock; reading, checking and recompressing run without it, on their own thread, so a snapshot never waits for more
// than those two short steps. Crash safety: the new packs are written to temp files, fsynced, then renamed in (pack
// before index); the packs they replace are deleted only after that. A kill at any point leaves the old packs, or the
// new and the old (the next compaction skips what is already compacted), never neither. Every object is inflated and
// hashed before it is copied; one that does not verify is not copied, and its pack is kept.
//
// Blobs go into a pack named as compacted (COMPACTED_SUFFIX): versions without compaction leave it alone, and their
// objects look missing to them, never damaged. Trees are copied as they are into an ordinary pack, so that such a
// version still sees every tree and keeps (in its gc) every object a snapshot reaches; a tree a bulk pack stored raw is
// deflated (no dictionary) on the way.
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { backgroundCompactor } from './compaction-handoff';
import { CompactionThread, type ObjectIn } from '../workers/compaction-thread';
import { F_DICT, F_DICTIONARY, F_TREE, kindOf, verifyStored } from './object-format';
import type { ObjectStore } from './object-store';
import { entryAt, entryLoc, type IndexEntry } from './pack-index';
import { indexSize, isCompacted, type PackIndex } from './pack-table';
import type { PackWriter } from './pack-writer';

/** Blob bytes in ordinary packs (deflate level 1) from which a compaction is worth it. */
export const COMPACT_MIN_BYTES = 8 * 1024 * 1024;
/**
 * Half of deflate's 32 KiB window: every read of a compacted object copies the dictionary in, and on the benchmark's
 * files 32 KiB cost 12 µs more per 8 KiB read than level 1, 16 KiB 7.5 µs, for 2.5% more stored bytes.
 */
const DICT_SIZE = 16 * 1024;
/** File contents the dictionary is trained on, taken evenly from the blobs to compact. */
const SAMPLE_BYTES = 8 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);
/** Compacted packs a store keeps before the next compaction merges them. */
const MAX_COMPACTED = 8;
/** Objects per batch handed to the thread (and read before it). */
const BATCH_BYTES = 2 * 1024 * 1024;

export interface CompactionResult {
  /** Ordinary packs replaced. */
  packs: number;
  objects: number;
  /** Bytes of the packs replaced, and of the packs that replaced them (indexes included). */
  bytesBefore: number;
  bytesAfter: number;
}

/** Runs `fn` under the store lock, after the store is reloaded from disk (FileCheckpointer.locked). */
export type Locked = <T>(fn: (store: ObjectStore) => Promise<T>) => Promise<T>;

export class CompactionAborted extends Error {}

/** Hands a store found due to whoever compacts in the background for this process (compaction-handoff.ts), if anyone. */
export function compactInBackground(workspaceRoot: string, storeDir: string): void {
  try {
    backgroundCompactor()?.(workspaceRoot, storeDir);
  } catch {
    /* the next snapshot asks again */
  }
}

/** Blob bytes in the ordinary packs: what a compaction would recompress. */
export function uncompactedBlobBytes(store: ObjectStore): number {
  let total = 0;
  for (const [pack, p] of store.table.all()) if (!isCompacted(pack)) total += store.table.blobBytes(pack, p);
  return total;
}

export function compactionDue(store: ObjectStore): boolean {
  return uncompactedBlobBytes(store) >= COMPACT_MIN_BYTES;
}

interface Plan {
  sources: [string, PackIndex][];
  bytesBefore: number;
}

function plan(store: ObjectStore, force: boolean): Plan | undefined {
  if (!force && !compactionDue(store)) return undefined;
  const all = store.table.all();
  const plain = all.filter(([pack]) => !isCompacted(pack));
  // each compaction adds a compacted pack: past MAX_COMPACTED, all but the largest are merged into the new one, so
  // their number (and the indexes a fresh process reads) stays small
  const compacted = all.filter(([pack]) => isCompacted(pack)).sort((a, b) => b[1].size - a[1].size);
  const merged = compacted.length > MAX_COMPACTED ? compacted.slice(1) : [];
  if (merged.length === 0 && (plain.length === 0 || (plain.length === 1 && store.table.blobBytes(...plain[0]!) === 0))) return undefined;
  const sources = [...plain, ...merged];
  const bytesBefore = sources.reduce((n, [, p]) => n + p.size + indexSize(p.count), 0);
  return { sources, bytesBefore };
}

/** The dictionary: the one compacted packs already use (so they can later be merged as they are), else trained. */
async function chooseDictionary(store: ObjectStore, thread: CompactionThread, sources: [string, PackIndex][], check: () => void): Promise<Buffer | undefined> {
  const compacted = store.table
    .all()
    .filter(([pack]) => isCompacted(pack))
    .sort((a, b) => b[1].size - a[1].size);
  for (const [pack] of compacted) {
    const dict = store.dictionaryOf(pack);
    if (dict) return dict;
  }
  const blobs: (ObjectIn & { offset: number; length: number })[] = [];
  let total = 0;
  for (const [pack, p] of sources) {
    for (let i = 0; i < p.count; i++) {
      const e = entryLoc(p.idx, i); // no hash: a sample needs none, and decoding 50,000 costs
      if (e.flags & (F_TREE | F_DICTIONARY | F_DICT)) continue;
      blobs.push({ hash: '', flags: e.flags, rawSize: e.rawSize, stored: EMPTY, pack, offset: e.offset, length: e.length });
      total += e.rawSize;
    }
  }
  // every step-th blob, so that the sample spans the whole workspace rather than its first folders
  const step = Math.max(1, Math.floor(total / SAMPLE_BYTES));
  const samples: ObjectIn[] = [];
  for (let i = 0; i < blobs.length; i += step) {
    if (samples.length % 64 === 0) check();
    const b = blobs[i]!;
    try {
      samples.push({ ...b, stored: await store.readers.read(b) });
    } catch {
      /* a sample fewer */
    }
  }
  return thread.train(samples, DICT_SIZE);
}

/**
 * Compacts the store when due (always with `force`). `signal` stops it between batches (the process is closing):
 * nothing changes then, the temp files are removed. Undefined when there was nothing to do.
 */
export async function compactStore(locked: Locked, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<CompactionResult | undefined> {
  const p = await locked(async (store) => {
    const found = plan(store, opts.force === true);
    if (found) await removeStaleTemps(store.packDir);
    return found && { store, found };
  });
  if (!p) return undefined;
  const { store, found } = p;
  const thread = new CompactionThread();
  const check = () => {
    if (opts.signal?.aborted) throw new CompactionAborted('compaction stopped');
  };
  let blobs: PackWriter | undefined;
  let trees: PackWriter | undefined;
  try {
    const dictionary = await chooseDictionary(store, thread, found.sources, check);
    check();
    thread.useDictionary(dictionary);
    blobs = store.newPack({ kind: { compacted: true, dictionary, background: true } });
    trees = store.newPack({ kind: { background: true } });
    /** Sources with an object that did not verify: kept, so that nothing is lost with them. */
    const keep = new Set<string>();
    const sourceNames = new Set(found.sources.map(([pack]) => pack));
    let objects = 0;
    for (const [pack, p] of found.sources) {
      thread.sourceDictionary(pack, store.dictionaryOf(pack));
      let batch: ObjectIn[] = [];
      const flush = async () => {
        check();
        const out = await thread.recompress(batch);
        for (let i = 0; i < out.length; i++) {
          const o = out[i]!;
          const src = batch[i]!;
          if (!o.ok) {
            keep.add(pack);
            // marks the damaged copy, so the next locked reload mends its pack as a damaged read would have it
            store.hasVerified(o.hash, kindOf(src.flags));
            continue;
          }
          objects++;
          if (src.flags & F_TREE) await trees!.addStored(o.hash, o.stored ?? src.stored, o.stored ? { rawSize: src.rawSize, flags: o.flags } : src);
          else await blobs!.addStored(o.hash, o.stored ?? src.stored, { rawSize: src.rawSize, flags: o.flags });
        }
        batch = [];
      };
      const todo: IndexEntry[] = [];
      for (let i = 0; i < p.count; i++) {
        // a first snapshot's pack lists every file: looking each up in one go held the thread for ~200 ms
        if (i % 2048 === 2047) await yieldToSnapshots();
        const e = entryAt(p.idx, i);
        if (e.flags & F_DICTIONARY) continue;
        // left by a compaction that was killed after its pack was in place: already compacted
        if (!(e.flags & F_TREE) && alreadyCompacted(store, e.hash, sourceNames)) continue;
        todo.push(e);
      }
      // in pack order, a few MiB per read: one read per object was most of the time this thread spent
      todo.sort((a, b) => a.offset - b.offset);
      for (let i = 0; i < todo.length;) {
        const start = todo[i]!.offset;
        let end = start + todo[i]!.length;
        let j = i + 1;
        for (; j < todo.length && todo[j]!.offset + todo[j]!.length - start <= BATCH_BYTES; j++) end = Math.max(end, todo[j]!.offset + todo[j]!.length);
        let range: Buffer | undefined;
        try {
          range = await store.readers.read({ pack, offset: start, length: end - start, rawSize: 0, flags: 0 });
        } catch {
          keep.add(pack);
        }
        for (; range && i < j; i++) {
          const e = todo[i]!;
          batch.push({ hash: e.hash, flags: e.flags, rawSize: e.rawSize, stored: range.subarray(e.offset - start, e.offset - start + e.length), pack });
        }
        i = j;
        if (batch.length) await flush();
      }
    }
    check();
    // written and fsynced without the lock; put in place under it
    const hasBlobs = await blobs.prepare(true);
    const hasTrees = await trees.prepare(true);
    check();
    return await locked(async (s) => {
      // a source merged or collected meanwhile (by gc, or by another process's compaction) is gone already: its
      // objects are wherever that put them, and the copies here are duplicates the next gc or compaction drops
      if (hasTrees) await trees!.publish(true);
      if (hasBlobs) await blobs!.publish(true);
      let dropped = 0;
      for (const [pack] of found.sources) {
        if (keep.has(pack) || !s.table.has(pack)) continue;
        await s.dropPack(pack);
        dropped++;
      }
      const made = [blobs!.name, trees!.name].map((n) => s.table.all().find(([m]) => m === n)?.[1]);
      const bytesAfter = made.reduce((n, m) => n + (m ? m.size + indexSize(m.count) : 0), 0);
      return { packs: dropped, objects, bytesBefore: found.bytesBefore, bytesAfter };
    });
  } catch (err) {
    await blobs?.abort();
    await trees?.abort();
    throw err;
  } finally {
    await thread.close();
  }
}

/** A compaction's temp files are rewritten for as long as it runs: one untouched this long was left by a kill. */
const STALE_TEMP_MS = 60 * 60_000;

/**
 * Removes what a killed compaction left (its temp pack can be as big as the store): only under the lock, so no
 * snapshot is writing one, and only when untouched for an hour, so not a compaction running in another process.
 */
async function removeStaleTemps(packDir: string): Promise<void> {
  for (const name of await readdir(packDir)) {
    if (!name.startsWith('tmp-')) continue;
    const file = join(packDir, name);
    try {
      if (Date.now() - (await stat(file)).mtimeMs > STALE_TEMP_MS) await unlink(file);
    } catch {
      /* gone meanwhile */
    }
  }
}

const yieldToSnapshots = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A compacted pack other than those being compacted holds an intact copy of this blob. */
function alreadyCompacted(store: ObjectStore, hash: string, sources: ReadonlySet<string>): boolean {
  for (const loc of store.table.locations(hash)) {
    if (!isCompacted(loc.pack) || sources.has(loc.pack)) continue;
    try {
      if (verifyStored({ hash, ...loc }, store.readers.readSync(loc), store.dictionaryOf(loc.pack))) return true;
    } catch {
      /* unreadable: not a copy to rely on */
    }
  }
  return false;
}
