// The last scan's stat data and hashes, persisted so a fresh process (the CLI) checks the workspace with one lstat
// per known path and re-reads only what changed, like git's index. Folders are expanded into objects only when
// something below them is looked at; untouched folders are copied from the old index byte for byte when it is
// written again. Only an optimisation: anything odd in the file and we start from nothing.
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { isSafeName } from '../safe-paths';
import { writeFileAtomic } from '../atomic-write';
import type { DirNode, FileNodeState, Node, TreeTotals } from '../store/tree';

const MAGIC = 0x49575241; // 'ARWI' little-endian
// 3: ctime and device per file and per listed folder (an edit that kept size and mtime went unseen)
const VERSION = 3;
const HEAD = 20; // magic, version, header bytes, name bytes, file count
/** Per file in the number section: size, mtimeMs, ino, meta (mode | SYMLINK | RACY), ctimeMs, dev. */
export const NUMS = 6;
const SYMLINK = 0x10000;
const RACY = 0x20000;
const HASH_BYTES = 32;
const ID = /^[0-9a-f]{32}$/;
export const newIndexId = (): string => randomBytes(16).toString('hex');
/** A CRC-32 of everything before it ends the file: a flipped byte in a name or a number must not pass for data. */
const CHECK_BYTES = 4;

/** One folder, in depth-first pre-order; its files follow those of the folders before it. */
export interface DirRecord {
  parent: number;
  name: string;
  mode: number;
  hash?: string;
  rulesKey?: string;
  listedMtimeMs?: number;
  listedCtimeMs?: number;
  dirIno?: number;
  dirDev?: number;
  ignoredHere?: number;
  /** Names listed but not kept (skipped or vanished): looked at again by every check. */
  extra: string[];
  fileCount: number;
  /** Bytes of this folder's file names in the names section (each name ends with a NUL). */
  nameBytes: number;
  /** Index after the last folder of this subtree. */
  end: number;
  totals: TreeTotals;
}

type Packed = [
  number,
  string,
  number,
  string | null,
  string | null,
  number | null,
  number | null,
  number,
  string[],
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
];

const pack = (r: DirRecord): Packed => [
  r.parent,
  r.name,
  r.mode,
  r.hash ?? null,
  r.rulesKey ?? null,
  r.listedMtimeMs ?? null,
  r.dirIno ?? null,
  r.ignoredHere ?? 0,
  r.extra,
  r.fileCount,
  r.end,
  r.totals.files,
  r.totals.bytes,
  r.totals.ignored,
  r.nameBytes,
  r.listedCtimeMs ?? null,
  r.dirDev ?? null,
];

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const opt = <T>(x: T | null): T | undefined => (x === null ? undefined : x);

function unpack(p: unknown, i: number, count: number): DirRecord {
  if (!Array.isArray(p) || p.length !== 17) throw new Error('bad folder record');
  const [parent, name, mode, hash, rulesKey, listed, ino, ignored, extra, fileCount, end, files, bytes, ign, nameBytes, listedCtime, dev] = p as Packed;
  const ok =
    (i === 0 ? parent === -1 && name === '' : isNum(parent) && parent >= 0 && parent < i && typeof name === 'string' && isSafeName(name)) &&
    isNum(mode) &&
    (hash === null || (typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash))) &&
    (rulesKey === null || typeof rulesKey === 'string') &&
    (listed === null || isNum(listed)) &&
    (ino === null || isNum(ino)) &&
    (listedCtime === null || isNum(listedCtime)) &&
    (dev === null || isNum(dev)) &&
    isNum(ignored) &&
    Array.isArray(extra) &&
    extra.every((n) => typeof n === 'string' && isSafeName(n)) &&
    isNum(fileCount) &&
    fileCount >= 0 &&
    isNum(end) &&
    end > i &&
    end <= count &&
    isNum(files) &&
    isNum(bytes) &&
    isNum(ign) &&
    isNum(nameBytes) &&
    nameBytes >= fileCount;
  if (!ok) throw new Error('bad folder record');
  return {
    parent,
    name,
    mode,
    hash: opt(hash),
    rulesKey: opt(rulesKey),
    listedMtimeMs: opt(listed),
    listedCtimeMs: opt(listedCtime),
    dirIno: opt(ino),
    dirDev: opt(dev),
    ignoredHere: ignored,
    extra,
    fileCount,
    nameBytes,
    end,
    totals: { files, bytes, ignored: ign },
  };
}

