// Which packs the store has and where each object is in them: the in-memory side of the pack indexes, no I/O.
import { F_DICTIONARY, F_TREE, isObjectHash, StoreCorruptError } from './object-format';
import { entriesFitIn, entryAt, entryHash, entryLoc, findEntry, IDX_ENTRY, IDX_HEADER, isDictionaryAt, type IndexEntry } from './pack-index';
import { DiskPackIndex } from './disk-pack-index';

/** Where an object's stored bytes are. */
export interface Loc {
  pack: string;
  offset: number;
  length: number;
  rawSize: number;
  flags: number;
}

export interface PackIndex {
  /** Index entries sorted by hash (binary-searched; no per-object allocation for packs nobody reads). */
  idx: Buffer;
  count: number;
  size: number;
}

/** Bytes of the index of a pack of `count` objects. */
export const indexSize = (count: number): number => IDX_HEADER + count * IDX_ENTRY;

/** A pack as the table holds it: its index in memory (`idx`), or a big pack's on disk (`disk`) when its file is known. */
interface Held {
  count: number;
  size: number;
  idx?: Buffer;
  disk?: DiskPackIndex;
}

/** Packs up to this many objects are also indexed in one shared map: after many small snapshots a lookup would
 *  otherwise binary-search a hundred tiny indexes (a restore looks up every file of every folder it touches). */
export const SMALL_PACK = 4096;

/**
 * A small pack's objects go into the shared map once it has been binary-searched this many times per object it holds
 * (or at once up to SEARCH_BEFORE_MAP objects): a map costs about as much per object as a couple of searches, and a
 * fresh process that reads a few hundred objects (the CLI's `history` on 20 packs of 3,400 objects) spent most of its
 * time building maps it hardly used.
 */
const SEARCHES_PER_OBJECT = 2;
const MAP_AT_ONCE = 64;

/**
 * Compacted packs (store-compaction.ts) end their names with this: versions without compaction do not take such a
 * name for a pack, so they leave these alone instead of reading objects they cannot inflate as damaged ones.
 */
export const COMPACTED_SUFFIX = '-c';
export const isCompacted = (pack: string): boolean => pack.endsWith(COMPACTED_SUFFIX);

/** Every entry of the index lies inside a pack of `size` bytes. */
export const fitsIn = entriesFitIn;

/** The 32 bytes of a hash, or undefined when it is not 64 lowercase hex digits (as isObjectHash, without a regex). */
function hashKey(hash: string): Buffer | undefined {
  if (hash.length !== 64) return undefined;
  const key = Buffer.from(hash, 'hex');
  return key.length === 32 && key.toString('hex') === hash ? key : undefined;
}

/** The dictionary entries of an index (see F_DICTIONARY), flags read through a DataView: no object per entry. */
function dictionaryEntries(pack: string, idx: Buffer, count: number, size: number): (Loc & { hash: string })[] {
  const numbers: number[] = [];
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  for (let i = 0; i < count; i++) if (isDictionaryAt(view, i)) numbers.push(i);
  return dictionariesAt(pack, idx, numbers, size);
}

/** Entries `numbers` of an index, as dictionaries: those inside a pack of `size` bytes. */
function dictionariesAt(pack: string, idx: Buffer, numbers: readonly number[], size: number): (Loc & { hash: string })[] {
  const out: (Loc & { hash: string })[] = [];
  for (const i of numbers) {
    const loc = entryLoc(idx, i);
    if (loc.offset + loc.length <= size) out.push({ pack, hash: entryHash(idx, i), ...loc });
  }
  return out;
}

/** A big pack's index held on disk, or undefined when its file cannot be opened as the one loaded (kept in memory). */
function onDisk(file: string, p: PackIndex): Held | undefined {
  try {
    return { count: p.count, size: p.size, disk: new DiskPackIndex(file, p.idx, p.count) };
  } catch {
    return undefined;
  }
}

export class PackTable {
  private readonly packs = new Map<string, Held>();
  /** Hash (hex) → entry number, for the objects of small packs, per pack; see SMALL_PACK. */
  private readonly smallPacks = new Map<string, Map<string, number>>();
  private readonly inSmallPacks = new Map<string, string>();
  /** Small packs not in the shared map yet (see SEARCHES_PER_OBJECT), in the order they were added, with how often
   *  a lookup binary-searched each. */
  private readonly unmapped = new Map<string, { searches: number }>();
  private readonly dicts = new Map<string, (Loc & { hash: string })[]>();
  private readonly blobs = new Map<string, number>();

  has(pack: string): boolean {
    return this.packs.has(pack);
  }

  names(): string[] {
    return [...this.packs.keys()];
  }

  /** The packs small enough to be merged (see ObjectStore.consolidateSmallPacks). */
  small(): [string, PackIndex][] {
    return [...this.packs].filter(([name, p]) => p.count <= SMALL_PACK && !isCompacted(name)).map(([name, p]) => [name, this.view(p)]);
  }

