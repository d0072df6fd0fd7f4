// Lines a rewind undoes, counted with a real line diff (jsdiff). Binary files count as changed with no lines.
import { diffLines } from 'diff';

/** Git's heuristic: a NUL byte in the first 8000 bytes means binary. */
export function isBinary(buf: Buffer | undefined): boolean {
  if (!buf) return false;
  return buf.subarray(0, 8000).includes(0);
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/**
 * `inserted`: lines present now and not at the anchor (the rewind removes them); `deleted`: lines at the anchor
 * missing now (the rewind brings them back).
 */
export function lineStats(atAnchor: Buffer | undefined, now: Buffer | undefined): { insertions: number; deletions: number; binary: boolean } {
  if (isBinary(atAnchor) || isBinary(now)) return { insertions: 0, deletions: 0, binary: true };
  const a = atAnchor?.toString('utf8') ?? '';
  const b = now?.toString('utf8') ?? '';
  if (a === '' || b === '') return { insertions: countLines(b), deletions: countLines(a), binary: false };
  // a pathological diff must not hang a preview: past the limit, count whole files as replaced
  const parts = diffLines(a, b, { timeout: 2000 });
  if (!parts) return { insertions: countLines(b), deletions: countLines(a), binary: false };
  let insertions = 0;
  let deletions = 0;
  for (const p of parts) {
    if (p.added) insertions += p.count ?? countLines(p.value);
    else if (p.removed) deletions += p.count ?? countLines(p.value);
  }
  return { insertions, deletions, binary: false };
}
