// Append-only files of checked lines (the workspace timeline and its changed-path index): each line is
// `<crc32 of the JSON, 8 hex digits> <JSON>\n`, appended in one write. A line a crash cut short (the file's end
// without its newline) is not a line yet and is ignored; a complete line whose CRC or content is wrong is damage.
//
// The reader is incremental: a long-lived process (the extension, the service) parses only what was appended since
// its last read. What it parsed before counts only while the bytes it parsed are still there, byte for byte: the file
// is the same (device and inode: gc replaces it by a rename) and the CRC-32 of that prefix is unchanged, so a file
// cut short, rewritten in place or damaged anywhere is read again from its start.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

export function encodeCheckedLine(json: string): string {
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** Appends lines in one write. Called by writers that hold the store lock; a failure loses nothing that is not
 *  mended from what the file indexes. A line a crash cut short gets a newline first so it cannot swallow these. */
export function appendCheckedLines(file: string, lines: string): void {
  const fd = openSync(file, 'a+');
  try {
    const size = fstatSync(fd).size;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    writeSync(fd, prefix + lines);
  } finally {
    closeSync(fd);
  }
}

const NEWLINE = 0x0a;
const SPACE = 0x20;

/** The CRC-32 a line starts with (8 hex digits, lower or upper case), or -1 when it does not start with one. Read
 *  from the bytes: a fresh process checks every line of a 10,000-line file. */
function lineCrc(buf: Buffer, start: number): number {
  let crc = 0;
  for (let i = start; i < start + 8; i++) {
    const c = buf[i]!;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    crc = crc * 16 + d;
  }
  return crc;
}

/** Whether buf[start, end) (end at its newline) is a checked line whose CRC matches its JSON (from start + 9). */
export function isCheckedLine(buf: Buffer, start: number, end: number): boolean {
  if (end - start < 10 || buf[start + 8] !== SPACE) return false;
  const crc = lineCrc(buf, start);
  return crc >= 0 && crc === crc32(buf.subarray(start + 9, end));
}

export interface CheckedLinesRead<T> {
  /** The values of the valid lines, in file order. Owned by the reader: read-only for the caller. */
  values: readonly T[];
  /** A complete line was damaged (its CRC or its content). */
  damaged: boolean;
  /** How many of `values` the previous read already returned, in the same places (0 after a full read). */
  known: number;
}

interface ReaderState<T> {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Bytes parsed: up to the end of the last complete line. */
  consumed: number;
  prefixCrc: number;
  values: T[];
}

/**
 * How a line becomes a value (undefined: it is not one, damage). `json`: given the line's JSON text; `raw`: given the
 * bytes it lies in (buf[start, end), its CRC checked), for a decoder that keeps them as bytes. The buffer of a whole
 * read is the file's; after an incremental read it holds only what was appended (a decoder may keep it).
 */
export type LineDecoder<T> = { json: (json: string) => T | undefined } | { raw: (buf: Buffer, start: number, end: number) => T | undefined };

export class CheckedLinesReader<T> {
  private state?: ReaderState<T>;

  constructor(
    readonly file: string,
    private readonly decoder: LineDecoder<T>,
  ) {}

  /** Forgets what was parsed (the next read starts from the beginning). */
  forget(): void {
    this.state = undefined;
  }

  private decode(buf: Buffer, start: number, end: number): T | undefined {
    if (!isCheckedLine(buf, start, end)) return undefined;
    try {
      return 'raw' in this.decoder ? this.decoder.raw(buf, start + 9, end) : this.decoder.json(buf.toString('utf8', start + 9, end));
    } catch {
      return undefined;
    }
  }

  /** The file's lines, or undefined when there is no file. */
  read(): CheckedLinesRead<T> | undefined {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      this.state = undefined;
      return undefined;
    }
    try {
      const st = fstatSync(fd);
      const s = this.state;
      const sameFile = s !== undefined && s.dev === st.dev && s.ino === st.ino;
      if (sameFile && s.size === st.size && s.mtimeMs === st.mtimeMs) return { values: s.values, damaged: false, known: s.values.length };
      const buf = Buffer.allocUnsafe(st.size);
      let n = 0;
      while (n < buf.length) {
        const got = readSync(fd, buf, n, buf.length - n, n);
        if (got === 0) break;
        n += got;
      }
      const bytes = buf.subarray(0, n);
      const extend = sameFile && n >= s.consumed && crc32(bytes.subarray(0, s.consumed)) === s.prefixCrc;
      const from = extend ? s.consumed : 0;
      const values = extend ? s.values : [];
      const known = values.length;
      // what was appended, copied out of the whole file's bytes: values a raw decoder made keep only those alive
      const fresh = extend ? Buffer.from(bytes.subarray(from)) : bytes;
      let pos = 0;
      let damaged = false;
      for (let nl = fresh.indexOf(NEWLINE, pos); nl >= 0; nl = fresh.indexOf(NEWLINE, pos)) {
        if (nl > pos) {
          const value = this.decode(fresh, pos, nl);
          if (value === undefined) damaged = true;
          else values.push(value);
        }
        pos = nl + 1;
      }
      const consumed = from + pos;
      // a damaged file is read whole every time (it is rare, and mended under the lock by the next gc); a whole one
      // is remembered, with the CRC of what was parsed
      this.state = damaged
        ? undefined
        : {
            dev: st.dev,
            ino: st.ino,
            size: n === st.size ? st.size : -1,
            mtimeMs: st.mtimeMs,
            consumed,
            prefixCrc: crc32(fresh.subarray(0, pos), extend ? s.prefixCrc : 0),
            values,
          };
      return { values, damaged, known };
    } finally {
      closeSync(fd);
    }
  }
}
