// Lines a rewind undoes, counted with a real line diff (jsdiff). Binary files count as changed with no lines.
// Most files a rewind touches differ in a few lines: the lines both sides share at the start and at the end are
// found by comparing bytes and left out of the diff. That gives the same counts: a minimal line diff of P+A+S and
// P+B+S is P and S kept plus a minimal diff of A and B, and lines equal as bytes are equal as decoded text (the cuts
// are just after a newline byte, where UTF-8 decoding starts afresh).
import { diffLines } from 'diff';

/** Git's heuristic: a NUL byte in the first 8000 bytes means binary. */
export function isBinary(buf: Buffer | undefined): boolean {
  if (!buf) return false;
  return buf.subarray(0, 8000).includes(0);
}

/** Lines of `buf[from, to)`, the last one counted without its newline too (as jsdiff tokenizes). */
function countLines(buf: Buffer, from = 0, to = buf.length): number {
  if (to <= from) return 0;
  let n = 0;
  for (let i = buf.indexOf(10, from); i !== -1 && i < to; i = buf.indexOf(10, i + 1)) n++;
  return buf[to - 1] === 10 ? n : n + 1;
}

const BLOCK = 256;

/** Length of the common prefix of a and b, up to the end of its last whole line (just after a '\n'). */
function commonLinePrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  // whole blocks natively first, then byte by byte inside the block that differs
  while (i + BLOCK <= n && a.compare(b, i, i + BLOCK, i, i + BLOCK) === 0) i += BLOCK;
  while (i < n && a[i] === b[i]) i++;
  return i === 0 ? 0 : a.lastIndexOf(10, i - 1) + 1;
}

/**
 * Where the common suffix of whole lines starts in `a` (a.length: none), never before `prefix` in either buffer. It
 * starts just after a newline inside the bytes both end with, so it is a line start in both.
 */
function commonLineSuffixStart(a: Buffer, b: Buffer, prefix: number): number {
  const max = Math.min(a.length, b.length) - prefix;
  let j = 0;
  while (j + BLOCK <= max && a.compare(b, b.length - j - BLOCK, b.length - j, a.length - j - BLOCK, a.length - j) === 0) j += BLOCK;
  while (j < max && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  const nl = a.indexOf(10, a.length - j);
  return nl === -1 ? a.length : nl + 1;
}

/**
 * `inserted`: lines present now and not at the anchor (the rewind removes them); `deleted`: lines at the anchor
 * missing now (the rewind brings them back).
 */
export function lineStats(atAnchor: Buffer | undefined, now: Buffer | undefined): { insertions: number; deletions: number; binary: boolean } {
  if (isBinary(atAnchor) || isBinary(now)) return { insertions: 0, deletions: 0, binary: true };
  const a = atAnchor ?? Buffer.alloc(0);
  const b = now ?? Buffer.alloc(0);
  const prefix = commonLinePrefix(a, b);
  const endA = commonLineSuffixStart(a, b, prefix);
  const endB = endA + (b.length - a.length);
  if (endA === prefix || endB === prefix) return { insertions: countLines(b, prefix, endB), deletions: countLines(a, prefix, endA), binary: false };
  const textA = a.toString('utf8', prefix, endA);
  const textB = b.toString('utf8', prefix, endB);
  // a pathological diff must not hang a preview: past the limit, count whole files as replaced
  const parts = diffLines(textA, textB, { timeout: 2000 });
  if (!parts) return { insertions: countLines(b), deletions: countLines(a), binary: false };
  let insertions = 0;
  let deletions = 0;
  for (const p of parts) {
    if (p.added) insertions += p.count ?? countLines(Buffer.from(p.value, 'utf8'));
    else if (p.removed) deletions += p.count ?? countLines(Buffer.from(p.value, 'utf8'));
  }
  return { insertions, deletions, binary: false };
}
