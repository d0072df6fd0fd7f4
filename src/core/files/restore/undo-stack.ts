// The undo stack of a session's rewinds, and the store-side bookkeeping a restore finishes after the workspace is
// done (kept in the restore journal, so recovery finishes it too).
import type { SnapshotRecords } from '../snapshot-records';
import { parseUndoRecord, type UndoRecord } from './undo-record';

export type AfterRestore = { kind: 'push-undo'; undo: UndoRecord } | { kind: 'pop-undo'; sessionId: string; preRestoreAnchor: string };

/** Pushes the rewind's undo record, or pops (and forgets) the one an undo just applied. Idempotent. */
export async function finishAfter(records: SnapshotRecords, after: AfterRestore): Promise<void> {
  if (after.kind === 'push-undo') {
    const stack = await records.undoStack(after.undo.sessionId);
    if (!stack.some((u) => u.preRestoreAnchor === after.undo.preRestoreAnchor)) await records.setUndoStack(after.undo.sessionId, [...stack, after.undo]);
  } else {
    const stack = await records.undoStack(after.sessionId);
    await records.setUndoStack(
      after.sessionId,
      stack.filter((u) => u.preRestoreAnchor !== after.preRestoreAnchor),
    );
    await records.delete(after.sessionId, after.preRestoreAnchor);
  }
}

/** The `after` of a journal, validated (a damaged one is ignored). */
export function parseAfter(x: unknown): AfterRestore | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const a = x as Record<string, unknown>;
  if (a.kind === 'push-undo') {
    const undo = parseUndoRecord(a.undo);
    return undo ? { kind: 'push-undo', undo } : undefined;
  }
  if (a.kind === 'pop-undo' && typeof a.sessionId === 'string' && typeof a.preRestoreAnchor === 'string') return a as AfterRestore;
  return undefined;
}