export class StatIndex {
  /** Workspace-relative path of each folder ('' for the root). */
  readonly dirRel: string[];
  /** First file of each folder (and the total at the end). */
  readonly fileStart: Uint32Array;
  /** Where each folder's names begin in the names section (and its length at the end): untouched folders are
   *  written again by copying these bytes. */
  readonly nameStart: Uint32Array;

  /** Every file's name, as parse split them, until the first allNames() takes them: a service keeps its index for
   *  hours, and 200,000 names as strings were ~7 MB of its heap that only the first check reads in a row. */
  #names: string[] | undefined;
  /** The names, numbers and hashes sections: views of the bytes parsed, or where they are in the file (leaveOnDisk). */
  #body: Body;

  private constructor(
    readonly dirs: DirRecord[],
    names: string[] | undefined,
    body: InMemory,
    /** Random, new with every write of different content: what a patch (stat-index-patch.ts) names as its base.
     *  '' for an index written before patches existed: no patch applies to it. */
    readonly id: string,
  ) {
    this.#names = names;
    this.#body = body;
    this.dirRel = new Array(dirs.length);
    this.fileStart = new Uint32Array(dirs.length + 1);
    this.nameStart = new Uint32Array(dirs.length + 1);
    for (let i = 0; i < dirs.length; i++) {
      const d = dirs[i]!;
      this.dirRel[i] = i === 0 ? '' : d.parent === 0 ? d.name : `${this.dirRel[d.parent]}/${d.name}`;
      this.fileStart[i + 1] = this.fileStart[i]! + d.fileCount;
      this.nameStart[i + 1] = this.nameStart[i]! + d.nameBytes;
    }
  }

  /** `checkNext`: the next thing done with it is a check of every path (a loaded index): it keeps the names parse
   *  split for that check to take (allNames), instead of splitting them again. */
  static parse(buf: Buffer, key: string, checkNext = true): StatIndex {
    if (buf.length < HEAD + CHECK_BYTES || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== VERSION) throw new Error('not a stat index');
    if (crc32(buf.subarray(0, buf.length - CHECK_BYTES)) !== buf.readUInt32LE(buf.length - CHECK_BYTES)) throw new Error('stat index is damaged');
    const headerBytes = buf.readUInt32LE(8);
    const nameBytes = buf.readUInt32LE(12);
    const fileCount = buf.readUInt32LE(16);
    const numsAt = align8(HEAD + headerBytes + nameBytes);
    const hashesAt = numsAt + fileCount * NUMS * 8;
    if (buf.length !== hashesAt + fileCount * HASH_BYTES + CHECK_BYTES) throw new Error('stat index has the wrong size');
    const header = JSON.parse(buf.toString('utf8', HEAD, HEAD + headerBytes)) as { key: unknown; id?: unknown; dirs: unknown };
    if (header.key !== key || !Array.isArray(header.dirs) || header.dirs.length === 0) throw new Error('stat index of other settings');
    const id = typeof header.id === 'string' && ID.test(header.id) ? header.id : '';
    const dirs = header.dirs.map((p, i, all) => unpack(p, i, all.length));
    const nameSection = buf.subarray(HEAD + headerBytes, HEAD + headerBytes + nameBytes);
    const nameText = nameSection.toString('utf8');
    if (!safeNameList(nameText)) throw new Error('bad file names');
    const names = splitNames(nameText);
    if (names.length !== fileCount || names.some((n) => n.length > 255)) throw new Error('bad file names');
    if (dirs.reduce((n, d) => n + d.nameBytes, 0) !== nameBytes) throw new Error('bad name lengths');
    if (dirs.reduce((n, d) => n + d.fileCount, 0) !== fileCount) throw new Error('bad file counts');
    let nums: Float64Array;
    if ((buf.byteOffset + numsAt) % 8 === 0) nums = new Float64Array(buf.buffer, buf.byteOffset + numsAt, fileCount * NUMS);
    else {
      // copied so the numbers are 8-byte aligned whatever the buffer pool gave us
      nums = new Float64Array(fileCount * NUMS);
      new Uint8Array(nums.buffer).set(buf.subarray(numsAt, hashesAt));
    }
    const body = new InMemory(buf, nameSection, nums, buf.subarray(hashesAt, hashesAt + fileCount * HASH_BYTES), HEAD + headerBytes, numsAt, hashesAt);
    const index = new StatIndex(dirs, checkNext ? names : undefined, body, id);
    for (let i = 0; i < dirs.length; i++) {
      // each folder's names must end exactly where its byte count says (a NUL before the next folder's)
      const [a, b] = [index.nameStart[i]!, index.nameStart[i + 1]!];
      if (b > a ? nameSection[b - 1] !== 0 : dirs[i]!.fileCount !== 0) throw new Error('bad name lengths');
    }
    // subtrees must nest, so that walking a folder's range finds exactly its sub-folders
    let reached = 1;
    for (let i = 0; i < dirs.length; i++) {
      const d = dirs[i]!;
      if (i > 0 && (i >= dirs[d.parent]!.end || d.end > dirs[d.parent]!.end)) throw new Error('bad folder nesting');
      // subdirs(i), without a generator per folder: this runs cold in every fresh process
      for (let c = i + 1; c < d.end; c = dirs[c]!.end) {
        if (dirs[c]!.parent !== i) throw new Error('bad folder nesting');
        reached++;
      }
    }
    if (reached !== dirs.length) throw new Error('bad folder nesting');
    return index;
  }

