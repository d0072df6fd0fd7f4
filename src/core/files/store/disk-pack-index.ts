// A big pack's index left on disk: only the first four bytes of each hash stay in memory (4 of an entry's 52 bytes),
// enough to binary-search for a hash and to answer almost every miss; a hit reads its one entry from the index file.
// A long-lived checkpoint service kept the whole index of its compacted pack, ~10 MB at 200,000 files (issue 26).
// The file is read through a descriptor held open: an index is written once and never changed in place (a repair
// writes a new file and renames it over, and the table forgets the pack first), so the open file is the one checked
// when it was loaded.
//
// A burst of hits (a rewind's pre-restore snapshot looks up every unchanged file of the ~600 folders it rewrites:
// 2,000-30,000 hits at 50,000 files, a read system call each, ~90 ms of a 1,000-file rewind's main thread after a
// compaction) reads the whole file once and serves the rest of the burst from memory, given back when the operation
// ends (ObjectStore.endIndexBursts), else a second after the last hit: a quiet service holds only the four bytes per
// entry.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StoreCorruptError } from './object-format';
import { entryLoc, IDX_ENTRY, IDX_HEADER, isDictionaryAt, type IndexEntry } from './pack-index';

/** Hits within WINDOW_MS after which the whole index is read: one read of 2.6 MB (50,000 entries) costs about what
 *  a few hundred reads of one entry cost, and at 200,000 entries (10 MB) a warm snapshot's few hundred hits stay below. */
const BURST_READS = 1024;
/** The window of a burst, and how long after its last hit the whole index is kept. */
const WINDOW_MS = 1000;

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
  /** Times the whole file was read for a burst (tests). */
  wholeReads = 0;
  /** The whole file, while a burst of hits goes on (see above). */
  private whole: Buffer | undefined;
  /** When the current window of hits started, and the entries read from the file in it. */
  private windowStart = 0;
  private windowReads = 0;
  private lastUse = 0;
  private dropTimer: NodeJS.Timeout | undefined;

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
    return this.heads.byteLength + (this.whole?.length ?? 0);
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
    const at = IDX_HEADER + i * IDX_ENTRY;
    const whole = this.whole ?? this.burst();
    if (whole) {
      whole.copy(this.entry, IDX_HEADER, at, at + IDX_ENTRY);
      this.lastUse = Date.now();
    } else {
      this.readInto(this.entry, IDX_HEADER, IDX_ENTRY, at);
      this.reads++;
    }
    this.held = i;
    return this.entry;
  }

  /** The whole file once this many hits came within WINDOW_MS; else undefined (the hit reads its entry alone). */
  private burst(): Buffer | undefined {
    const now = Date.now();
    if (now - this.windowStart > WINDOW_MS) {
      this.windowStart = now;
      this.windowReads = 0;
    }
    if (++this.windowReads <= BURST_READS) return undefined;
    this.whole = this.bytes();
    this.wholeReads++;
    this.lastUse = now;
    this.dropTimer = setInterval(() => {
      if (Date.now() - this.lastUse >= WINDOW_MS) this.endBurst();
    }, WINDOW_MS);
    this.dropTimer.unref();
    return this.whole;
  }

  /** The operation the hits came from is over (or a second passed since the last hit, or the index is closed): the
   *  whole file is given back. */
  endBurst(): void {
    if (this.dropTimer) clearInterval(this.dropTimer);
    this.dropTimer = undefined;
    this.whole = undefined;
    this.windowReads = 0;
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
    this.endBurst();
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
