// The pack index format, in one place: a magic, an entry count, then fixed-size entries sorted by hash.
//   "ARWIDX01" · count u32 · count × (hash 32 · offset u64 · stored length u32 · raw size u32 · flags u32)
// Everything that writes or reads index entries goes through here, so the layout cannot drift between copies.

import { F_DICTIONARY } from './object-format';

export const IDX_MAGIC = Buffer.from('ARWIDX01');
export const IDX_HEADER = 12;
export const IDX_ENTRY = 52;

export interface IndexEntry {
  /** Hex sha256 of the object. */
  hash: string;
  /** Where its stored bytes start in the pack. */
  offset: number;
  /** Stored (possibly deflated) length. */
  length: number;
  /** Length once inflated. */
  rawSize: number;
  flags: number;
}

const at = (i: number) => IDX_HEADER + i * IDX_ENTRY;
/** The u64 offset at o as two u32 halves: a BigInt per entry costs more than the rest of the read. */
const offsetAt = (idx: Buffer, o: number) => idx.readUInt32BE(o + 32) * 0x1_0000_0000 + idx.readUInt32BE(o + 36);

/** Encodes entries (sorts them by hash first; the array is sorted in place). */
export function encodeIndex(entries: IndexEntry[]): Buffer {
  entries.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const idx = Buffer.alloc(IDX_HEADER + entries.length * IDX_ENTRY);
  IDX_MAGIC.copy(idx, 0);
  idx.writeUInt32BE(entries.length, 8);
  entries.forEach((e, i) => {
    const o = at(i);
    idx.write(e.hash, o, 'hex');
    idx.writeBigUInt64BE(BigInt(e.offset), o + 32);
    idx.writeUInt32BE(e.length, o + 40);
    idx.writeUInt32BE(e.rawSize, o + 44);
    idx.writeUInt32BE(e.flags, o + 48);
  });
  return idx;
}

/** The number of entries of a well-formed index, or undefined when the bytes are not one (truncated, wrong magic). */
export function indexCount(idx: Buffer): number | undefined {
  if (idx.length < IDX_HEADER || !idx.subarray(0, 8).equals(IDX_MAGIC)) return undefined;
  const count = idx.readUInt32BE(8);
  return idx.length === IDX_HEADER + count * IDX_ENTRY ? count : undefined;
}

/**
 * What a possibly damaged index still lists: the count it declares and how many whole entries its bytes hold (the
 * magic is not checked; salvage reads what it can).
 */
export function salvageableEntries(idx: Buffer): { declared: number; readable: number } {
  if (idx.length < IDX_HEADER) return { declared: 0, readable: 0 };
  const declared = idx.readUInt32BE(8);
  return { declared, readable: Math.min(declared, Math.floor((idx.length - IDX_HEADER) / IDX_ENTRY)) };
}

export function entryHash(idx: Buffer, i: number): string {
  const o = at(i);
  return idx.toString('hex', o, o + 32);
}

/** Where entry i's bytes are, without its hash: lookups already know the hash, and a hex string per call adds up. */
/** Whether entry `i` is a dictionary (F_DICTIONARY), its flags read through a DataView over the index: no object per
 *  entry, for scans of every entry. */
export function isDictionaryAt(view: DataView, i: number): boolean {
  return (view.getUint32(IDX_HEADER + i * IDX_ENTRY + 48) & F_DICTIONARY) !== 0;
}

export function entryLoc(idx: Buffer, i: number): Omit<IndexEntry, 'hash'> {
  const o = at(i);
  return { offset: offsetAt(idx, o), length: idx.readUInt32BE(o + 40), rawSize: idx.readUInt32BE(o + 44), flags: idx.readUInt32BE(o + 48) };
}

/** Every entry lies inside a pack of `size` bytes (checked on every index a process opens, so no hashes decoded).
 *  Through a DataView: a fresh process runs this loop over 50,000 entries before it is optimised, and Buffer's
 *  readUInt32BE (a JavaScript function with its own checks) took it from ~4 to ~15 ms there. */
export function entriesFitIn(idx: Buffer, count: number, size: number): boolean {
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  for (let i = 0; i < count; i++) {
    const o = at(i);
    if (view.getUint32(o + 32) * 0x1_0000_0000 + view.getUint32(o + 36) + view.getUint32(o + 40) > size) return false;
  }
  return true;
}

export function entryAt(idx: Buffer, i: number): IndexEntry {
  const o = at(i);
  return {
    hash: idx.toString('hex', o, o + 32),
    offset: offsetAt(idx, o),
    length: idx.readUInt32BE(o + 40),
    rawSize: idx.readUInt32BE(o + 44),
    flags: idx.readUInt32BE(o + 48),
  };
}

/** Binary search for `key` (32 raw bytes; `head` its first four as a u32) among `count` sorted entries. */
export function findEntry(idx: Buffer, count: number, key: Buffer, head: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const o = at(mid);
    // the first four bytes decide almost every step of the search; Buffer.compare only breaks their ties
    const v = idx.readUInt32BE(o);
    const c = v !== head ? (v < head ? -1 : 1) : idx.compare(key, 0, 32, o, o + 32);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
