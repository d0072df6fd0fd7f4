// A big pack's index left on disk: only the first four bytes of each hash stay in memory (4 of an entry's 52 bytes),
// enough to binary-search for a hash and to answer almost every miss; a hit reads its one entry from the index file.
// A long-lived checkpoint service kept the whole index of its compacted pack, ~10 MB at 200,000 files (issue 26).
// The file is read through a descriptor held open: an index is written once and never changed in place (a repair
// writes a new file and renames it over, and the table forgets the pack first), so the open file is the one checked
// when it was loaded.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StoreCorruptError } from './object-format';
import { entryLoc, IDX_ENTRY, IDX_HEADER, isDictionaryAt, type IndexEntry } from './pack-index';

export class DiskPackIndex {
  /** The first four bytes of each entry's hash, big-endian, in the index's (sorted) order. */
  private readonly heads: Uint32Array;
  /** Open from the start; opened again (as the store's pack readers do) after the store closed its handles. */
  private fd: number | undefined;
  /** One entry read from the file, at the place entryLoc looks for entry 0. */
  private readonly entry = Buffer.alloc(IDX_HEADER + IDX_ENTRY);
  /** Which entry `entry` holds (-1: none): a hit is found, then located, and a second read of the same 52 bytes was
   *  half of a restore's index reads (the file never changes in place, see above). */
  private held = -1;
  /** Entries read from the file so far (tests). */
  reads = 0;

  /** `idx`: the file's bytes, already checked (indexCount, fitsIn); not kept. Opens the file at once (throws when it
   *  cannot, or when it is not `idx`'s size): a pack dropped by another process later stays readable through it. */
  constructor(
    private readonly file: string,
    idx: Buffer,
    readonly count: number,
  ) {
    const fd = openSync(file, 'r');
    if (fstatSync(fd).size !== idx.length) {
      closeSync(fd);
      throw new Error(`pack index ${file} is not the one loaded`);
    }
    this.fd = fd;
    this.heads = new Uint32Array(count);
    const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
    const dictionaries: number[] = [];
    // the dictionary entries are found in the same pass: a fresh process opens the compacted pack's index before every
    // snapshot, and a second cold loop over its 50,000 entries cost a few milliseconds of each
    for (let i = 0; i < count; i++) {
      const o = IDX_HEADER + i * IDX_ENTRY;
      this.heads[i] = view.getUint32(o);
      if (isDictionaryAt(view, i)) dictionaries.push(i);
    }
    this.dictionaryEntries = dictionaries;
  }

  /** The entry numbers of the pack's dictionaries (F_DICTIONARY), in the index's order. */
  readonly dictionaryEntries: readonly number[];

  /** Bytes this keeps in memory. */
  get heldBytes(): number {
    return this.heads.byteLength;
  }

  /** Reads `length` bytes at `position` of the index file into `into` at `at`. */
  private readInto(into: Buffer, at: number, length: number, position: number): void {
    let done = 0;
    try {
      this.fd ??= openSync(this.file, 'r');
      while (done < length) {
        const n = readSync(this.fd, into, at + done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
    } catch (err) {
      throw new StoreCorruptError(`pack index ${this.file} cannot be read: ${(err as Error).message}`);
    }
    if (done < length) throw new StoreCorruptError(`pack index ${this.file} is shorter than when it was loaded`);
  }

  /** Entry i of the file, in `this.entry` (overwritten by the next read). */
  private read(i: number): Buffer {
    if (this.held === i) return this.entry;
    this.held = -1; // a failed read leaves no entry held
    this.readInto(this.entry, IDX_HEADER, IDX_ENTRY, IDX_HEADER + i * IDX_ENTRY);
    this.reads++;
    this.held = i;
    return this.entry;
  }

  /** Entry number of `key` (32 raw bytes; `head` its first four as a u32), -1 when the index does not list it. */
  find(key: Buffer, head: number): number {
    const heads = this.heads;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (heads[mid]! < head) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.count && heads[i] === head; i++) {
      const e = this.read(i);
      if (e.readUInt32BE(IDX_HEADER) !== head) throw new StoreCorruptError(`pack index ${this.file} changed since it was loaded`);
      if (e.compare(key, 0, 32, IDX_HEADER, IDX_HEADER + 32) === 0) return i;
    }
    return -1;
  }

  /** Where entry i's bytes are, without its hash. */
  loc(i: number): Omit<IndexEntry, 'hash'> {
    return entryLoc(this.read(i), 0);
  }

  /** The whole index, read again from the file it was loaded from (gc, compaction and salvage walk every entry;
   *  nothing keeps it). */
  bytes(): Buffer {
    const idx = Buffer.allocUnsafe(IDX_HEADER + this.count * IDX_ENTRY);
    this.readInto(idx, 0, idx.length, 0);
    return idx;
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
    this.held = -1;
  }
}
