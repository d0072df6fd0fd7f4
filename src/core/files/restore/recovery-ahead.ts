// What a real rewind settles before it plans, for its dry run (promise 13): the store's pending restore journal, which
// recovery finishes or rolls back (recovery-forecast.ts), and, for the engine, a rewind the rewind log says was
// interrupted, which it then takes back with the session's newest file undo (rewind-recovery.ts). Worked out from the
// journal, the undo record and the paths' states now; nothing is written.
import type { ObjectStore } from '../store/object-store';
import type { SnapshotRecords } from '../snapshot-records';
import { sameState, TreeReader, type EntryState } from '../store/tree-diff';
import type { RecoveryFirst, RewindFilesOptions, SkippedFile } from '../types';
import { forecastRecovery, writeProblemIn } from './recovery-forecast';
import { checkRestorePaths, reasonOf, type Restorer } from './restore';
import { parseAfter } from './undo-stack';

export interface RecoveryAhead {
  /** Each path whose state changes before the rewind plans, and the state it then has. */
  forecast: Map<string, EntryState>;
  /** The contents of the files in `forecast`, by hash. */
  blobs: Map<string, Buffer>;
  /** What the rewind reports as left by recovery (its `skipped`), when it reports it. */
  recovered: SkippedFile[];
  /** Recovery keeps a failed journal, with these paths left: a rewind that changes anything is refused. */
  staysFailed?: SkippedFile[];
  notice?: RecoveryFirst;
  /** A restore journal is pending: recovery then has the next plan check every file (FileCheckpointer.recoverLocked). */
  recovers: boolean;
}

/** The words of a rewind refused while a failed one still has files to put back (FileCheckpointer.applyUnderJournal). */
export function failedRewindPending(notRestored: readonly SkippedFile[]): string {
  const list = notRestored.map((n) => `${n.path} (${n.reason})`).join('; ');
  return `An earlier rewind failed and some of its files could not be put back yet: ${list}. Fix what stops them (see the reasons) and try again.`;
}

/** What recovery leaves, as the operation that ran it reports it (FileCheckpointer.locked). */
export const recoveredNotes = (notRestored: readonly SkippedFile[]): SkippedFile[] =>
  notRestored.map((n) => ({ path: n.path, reason: `not put back after an unfinished rewind: ${n.reason}` }));

/**
 * What is settled before a rewind of this workspace plans: undefined when nothing is pending; a string when settling
 * fails as the real rewind then does (its words).
 */
export async function recoveryAhead(
  workspaceRoot: string,
  store: ObjectStore,
  records: SnapshotRecords,
  restorer: Restorer,
  settledFirst: RewindFilesOptions['settledFirst'],
): Promise<RecoveryAhead | string | undefined> {
  const journal = await restorer.readJournal();
  if (journal && journal.workspaceRoot !== workspaceRoot)
    throw new Error(`an interrupted restore of another folder (${journal.workspaceRoot}) is pending in this store; run recovery from that folder`);
  const forecast = new Map<string, EntryState>();
  const seen = new Map<string, EntryState | 'unknown'>();
  const unreachable = new Map<string, SkippedFile & { retry: boolean }>();
  const now = (path: string): EntryState | 'unknown' => {
    if (!seen.has(path)) for (const [p, s] of restorer.statesNow([path], unreachable)) seen.set(p, s);
    return seen.get(path)!;
  };
  // statesNow fills `unreachable` as it looks, so a path is looked at before asking
  const unreachableNow = (path: string) => {
    now(path);
    return unreachable.get(path);
  };
  /** The restore's temp files recovery removes (nobody's file: left out of the notice). */
  const temps = new Set<string>();
  let recovered: SkippedFile[] = [];
  let staysFailed: SkippedFile[] | undefined;
  let action: RecoveryFirst['action'] = 'finished';
  // the contents recovery writes, read as it reads them: one it cannot read is a step that fails
  const blobs = new Map<string, Buffer>();
  const unreadable = new Map<string, string>();
  const read = async (s: EntryState) => {
    if (s === null || s.kind === 'dir' || blobs.has(s.hash) || unreadable.has(s.hash)) return;
    try {
      blobs.set(s.hash, await store.read(s.hash, 'blob'));
    } catch (err) {
      unreadable.set(s.hash, reasonOf(err));
    }
  };
  if (journal) {
    checkRestorePaths(workspaceRoot, journal.ops); // recovery's preflight: what it refuses, the rewind fails with
    for (const op of journal.ops) for (const s of [op.from, op.to]) await read(s);
    const f = forecastRecovery(journal, now, writeProblemIn(workspaceRoot, unreadable), (path) => restorer.namesNow(path), unreachableNow);
    for (const [p, s] of f.changes) forecast.set(p, s);
    for (const temp of f.temps) {
      forecast.set(temp, null);
      temps.add(temp);
    }
    if (f.outcome === 'rolledBack') action = 'rolled back';
    if (f.staysFailed) staysFailed = f.notRestored;
    // the engine recovers in a step of its own before the rewind: its report is the rewind's only while it fails
    if (!settledFirst || f.staysFailed) recovered = recoveredNotes(f.notRestored);
  }
  const undoOf = settledFirst?.undoRewindOf;
  if (undoOf && !staysFailed) {
    let stack = await records.undoStack(undoOf.sessionId);
    const after = journal && action === 'finished' ? parseAfter(journal.after) : undefined; // recovery finishes its bookkeeping too
    if (after?.kind === 'push-undo' && after.undo.sessionId === undoOf.sessionId && !stack.some((u) => u.preRestoreAnchor === after.undo.preRestoreAnchor))
      stack = [...stack, after.undo];
    if (after?.kind === 'pop-undo' && after.sessionId === undoOf.sessionId) stack = stack.filter((u) => u.preRestoreAnchor !== after.preRestoreAnchor);
    const top = stack.at(-1);
    if (top && top.preRestoreAnchor !== undoOf.filesTop) {
      const pre = await records.get(undoOf.sessionId, top.preRestoreAnchor);
      if (!pre)
        return 'An interrupted rewind of this folder could not be finished yet: The snapshot taken before the last rewind is gone (removed by gc or the size cap); it cannot be undone.';
      // FileCheckpointer.undoLastRewind: what the rewind wrote comes back, except what was changed by hand since
      const reader = new TreeReader(store);
      for (const w of top.written) {
        const cur = forecast.has(w.path) ? forecast.get(w.path)! : now(w.path);
        const target = await reader.lookup(pre.root, w.path);
        if (cur === 'unknown' || sameState(cur, target) || !sameState(cur, w.state)) continue;
        await read(target);
        forecast.set(w.path, target);
      }
      action = 'rolled back';
    }
  }
  if (!journal && forecast.size === 0) return undefined;
  const paths = [...forecast.keys()].filter((p) => !temps.has(p)).sort();
  return {
    forecast,
    blobs,
    recovered,
    recovers: journal !== undefined,
    ...(staysFailed ? { staysFailed } : {}),
    ...(paths.length > 0 ? { notice: { action, paths } } : {}),
  };
}
