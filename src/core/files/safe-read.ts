// Reading a workspace file for a snapshot without ever blocking on it or storing it torn: the file is opened
// non-blocking and must be a regular file (a FIFO opened for reading waits for a writer forever; a device may never
// end), and its stat data (size, mtime, ctime, inode) must be the same before and after the read, else it is read
// again a few times and then reported as "changed while being read" instead of stored half old, half new. A file
// modified in the last second must also read the same twice (see RECENT_MS).
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { fsPath } from './file-names';

export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'ECHANGED',
  ) {
    super(message);
  }
}

/** Reads that found the file changing before it counts as changing all the time. */
const TRIES = 4;
/**
 * A write(2) sets mtime when it starts, then copies for as long as it takes (a big one under load: tens of ms),
 * so equal stat data before and after a read does not prove no write was running during it. A file modified this
 * recently is read twice, and only two identical reads count; an older one would need a single write running for
 * longer than this, and a write that starts during the read changes its mtime.
 */
const RECENT_MS = 1000;

/**
 * Two buffers a run of reads takes turns with, for a caller that hashes most of what it reads and keeps little of it
 * (a refresh of the checkpoint service's model): a buffer of its own per file put every file of up to 128 KiB in the C
 * heap, and after a refresh that read a few thousand files (a first check that met files changed just before the
 * index was written, a branch switched) the pages it freed there stayed in the service for good (issue 26: 99 against
 * 76 MB at 200,000 files). What is read into the scratch is a view, overwritten two reads later: a caller that keeps
 * it copies it. Bigger files get a buffer of their own, which the C allocator maps apart and gives back when freed.
 */
export class ReadScratch {
  /** Files up to this size are read into the scratch: glibc's mmap threshold as the service sets it (service-heap.ts). */
  static readonly MAX = 128 * 1024;
  private readonly buffers: (Buffer | undefined)[] = [undefined, undefined];
  private turn = 0;

  /** A buffer of `size` bytes for the next read; two reads in a row never share one (readStableFile compares them). */
  take(size: number): Buffer {
    if (size > ReadScratch.MAX) return Buffer.allocUnsafe(size);
    this.turn ^= 1;
    const b = (this.buffers[this.turn] ??= Buffer.allocUnsafeSlow(ReadScratch.MAX));
    return b.subarray(0, size);
  }

  /** Whether `data` is a view of the scratch: valid only until the reads after it. */
  lent(data: Buffer): boolean {
    return this.buffers.some((b) => b !== undefined && b.buffer === data.buffer);
  }
}

const sameStat = (a: Stats, b: Stats) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;

function readOnce(path: string | Buffer, follow: boolean, scratch?: ReadScratch): { data: Buffer; st: Stats; stable: boolean; started: number } {
  const started = Date.now();
  const fd = openSync(typeof path === 'string' ? fsPath(path) : path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnreadableFileError('not a regular file', 'ENOTREG');
    const data = scratch ? scratch.take(st.size) : Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const r = readSync(fd, data, n, st.size - n, n);
      if (r === 0) break;
      n += r;
    }
    // a file that grew or shrank meanwhile has another size (and mtime) in the second fstat
    const after = fstatSync(fd);
    return { data: n === st.size ? data : data.subarray(0, n), st: after, stable: n === st.size && sameStat(st, after), started };
  } finally {
    closeSync(fd);
  }
}

/**
 * The content of the regular file at `path` as one consistent version, with the stat data that version has.
 * `follow` lets the last component be a symlink (ignore-rule files); workspace files are never read through one.
 * Throws UnreadableFileError ('ENOTREG' or 'ECHANGED'), or the fs error (ENOENT, EACCES, ELOOP…). With `scratch`, the
 * bytes may be a view of it (ReadScratch.lent), overwritten by its next reads.
 */
export function readStableFile(path: string | Buffer, follow = false, scratch?: ReadScratch): { data: Buffer; st: Stats } {
  let prev: { data: Buffer; st: Stats } | undefined;
  for (let i = 0; i < TRIES; i++) {
    const r = readOnce(path, follow, scratch);
    if (!r.stable) {
      prev = undefined;
      continue;
    }
    if (r.st.mtimeMs < r.started - RECENT_MS) return r;
    if (prev && sameStat(prev.st, r.st) && prev.data.equals(r.data)) return r;
    prev = r;
  }
  throw new UnreadableFileError('changed while being read', 'ECHANGED');
}

/** A version of a file read (and hashed) earlier by readStableFile: its blob hash and the stat data it had. */
export interface KnownVersion {
  hash: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

/**
 * readStableFile for a file whose earlier stable read is `known` (a snapshot storing what the model hashed moments
 * before): a recent file's second read is that earlier one. A read with the same stat data whose content hashes the
 * same is two identical reads, as far apart as they come, which only a write running through both could fake as
 * readStableFile's back-to-back pair could; any difference falls back to readStableFile's own pair. Also returns
 * the blob hash, which the caller needs anyway.
 */
export function readKnownFile(path: string | Buffer, known: KnownVersion, hashOf: (data: Buffer) => string): { data: Buffer; st: Stats; hash: string } {
  const r = readOnce(path, false);
  if (r.stable) {
    const hash = hashOf(r.data);
    if (r.st.mtimeMs < r.started - RECENT_MS) return { data: r.data, st: r.st, hash };
    if (
      hash === known.hash &&
      r.st.size === known.size &&
      r.st.mtimeMs === known.mtimeMs &&
      r.st.ctimeMs === known.ctimeMs &&
      r.st.ino === known.ino &&
      r.st.dev === known.dev
    )
      return { data: r.data, st: r.st, hash };
  }
  const again = readStableFile(path);
  return { ...again, hash: hashOf(again.data) };
}

/**
 * Whether the regular file at `path` still has the stat data of the version the model read and hashed (`known`):
 * an lstat, where reading it again costs an open, two fstats and the read. The model's hash comes from its latest
 * refresh (a watcher reports every write since the read; a refresh without one reads a recently changed file again),
 * so this only has to catch a change the refresh has not seen yet. A file modified in the last second is not taken
 * as unchanged: a second write in the timestamp tick of the model's read keeps every stat field (same size), and only
 * a second read (readKnownFile) tells it, as for any recently edited file a snapshot stores.
 */
export function unchangedSince(path: string, known: KnownVersion): boolean {
  // a version written in the last second is never taken as unchanged (below), whatever the lstat finds: none is made
  // (the files a rewind replaces were mostly edited just before it)
  const recent = Date.now() - RECENT_MS;
  if (known.mtimeMs >= recent || known.ctimeMs >= recent) return false;
  const st = lstatSync(fsPath(path), { throwIfNoEntry: false });
  return (
    st !== undefined &&
    st.mtimeMs < Date.now() - RECENT_MS &&
    st.ctimeMs < Date.now() - RECENT_MS &&
    st.isFile() &&
    st.size === known.size &&
    st.mtimeMs === known.mtimeMs &&
    st.ctimeMs === known.ctimeMs &&
    st.ino === known.ino &&
    st.dev === known.dev
  );
}

/** The reason a skipped file is reported with, for an error of readStableFile. */
export function unreadableReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOTREG') return 'not a regular file, folder or symlink';
  if (code === 'ECHANGED') return 'changed while being read (read again and it kept changing)';
  return `unreadable (${code ?? (err as Error).message})`;
}