  get fileCount(): number {
    return this.fileStart[this.dirs.length]!;
  }

  /** Every file's name, by file number (the files of folder d are fileStart[d] to fileStart[d + 1]). Not kept:
   *  decoded again after the first call, so hold on to the array only while a check needs it. */
  allNames(): string[] {
    const names = this.#names ?? splitNames(this.#body.names(0, this.nameStart[this.dirs.length]!).toString('utf8'));
    this.#names = undefined;
    return names;
  }

  /** The names of folder d's files, decoded from the names section. */
  namesOf(d: number): string[] {
    const [a, b] = [this.nameStart[d]!, this.nameStart[d + 1]!];
    return b > a
      ? this.#body
          .names(a, b - 1)
          .toString('utf8')
          .split('\0')
      : [];
  }

  /** The names section of folders first to end - 1 (a subtree), its files' numbers and hashes: what a new index copies
   *  of a folder nothing below changed in. */
  sectionsOf(first: number, end: number): { names: Buffer; nums: Float64Array; hashes: Buffer } {
    const [f0, f1] = [this.fileStart[first]!, this.fileStart[end]!];
    return { names: this.#body.names(this.nameStart[first]!, this.nameStart[end]!), nums: this.#body.nums(f0, f1), hashes: this.#body.hashes(f0, f1) };
  }

  /**
   * Leaves the names, numbers and hashes (~90 bytes a file) in the index's file, reading a folder's from it when the
   * folder is expanded or copied: a long-lived checkpointer's tree (ChangeTracker.compactModel) held 18 MB at 200,000
   * files for what a warm snapshot reads of a few folders. The file is opened now and held: it must be the one these
   * bytes were parsed from (same size, id and check value; a save replaces the file by a rename, never in place, so the
   * open one stays as it is). False, with everything kept in memory, when it is not, or cannot be opened.
   */
  leaveOnDisk(file: string): boolean {
    const mem = this.#body;
    if (!(mem instanceof InMemory)) return true;
    const disk = OnDisk.open(file, mem);
    if (!disk) return false;
    this.#body = disk;
    this.#names = undefined;
    closeWhenCollected.register(this, disk.fd);
    return true;
  }

  /** Whether the per-file sections are in the file (leaveOnDisk), not in memory. */
  get onDisk(): boolean {
    return this.#body instanceof OnDisk;
  }

  root(): IndexedDir {
    return new IndexedDir(this, 0);
  }

  /** Whether file `f` has the stat data of an unchanged file (and was not racy when it was hashed): what git
   *  compares (size, mtime, ctime, inode, device, mode), `st.mode` with its type bits. */
  fileMatches(f: number, kind: 'file' | 'symlink' | undefined, st: FileStat): boolean {
    const mem = this.#body;
    const nums = mem instanceof InMemory ? mem.all : mem.nums(f, f + 1);
    const o = mem instanceof InMemory ? f * NUMS : 0;
    const meta = nums[o + 3]!;
    return (
      (meta & RACY) === 0 &&
      kind === ((meta & SYMLINK) !== 0 ? 'symlink' : 'file') &&
      (meta & 0o7777) === (st.mode & 0o7777) &&
      nums[o]! === st.size &&
      nums[o + 1]! === st.mtimeMs &&
      nums[o + 2]! === st.ino &&
      nums[o + 4]! === st.ctimeMs &&
      nums[o + 5]! === st.dev
    );
  }

  /** File f's numbers as the index stores them (size, mtimeMs, ino, meta, ctimeMs, dev) and its hash, both views into
   *  the index (a patch writes through them): only while the index is in memory. */
  fileEntry(f: number): { nums: Float64Array; hash: Buffer } {
    const mem = this.#body;
    if (!(mem instanceof InMemory)) throw new Error('the stat index was left on disk');
    return { nums: mem.nums(f, f + 1), hash: mem.hashes(f, f + 1) };
  }

  /** File `f`'s node, from its folder's numbers and hashes (`nums` and `hashes` from file `f0` on). */
  private fileNode(f: number, f0: number, nums: Float64Array, hashes: Buffer): FileNodeState {
    const o = (f - f0) * NUMS;
    const meta = nums[o + 3]!;
    const node: FileNodeState = {
      kind: (meta & SYMLINK) !== 0 ? 'symlink' : 'file',
      mode: meta & 0o7777,
      size: nums[o]!,
      mtimeMs: nums[o + 1]!,
      ctimeMs: nums[o + 4]!,
      ino: nums[o + 2]!,
      dev: nums[o + 5]!,
      hash: hashes.toString('hex', (f - f0) * HASH_BYTES, (f - f0 + 1) * HASH_BYTES),
    };
    if ((meta & RACY) !== 0) node.racy = true;
    this.made.set(node, { f, hash: node.hash });
    return node;
  }

  /** The file nodes fileNode made, with the hash they were made with: a patch compares a node that still has it
   *  (and the index's numbers) without decoding its hash again. */
  private readonly made = new WeakMap<FileNodeState, { f: number; hash: string }>();

  /** Whether `node` is a node fileNode made, its hash unchanged. */
  madeUnchanged(node: { hash: string }): boolean {
    return this.made.get(node as FileNodeState)?.hash === node.hash;
  }

  /** Whether `node` is file f's node as fileNode made it, its hash unchanged (its numbers are not looked at). */
  madeWithHash(node: FileNodeState, f: number): boolean {
    const m = this.made.get(node);
    return m !== undefined && m.f === f && m.hash === node.hash;
  }

  /** The direct sub-folders of folder `d`. */
  *subdirs(d: number): Generator<number> {
    const end = this.dirs[d]!.end;
    for (let c = d + 1; c < end; c = this.dirs[c]!.end) yield c;
  }

  childrenOf(d: number): Map<string, Node> {
    const children = new Map<string, Node>();
    const names = this.namesOf(d);
    const [f0, f1] = [this.fileStart[d]!, this.fileStart[d + 1]!];
    const nums = this.#body.nums(f0, f1);
    const hashes = this.#body.hashes(f0, f1);
    for (let i = 0; i < names.length; i++) children.set(names[i]!, this.fileNode(f0 + i, f0, nums, hashes));
    for (const c of this.subdirs(d)) children.set(this.dirs[c]!.name, new IndexedDir(this, c));
    return children;
  }

  listedNames(d: number): string[] {
    const out = this.namesOf(d);
    for (const c of this.subdirs(d)) out.push(this.dirs[c]!.name);
    out.push(...this.dirs[d]!.extra);
    return out;
  }
}

/** A folder of a loaded index: its children are built from the index the first time anything reads them. */
export class IndexedDir implements DirNode {
  readonly kind = 'dir';
  mode: number;
  hash?: string;
  rulesKey?: string;
  listedMtimeMs?: number;
  listedCtimeMs?: number;
  dirIno?: number;
  dirDev?: number;
  ignoredHere?: number;
  #children?: Map<string, Node>;
  #listed?: { value: string[] | undefined };