  /** The index of `pack` as loaded (undefined when it is not, or when it was left on disk and cannot be read now). */
  indexOf(pack: string): Buffer | undefined {
    const p = this.packs.get(pack);
    try {
      return p && this.bytesOf(p);
    } catch {
      return undefined;
    }
  }

  /** Every pack with what its index says (store-compaction.ts picks its sources from these). An index left on disk
   *  is read from it the first time `idx` is asked of its entry, and kept by that entry only. */
  all(): [string, PackIndex][] {
    return [...this.packs].map(([name, p]) => [name, this.view(p)]);
  }

  private view(p: Held): PackIndex {
    const { count, size, idx, disk } = p;
    if (idx) return { idx, count, size };
    let read: Buffer | undefined;
    return {
      count,
      size,
      get idx(): Buffer {
        return (read ??= disk!.bytes());
      },
    };
  }

  /** The whole index of a held pack (read from its file when it was left there). */
  private bytesOf(p: Held): Buffer {
    return p.idx ?? p.disk!.bytes();
  }

  /** Entry number of `key` in a held pack (-1: not there). */
  private search(p: Held, key: Buffer, head: number): number {
    return p.idx ? findEntry(p.idx, p.count, key, head) : p.disk!.find(key, head);
  }

  /** Where entry i of a held pack is, without its hash. */
  private entryLoc(p: Held, i: number): Omit<IndexEntry, 'hash'> {
    return p.idx ? entryLoc(p.idx, i) : p.disk!.loc(i);
  }

  /** Stored bytes of the blobs of a pack (its trees and dictionary left out); counted once per pack. */
  blobBytes(pack: string, p: PackIndex): number {
    let n = this.blobs.get(pack);
    if (n === undefined) {
      n = 0;
      const idx = p.idx;
      for (let i = 0; i < p.count; i++) {
        const loc = entryLoc(idx, i);
        if (!(loc.flags & (F_TREE | F_DICTIONARY))) n += loc.length;
      }
      this.blobs.set(pack, n);
    }
    return n;
  }

  /** The dictionary entries of a pack (see F_DICTIONARY): its index is scanned once, on the first read that needs it. */
  dictionaries(pack: string): (Loc & { hash: string })[] {
    const cached = this.dicts.get(pack);
    if (cached) return cached;
    const p = this.packs.get(pack);
    if (!p) return [];
    const out = dictionaryEntries(pack, this.bytesOf(p), p.count, p.size);
    this.dicts.set(pack, out);
    return out;
  }

  /** Bytes of the packs and indexes loaded. */
  get knownSize(): number {
    let total = 0;
    for (const p of this.packs.values()) total += p.size + indexSize(p.count);
    return total;
  }

  /** Bytes of pack indexes held in memory (a big pack's on disk counts what it keeps of it). */
  get heldIndexBytes(): number {
    let total = 0;
    for (const p of this.packs.values()) total += p.idx?.length ?? p.disk!.heldBytes;
    return total;
  }

  /** How many small packs there are, counting no further than `upTo`. */
  smallCount(upTo: number): number {
    let n = 0;
    for (const [name, p] of this.packs) if (p.count <= SMALL_PACK && !isCompacted(name) && ++n >= upTo) break;
    return n;
  }

  get objectCount(): number {
    let n = 0;
    for (const p of this.packs.values()) n += p.count;
    return n;
  }

  /**
   * `file`: where the index is on disk, as `p.idx` holds it (checked: indexCount, fitsIn). A big pack's index then
   * stays there (DiskPackIndex): a long-lived process held ~10 MB for the compacted pack of 200,000 files.
   */
  add(pack: string, p: PackIndex, file?: string): void {
    this.packs.get(pack)?.disk?.close();
    if (p.count > SMALL_PACK) {
      const held = file ? onDisk(file, p) : undefined;
      this.packs.set(pack, held ?? p);
      // found now, from the bytes at hand (DiskPackIndex's pass over them): the first read of a compacted pack needs
      // them, and would read the index again
      if (held) this.dicts.set(pack, dictionariesAt(pack, p.idx, held.disk!.dictionaryEntries, p.size));
      return;
    }
    this.packs.set(pack, p);
    if (p.count <= MAP_AT_ONCE) this.mapSmallPack(pack, p);
    else this.unmapped.set(pack, { searches: 0 });
  }

  private mapSmallPack(pack: string, p: Held): void {
    this.unmapped.delete(pack);
    const entries = new Map<string, number>();
    const idx = this.bytesOf(p);
    for (let i = 0; i < p.count; i++) {
      const hash = entryHash(idx, i);
      entries.set(hash, i);
      if (!this.inSmallPacks.has(hash)) this.inSmallPacks.set(hash, pack);
    }
    this.smallPacks.set(pack, entries);
  }

  /** Entry number of `hash` in a small pack not in the shared map (-1: not there); maps the pack once it is searched
   *  often enough. */
  private searchUnmapped(pack: string, u: { searches: number }, key: Buffer, head: number): number {
    const p = this.packs.get(pack)!;
    const i = this.search(p, key, head);
    if (++u.searches >= p.count * SEARCHES_PER_OBJECT) this.mapSmallPack(pack, p);
    return i;
  }

