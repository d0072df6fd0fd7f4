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

/** The JSON of the checked line buf[start, end) (end at its newline), or undefined when its CRC does not match. */
export function checkedJson(buf: Buffer, start: number, end: number): string | undefined {
  if (end - start < 10 || buf[start + 8] !== SPACE) return undefined;
  for (let i = start; i < start + 8; i++) if (buf[i] === SPACE) return undefined;
  const crc = Number.parseInt(buf.toString('latin1', start, start + 8), 16);
  if (crc !== crc32(buf.subarray(start + 9, end))) return undefined;
  return buf.toString('utf8', start + 9, end);
}

/** The complete lines of `buf` from `from` on: each one's JSON (undefined when damaged), and where the last ends. */
export function* completeLines(buf: Buffer, from: number): Generator<{ json: string | undefined; end: number }> {
  let pos = from;
  for (;;) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl < 0) return;
    if (nl > pos) yield { json: checkedJson(buf, pos, nl), end: nl + 1 };
    pos = nl + 1;
  }
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

export class CheckedLinesReader<T> {
  private state?: ReaderState<T>;

  /**
   * `decode`: a line as a value, or undefined when it is not one (damage), given its parsed JSON (undefined with
   * `parse: false`, for a decoder that takes its own layout apart) and its JSON text.
   */
  constructor(
    readonly file: string,
    private readonly decode: (value: unknown, json: string) => T | undefined,
    private readonly opts: { parse?: boolean } = {},
  ) {}

  /** Forgets what was parsed (the next read starts from the beginning). */
  forget(): void {
    this.state = undefined;
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
      let consumed = from;
      let damaged = false;
      for (const line of completeLines(bytes, from)) {
        consumed = line.end;
        let value: T | undefined;
        if (line.json !== undefined) {
          try {
            value = this.decode(this.opts.parse === false ? undefined : JSON.parse(line.json), line.json);
          } catch {
            value = undefined;
          }
        }
        if (value === undefined) damaged = true;
        else values.push(value);
      }
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
            prefixCrc: crc32(bytes.subarray(from, consumed), extend ? s.prefixCrc : 0),
            values,
          };
      return { values, damaged, known };
    } finally {
      closeSync(fd);
    }
  }
}