  constructor(
    readonly index: StatIndex,
    readonly at: number,
  ) {
    const r = index.dirs[at]!;
    this.mode = r.mode;
    this.hash = r.hash;
    this.rulesKey = r.rulesKey;
    this.listedMtimeMs = r.listedMtimeMs;
    this.listedCtimeMs = r.listedCtimeMs;
    this.dirIno = r.dirIno;
    this.dirDev = r.dirDev;
    this.ignoredHere = r.ignoredHere;
  }

  get children(): Map<string, Node> {
    return (this.#children ??= this.index.childrenOf(this.at));
  }
  set children(value: Map<string, Node>) {
    this.#children = value;
  }

  get listed(): string[] | undefined {
    this.#listed ??= { value: this.listedMtimeMs === undefined ? undefined : this.index.listedNames(this.at) };
    return this.#listed.value;
  }
  set listed(value: string[] | undefined) {
    this.#listed = { value };
  }

  /** Nothing below was looked at or changed since the index was loaded: the index's records still describe it. */
  get untouched(): boolean {
    const r = this.index.dirs[this.at]!;
    return (
      this.#children === undefined &&
      this.#listed === undefined &&
      this.hash === r.hash &&
      this.mode === r.mode &&
      this.rulesKey === r.rulesKey &&
      this.listedMtimeMs === r.listedMtimeMs &&
      this.listedCtimeMs === r.listedCtimeMs &&
      this.dirIno === r.dirIno &&
      this.dirDev === r.dirDev &&
      this.ignoredHere === r.ignoredHere
    );
  }

  get summary(): TreeTotals | undefined {
    return this.untouched ? this.index.dirs[this.at]!.totals : undefined;
  }
}

const align8 = (n: number) => (n + 7) & ~7;

/** An index's per-file sections: the names section's bytes from a to b, files f0 to f1's numbers and hashes. */
interface Body {
  names(a: number, b: number): Buffer;
  nums(f0: number, f1: number): Float64Array;
  hashes(f0: number, f1: number): Buffer;
}

/** The sections as views of the bytes parsed (what a patch writes through), with where each starts in them. */
class InMemory implements Body {
  constructor(
    readonly bytes: Buffer,
    readonly nameSection: Buffer,
    readonly all: Float64Array,
    readonly allHashes: Buffer,
    readonly namesAt: number,
    readonly numsAt: number,
    readonly hashesAt: number,
  ) {}
  names(a: number, b: number): Buffer {
    return this.nameSection.subarray(a, b);
  }
  nums(f0: number, f1: number): Float64Array {
    return this.all.subarray(f0 * NUMS, f1 * NUMS);
  }
  hashes(f0: number, f1: number): Buffer {
    return this.allHashes.subarray(f0 * HASH_BYTES, f1 * HASH_BYTES);
  }
}

/** The sections read from the index's file, through a descriptor held from when it was checked to be these bytes. */
class OnDisk implements Body {
  private constructor(
    readonly fd: number,
    private readonly namesAt: number,
    private readonly numsAt: number,
    private readonly hashesAt: number,
  ) {}