  remove(pack: string): void {
    this.unmapped.delete(pack);
    this.packs.get(pack)?.disk?.close();
    this.packs.delete(pack);
    this.dicts.delete(pack);
    this.blobs.delete(pack);
    const entries = this.smallPacks.get(pack);
    if (!entries) return;
    this.smallPacks.delete(pack);
    for (const hash of entries.keys()) {
      if (this.inSmallPacks.get(hash) !== pack) continue;
      this.inSmallPacks.delete(hash);
      for (const [other, e] of this.smallPacks) {
        if (e.has(hash)) {
          this.inSmallPacks.set(hash, other);
          break;
        }
      }
    }
  }

  /** Gives back the whole index files read for a burst of hits (DiskPackIndex): the operation that made them is over. */
  endBursts(): void {
    for (const p of this.packs.values()) p.disk?.endBurst();
  }

  /** Closes the index files held open (the store closes its handles). */
  closeFiles(): void {
    for (const p of this.packs.values()) p.disk?.close();
  }

  locAt(pack: string, p: PackIndex | Held, i: number): Loc {
    const { offset, length, rawSize, flags } = this.entryLoc(p, i);
    if (offset + length > p.size) throw new StoreCorruptError(`pack index ${pack}.idx points past the end of its pack`);
    return { pack, offset, length, rawSize, flags };
  }

  /** Every place the store keeps `hash` (two writers that did not see each other's packs may both store it). */
  locations(hash: string): Loc[] {
    const out: Loc[] = [];
    if (!isObjectHash(hash)) return out;
    let key: Buffer | undefined;
    const head = parseInt(hash.slice(0, 8), 16);
    for (const [pack, p] of this.packs) {
      let i: number | undefined;
      if (p.count <= SMALL_PACK && !this.unmapped.has(pack)) i = this.smallPacks.get(pack)?.get(hash);
      else {
        key ??= Buffer.from(hash, 'hex');
        i = this.search(p, key, head);
      }
      if (i !== undefined && i >= 0) {
        const e = this.entryLoc(p, i);
        if (e.offset + e.length <= p.size) out.push({ pack, offset: e.offset, length: e.length, rawSize: e.rawSize, flags: e.flags });
      }
    }
    return out;
  }

  /**
   * The first place `hash` is kept; throws StoreCorruptError when that index points past its pack. Called for every
   * file of a snapshot: no regular expression here (a string that is not a hash finds nothing in the maps, and the
   * binary search gets no key).
   */
  find(hash: string): Loc | undefined {
    const small = this.inSmallPacks.get(hash);
    if (small !== undefined) {
      const p = this.packs.get(small);
      const i = this.smallPacks.get(small)?.get(hash);
      if (p && i !== undefined) return this.locAt(small, p, i);
    }
    let key: Buffer | undefined;
    let head = 0;
    for (const [pack, u] of this.unmapped) {
      if (!key) {
        key = hashKey(hash);
        if (!key) return undefined;
        head = key.readUInt32BE(0);
      }
      const i = this.searchUnmapped(pack, u, key, head);
      if (i >= 0) return this.locAt(pack, this.packs.get(pack)!, i);
    }
    for (const [pack, p] of this.packs) {
      if (p.count <= SMALL_PACK) continue;
      if (!key) {
        key = hashKey(hash);
        if (!key) return undefined;
        head = key.readUInt32BE(0);
      }
      const i = this.search(p, key, head);
      if (i >= 0) return this.locAt(pack, p, i);
    }
    return undefined;
  }

  /**
   * Whether `hash` is kept in any pack: find() without building its location (a snapshot asks this of every file in
   * each folder it writes again, several hundred times per prompt). Every index was checked to fit its pack when it
   * was loaded (fitsIn) or written by this process, so no bounds are checked here.
   */
  contains(hash: string): boolean {
    const small = this.inSmallPacks.get(hash);
    if (small !== undefined && this.packs.has(small) && this.smallPacks.get(small)?.has(hash)) return true;
    let key: Buffer | undefined;
    let head = 0;
    for (const [pack, u] of this.unmapped) {
      if (!key) {
        key = hashKey(hash);
        if (!key) return false;
        head = key.readUInt32BE(0);
      }
      if (this.searchUnmapped(pack, u, key, head) >= 0) return true;
    }
    for (const p of this.packs.values()) {
      if (p.count <= SMALL_PACK) continue;
      if (!key) {
        key = hashKey(hash);
        if (!key) return false;
        head = key.readUInt32BE(0);
      }
      if (this.search(p, key, head) >= 0) return true;
    }
    return false;
  }

  /** Every object of every pack (gc). */
  *entries(): Generator<{ hash: string; loc: Loc }> {
    for (const [pack, p] of this.packs) {
      const idx = this.bytesOf(p);
      for (let i = 0; i < p.count; i++) {
        const { hash, ...loc } = entryAt(idx, i);
        yield { hash, loc: { pack, ...loc } };
      }
    }
  }
}
