// Undo records: what a restore wrote at each path, kept so that undo puts back only paths nobody touched since
// (undoSchema says what one is). Reading them back without zod: every rewind reads its session's whole undo stack (up to 20 records of
// one entry per path it wrote) to push its own, and zod's union took ~7 µs per entry, ~150 ms for a stack of
// 1,000-file rewinds. The result is what undoSchema's parse gives (unknown keys dropped); a test keeps them equal.
import { z } from 'zod';
import { isObjectHash } from '../store/object-format';

const entryStateSchema = z.union([
  z.null(),
  z.object({ kind: z.enum(['file', 'symlink']), hash: z.string().refine(isObjectHash), mode: z.number().int().min(0).max(0o7777) }),
  z.object({ kind: z.literal('dir') }),
]);
export type EntryState = z.infer<typeof entryStateSchema>;

export const undoSchema = z.object({
  v: z.literal(1),
  sessionId: z.string(),
  anchorId: z.string(),
  /** The pre-restore snapshot that undo brings back. */
  preRestoreAnchor: z.string(),
  createdAt: z.string(),
  /** What the restore wrote at each path: undo only puts back paths nobody touched since. */
  written: z.array(z.object({ path: z.string(), state: entryStateSchema })),
});
export type UndoRecord = z.infer<typeof undoSchema>;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isMode = (m: unknown): m is number => typeof m === 'number' && Number.isInteger(m) && m >= 0 && m <= 0o7777;

/** The state as undoSchema's entry parses it, or 'bad'. */
function entryState(x: unknown): EntryState | 'bad' {
  if (x === null) return null;
  if (!isObject(x)) return 'bad';
  if ((x.kind === 'file' || x.kind === 'symlink') && typeof x.hash === 'string' && isObjectHash(x.hash) && isMode(x.mode))
    return { kind: x.kind, hash: x.hash, mode: x.mode };
  if (x.kind === 'dir') return { kind: 'dir' };
  return 'bad';
}

/** An undo record as undoSchema parses it, or undefined when undoSchema would refuse it. */
export function parseUndoRecord(x: unknown): UndoRecord | undefined {
  if (!isObject(x) || x.v !== 1 || !Array.isArray(x.written)) return undefined;
  const { sessionId, anchorId, preRestoreAnchor, createdAt } = x;
  if (typeof sessionId !== 'string' || typeof anchorId !== 'string' || typeof preRestoreAnchor !== 'string' || typeof createdAt !== 'string') return undefined;
  const written: UndoRecord['written'] = [];
  for (const w of x.written as unknown[]) {
    if (!isObject(w) || typeof w.path !== 'string') return undefined;
    const state = entryState(w.state);
    if (state === 'bad') return undefined;
    written.push({ path: w.path, state });
  }
  return { v: 1, sessionId, anchorId, preRestoreAnchor, createdAt, written };
}

/** A stack as z.array(undoSchema) parses it, or undefined when any record is refused (the stack is then dropped). */
export function parseUndoStack(x: unknown): UndoRecord[] | undefined {
  if (!Array.isArray(x)) return undefined;
  const out: UndoRecord[] = [];
  for (const r of x) {
    const u = parseUndoRecord(r);
    if (!u) return undefined;
    out.push(u);
  }
  return out;
}