  /** The file, open, when it holds exactly `mem`'s bytes (its size, and the id and check value that end and begin them). */
  static open(file: string, mem: InMemory): OnDisk | undefined {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return undefined;
    }
    try {
      const size = mem.bytes.length;
      const head = Buffer.alloc(Math.min(size, mem.namesAt));
      const tail = Buffer.alloc(CHECK_BYTES);
      if (
        fstatSync(fd).size === size &&
        readSync(fd, head, 0, head.length, 0) === head.length &&
        readSync(fd, tail, 0, CHECK_BYTES, size - CHECK_BYTES) === CHECK_BYTES &&
        head.equals(mem.bytes.subarray(0, head.length)) &&
        tail.equals(mem.bytes.subarray(size - CHECK_BYTES))
      )
        return new OnDisk(fd, mem.namesAt, mem.numsAt, mem.hashesAt);
    } catch {
      /* not the file we wrote: kept in memory */
    }
    closeSync(fd);
    return undefined;
  }

  private read(into: Uint8Array, position: number): void {
    for (let done = 0; done < into.length;) {
      const n = readSync(this.fd, into, done, into.length - done, position + done);
      if (n === 0) throw new Error('the stat index file is shorter than when it was checked');
      done += n;
    }
  }
  names(a: number, b: number): Buffer {
    const out = Buffer.allocUnsafe(b - a);
    this.read(out, this.namesAt + a);
    return out;
  }
  nums(f0: number, f1: number): Float64Array {
    const out = new Float64Array((f1 - f0) * NUMS); // its own buffer: 8-byte aligned
    this.read(new Uint8Array(out.buffer), this.numsAt + f0 * NUMS * 8);
    return out;
  }
  hashes(f0: number, f1: number): Buffer {
    const out = Buffer.allocUnsafe((f1 - f0) * HASH_BYTES);
    this.read(out, this.hashesAt + f0 * HASH_BYTES);
    return out;
  }
}

/** An index left on disk holds its file open until the index is collected (its tree replaced, its process done). */
const closeWhenCollected = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
});

