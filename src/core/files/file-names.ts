// File names are bytes on Linux, and not every byte string is valid UTF-8 (a name written under a Latin-1 locale, an
// archive from elsewhere). Names and paths travel through the engine as strings (the model, plans, journals, records,
// the service's JSON), so a name that is not valid UTF-8 is carried as a string that keeps its bytes, the way
// Python's "surrogateescape" does: each byte that is not part of a valid UTF-8 sequence becomes the lone surrogate
// U+DC00 + byte (0x80..0xff only: ASCII is always valid). Text decoded from valid UTF-8 never holds a lone surrogate,
// so such a string names exactly one byte string and never collides with a real name. Every file-system call on a
// path that may hold one goes through fsPath, which gives the system the original bytes.
import { isUtf8 } from 'node:buffer';

/**
 * The name (or path) holds escaped bytes (a lone low surrogate of the escaped range, one not preceded by a high
 * surrogate, i.e. not half of an astral character): it came from a name that is not valid UTF-8. A loop, not a
 * regular expression: it runs on every path a scan reads, some of them thousands of folders deep, where a regex's
 * own stack use was the last straw.
 */
export function hasEscapedBytes(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff) continue;
    const before = i > 0 ? s.charCodeAt(i - 1) : 0;
    if (before < 0xd800 || before > 0xdbff) return true;
  }
  return false;
}

/** Length of the valid UTF-8 sequence starting at i, or 0 when the byte there does not start one. */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number) => i + k < b.length && (b[i + k]! & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const c1 = b[i + 1]!;
    if (c === 0xe0 && c1 < 0xa0) return 0; // overlong
    if (c === 0xed && c1 >= 0xa0) return 0; // a surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const c1 = b[i + 1]!;
    if (c === 0xf0 && c1 < 0x90) return 0; // overlong
    if (c === 0xf4 && c1 >= 0x90) return 0; // past U+10FFFF
    return 4;
  }
  return 0;
}

/** The name a system gave as bytes: its text when it is valid UTF-8, else its valid runs as text and every other
 *  byte escaped (see above). */
export function nameFromBytes(b: Buffer): string {
  if (isUtf8(b)) return b.toString('utf8');
  let out = '';
  let run = 0; // start of the current run of valid sequences
  for (let i = 0; i < b.length;) {
    const n = sequenceAt(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += b.toString('utf8', run, i) + String.fromCharCode(0xdc00 + b[i]!);
    run = ++i;
  }
  return out + b.toString('utf8', run);
}

/** The bytes of a name (or path) from nameFromBytes: the inverse, exactly. */
export function nameToBytes(s: string): Buffer {
  if (!hasEscapedBytes(s)) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff || (i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) continue;
    parts.push(Buffer.from(s.slice(run, i), 'utf8'), Buffer.from([c - 0xdc00]));
    run = i + 1;
  }
  parts.push(Buffer.from(s.slice(run), 'utf8'));
  return Buffer.concat(parts);
}

/** What to hand the file system for `path`: the string itself, or its original bytes when it holds escaped ones. */
export function fsPath(path: string): string | Buffer {
  return hasEscapedBytes(path) ? nameToBytes(path) : path;
}

/** Bytes of a name as the system counts them (NAME_MAX is 255 bytes). */
export function nameByteLength(s: string): number {
  return hasEscapedBytes(s) ? nameToBytes(s).length : Buffer.byteLength(s, 'utf8');
}