/** The names of a names section's text (each ends with a NUL). */
function splitNames(text: string): string[] {
  const names = text.split('\0');
  names.pop(); // after the last NUL
  return names;
}

/** What fileMatches reads of an lstat. */
export interface FileStat {
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

/** Writes a file's numbers as the index stores them (size, mtimeMs, ino, meta, ctimeMs, dev) into `out` at `at`. */
export function fileNums(f: FileNodeState, out: Float64Array, at: number): void {
  out[at] = f.size;
  out[at + 1] = f.mtimeMs;
  out[at + 2] = f.ino;
  out[at + 3] = f.mode | (f.kind === 'symlink' ? SYMLINK : 0) | (f.racy ? RACY : 0);
  out[at + 4] = f.ctimeMs;
  out[at + 5] = f.dev;
}

/** Whether `meta` is one fileNums writes: permission bits and the two flags, nothing else. */
export const isFileMeta = (meta: number): boolean => Number.isInteger(meta) && meta >= 0 && (meta & ~(0o7777 | SYMLINK | RACY)) === 0;

/** isSafeName (but the length) for every name of a list of NUL-terminated names, in one pass instead of 50,000. */
function safeNameList(text: string): boolean {
  if (text === '') return true;
  return text.endsWith('\0') && !UNSAFE_IN_NAME_LIST.test(text);
}
// a backslash is an ordinary character of a POSIX name (see isSafeName)
const UNSAFE_IN_NAME_LIST = process.platform === 'win32' ? /[/\\:]|\0\0|^\0|(?:^|\0)(?:\.\.?|\.git)\0/i : /\/|\0\0|^\0|(?:^|\0)(?:\.\.?|\.git)\0/i;

/** Builds the index of a tree; untouched folders of a loaded index are copied from it without being expanded. */
export function encodeStatIndex(key: string, root: DirNode, id: string = newIndexId()): Buffer {
  const dirs: DirRecord[] = [];
  let fileCount = 0;
  const nameParts: Buffer[] = [];
  const numParts: Float64Array[] = [];
  const hashParts: Buffer[] = [];

  const copy = (from: IndexedDir, parent: number, name: string): TreeTotals => {
    const src = from.index;
    const base = dirs.length;
    const first = from.at;
    const end = src.dirs[first]!.end;
    for (let c = first; c < end; c++) {
      const r = src.dirs[c]!;
      dirs.push({ ...r, parent: c === first ? parent : r.parent - first + base, name: c === first ? name : r.name, end: r.end - first + base });
    }
    fileCount += src.fileStart[end]! - src.fileStart[first]!;
    const sections = src.sectionsOf(first, end);
    nameParts.push(sections.names);
    numParts.push(sections.nums);
    hashParts.push(sections.hashes);
    return src.dirs[first]!.totals;
  };

  const visit = (dir: DirNode, parent: number, name: string): TreeTotals => {
    if (dir instanceof IndexedDir && dir.untouched) return copy(dir, parent, name);
    const at = dirs.length;
    const rec: DirRecord = {
      parent,
      name,
      mode: dir.mode,
      hash: dir.hash,
      rulesKey: dir.rulesKey,
      listedMtimeMs: dir.listedMtimeMs,
      listedCtimeMs: dir.listedCtimeMs,
      dirIno: dir.dirIno,
      dirDev: dir.dirDev,
      ignoredHere: dir.ignoredHere ?? 0,
      extra: [],
      fileCount: 0,
      nameBytes: 0,
      end: 0,
      totals: { files: 0, bytes: 0, ignored: dir.ignoredHere ?? 0 },
    };
    dirs.push(rec);
    const subdirs: [string, DirNode][] = [];
    const files: [string, FileNodeState][] = [];
    for (const [n, node] of dir.children) {
      if (node.kind === 'dir') subdirs.push([n, node]);
      else files.push([n, node as FileNodeState]);
    }
    const nums = new Float64Array(files.length * NUMS);
    const hashes = Buffer.alloc(files.length * HASH_BYTES);
    let nameText = '';
    files.forEach(([n, f], i) => {
      nameText += n + '\0';
      fileNums(f, nums, i * NUMS);
      hashes.write(f.hash, i * HASH_BYTES, HASH_BYTES, 'hex');
      rec.totals.files++;
      rec.totals.bytes += f.size;
    });
    const nameBuf = Buffer.from(nameText, 'utf8');
    nameParts.push(nameBuf);
    numParts.push(nums);
    hashParts.push(hashes);
    rec.fileCount = files.length;
    rec.nameBytes = nameBuf.length;
    fileCount += files.length;
    if (dir.listed) rec.extra = dir.listed.filter((n) => !dir.children.has(n));
    for (const [n, sub] of subdirs) {
      const t = visit(sub, at, n);
      rec.totals.files += t.files;
      rec.totals.bytes += t.bytes;
      rec.totals.ignored += t.ignored;
    }
    rec.end = dirs.length;
    return rec.totals;
  };
  visit(root, -1, '');

  // the id right after the key, where saveStatIndex finds it to put a new one in (idAt)
  const header = Buffer.from(JSON.stringify({ key, id, dirs: dirs.map(pack) }), 'utf8');
  const nameBuf = Buffer.concat(nameParts);
  const numsAt = align8(HEAD + header.length + nameBuf.length);
  const out = Buffer.alloc(numsAt + fileCount * NUMS * 8 + fileCount * HASH_BYTES + CHECK_BYTES);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(header.length, 8);
  out.writeUInt32LE(nameBuf.length, 12);
  out.writeUInt32LE(fileCount, 16);
  header.copy(out, HEAD);
  nameBuf.copy(out, HEAD + header.length);
  let at = numsAt;
  for (const p of numParts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
    at += p.byteLength;
  }
  for (const h of hashParts) {
    h.copy(out, at);
    at += h.length;
  }
  out.writeUInt32LE(crc32(out.subarray(0, at)), at);
  return out;
}

/** Where the id of an index written with this key is (see encodeStatIndex's header). */
const idAt = (key: string) => HEAD + Buffer.byteLength(`{"key":${JSON.stringify(key)},"id":"`);

/** The id of index bytes written by encodeStatIndex with this key ('' when they have none). */
function idIn(bytes: Buffer, key: string): string {
  const at = idAt(key);
  const id = bytes.toString('latin1', at, at + 32);
  return bytes.toString('latin1', at - 7, at) === ',"id":"' && ID.test(id) ? id : '';
}

export const patchFileOf = (file: string) => `${file.replace(/\.bin$/, '')}.patch`;

/** What a process that left an index's bytes on disk (StatIndex.leaveOnDisk) keeps of them, to know them again. */
export interface IndexFingerprint {
  id: string;
  length: number;
  /** The CRC-32 that ends them. */
  check: number;
}

/** Index bytes as a process knows them: all of them, or their fingerprint. */
export type KnownIndex = Buffer | IndexFingerprint;

export const fingerprintOf = (bytes: Buffer, key: string): IndexFingerprint => ({
  id: idIn(bytes, key),
  length: bytes.length,
  check: bytes.readUInt32LE(bytes.length - CHECK_BYTES),
});

/** Whether index bytes written with this key are the `known` ones (a fingerprint: same id, length and check value; a
 *  CRC-32 that matches other content only leaves an older index, every entry of which is checked against lstat). */
function sameIndex(bytes: Buffer, known: KnownIndex, key: string): boolean {
  if (Buffer.isBuffer(known)) return bytes.equals(known);
  return bytes.length === known.length && bytes.readUInt32LE(bytes.length - CHECK_BYTES) === known.check && idIn(bytes, key) === known.id;
}

/** Writes the index unless it would be exactly `previous` (the bytes last loaded or saved); returns the bytes. A
 *  patch beside it is removed: it was written for an older index, or what it says is in this one now. */
export async function saveStatIndex(file: string, key: string, root: DirNode, previous?: KnownIndex): Promise<Buffer> {
  const previousId = !previous ? '' : Buffer.isBuffer(previous) ? idIn(previous, key) : previous.id;
  let bytes = encodeStatIndex(key, root, previousId || newIndexId());
  if (previous && sameIndex(bytes, previous, key)) return bytes;
  if (previousId) {
    // other content under the old id would let a patch written for the old index apply to this one
    bytes.write(newIndexId(), idAt(key), 32, 'latin1');
    bytes.writeUInt32LE(crc32(bytes.subarray(0, bytes.length - CHECK_BYTES)), bytes.length - CHECK_BYTES);
  }
  await writeFileAtomic(file, bytes);
  await unlink(patchFileOf(file)).catch(() => {});
  return bytes;
}
