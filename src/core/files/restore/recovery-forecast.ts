// What recovery of a pending restore journal will do, worked out without doing it, for the dry run: a real rewind
// recovers first (FileCheckpointer.locked) and plans from what recovery leaves, so its preview must plan from that too
// (promise 13). The same decisions as Restorer.recover, step by step on the states the paths have now:
//  - an interrupted restore is finished on the paths still as it expects (as before it, as it wrote them, or a folder
//    it was making), the others are left and reported; a step that cannot be written makes it roll back instead;
//  - a failed one (or one whose finishing fails) is put back on the paths still as it wrote them; a path that cannot
//    be written is left, and keeps the journal (marked failed), which then refuses a new rewind.
// Whether a step can be written is asked of the system (access(2) on the folder it writes in: permissions, an
// immutable folder, a read-only mount); an I/O error that only the write itself meets cannot be foreseen.
import { accessSync, constants } from 'node:fs';
import { fsPath } from '../file-names';
import { restoreTempName } from '../restore-temp-names';
import { absPath } from '../safe-paths';
import { sameState, type EntryState } from '../store/tree-diff';
import type { SkippedFile } from '../types';
import { halfMadeFolder, orderOps, reasonOf, type Journal, type RestoreOp } from './restore';

export interface RecoveryForecast {
  outcome: 'completed' | 'rolledBack';
  /** Each path whose state recovery changes, and the state it leaves there. */
  changes: Map<string, EntryState>;
  /** What recovery leaves as it is, and why (as Restorer.recover reports it). */
  notRestored: SkippedFile[];
  /** Recovery keeps the journal, marked failed: a rewind is then refused (FileCheckpointer.applyUnderJournal). */
  staysFailed: boolean;
  /** The temp files of the interrupted restore's writes that are there now: recovery removes them. */
  temps: string[];
}

type Now = (path: string) => EntryState | 'unknown';
/** Why a path cannot be looked at now (a folder on its way is a file or a link), as recovery then fails its step;
 *  undefined when it can (or when it is only of a kind recovery does not handle: 'unknown'). */
export type Unreachable = (path: string) => (SkippedFile & { retry: boolean }) | undefined;
/** The names in the folder `path` now; 'unknown' when it cannot be listed. */
export type ListNow = (path: string) => string[] | 'unknown';
/** Why a step that sets `path` to `to` cannot be done now, or undefined when it can. */
type WriteProblem = (path: string, to: EntryState) => string | undefined;

/**
 * Restorer.applyOp's first failures: the content it writes cannot be read from the store (`unreadable`: why, by hash),
 * or the folder `path` is in (its nearest existing one) does not let this process write in it.
 */
export function writeProblemIn(workspaceRoot: string, unreadable: ReadonlyMap<string, string>): WriteProblem {
  return (path, to) => {
    if (to !== null && to.kind !== 'dir' && unreadable.has(to.hash)) return unreadable.get(to.hash);
    const parts = path.split('/');
    for (let n = parts.length - 1; n >= 0; n--) {
      const dir = n === 0 ? workspaceRoot : absPath(workspaceRoot, parts.slice(0, n).join('/'));
      try {
        accessSync(fsPath(dir), constants.W_OK | constants.X_OK);
        return undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && n > 0) continue; // made by an earlier step
        return reasonOf(err);
      }
    }
    return undefined;
  };
}

export function forecastRecovery(
  journal: Journal,
  now: Now,
  writeProblem: WriteProblem,
  list: ListNow,
  unreachable: Unreachable = () => undefined,
): RecoveryForecast {
  const temps = tempsOf(journal, now);
  // Restorer.applyOp removes a folder with rmdir(2), and a folder that still holds anything stays, silently: what
  // is in it now, less what earlier steps removed (`states`: null) and, rolling back, the temp files it removes first
  const folderStays = (gone: ReadonlySet<string>) => (path: string, states: ReadonlyMap<string, EntryState>) => {
    const names = list(path);
    if (names === 'unknown') return false; // as rmdir(2) needs no right to list: assumed empty, as before
    return names.some((name) => {
      const child = `${path}/${name}`;
      return !gone.has(child) && states.get(child) !== null;
    });
  };
  if (!journal.failed) {
    const finished = finish(journal.ops, now, writeProblem, folderStays(new Set()), unreachable);
    if (finished) return { outcome: 'completed', changes: changesOf(finished.states, now), notRestored: finished.changed, staysFailed: false, temps };
  }
  return { ...rollBack(journal.ops, now, writeProblem, folderStays(new Set(temps)), unreachable), temps };
}

type FolderStays = (path: string, states: ReadonlyMap<string, EntryState>) => boolean;

/** A step removing a folder that applyOp's rmdir(2) leaves, as it is: it still holds something. */
const removesFolderThatStays = (op: RestoreOp, cur: EntryState, states: ReadonlyMap<string, EntryState>, folderStays: FolderStays) =>
  op.to === null && cur?.kind === 'dir' && folderStays(op.path, states);

/** Restorer.cleanTemps: the temp file of each write step (named by the journal's tag and the step), where one is left. */
function tempsOf(journal: Journal, now: Now): string[] {
  const out: string[] = [];
  journal.ops.forEach((op, i) => {
    if (op.to === null || op.to.kind === 'dir') return;
    const at = op.path.lastIndexOf('/');
    const temp = `${at < 0 ? '' : op.path.slice(0, at + 1)}${restoreTempName(journal.tag, i)}`;
    const cur = now(temp);
    if (cur !== null && cur !== 'unknown' && cur.kind !== 'dir') out.push(temp);
  });
  return out;
}

/** Restorer.finishGuarded, on states: undefined when a step could not be written (recovery then rolls back). */
function finish(
  ops: RestoreOp[],
  now: Now,
  writeProblem: WriteProblem,
  folderStays: FolderStays,
  unreachable: Unreachable,
): { states: Map<string, EntryState>; changed: SkippedFile[] } | undefined {
  const states = new Map<string, EntryState>();
  const changed: SkippedFile[] = [];
  const skipped = new Set<string>();
  for (const op of ops) {
    if (skipped.has(op.path)) continue;
    if (!states.has(op.path) && unreachable(op.path)) return undefined; // finishGuarded's currentState throws
    const cur = states.has(op.path) ? states.get(op.path)! : now(op.path);
    if (cur !== 'unknown' && sameState(cur, op.to)) continue;
    if (cur === 'unknown' || !(sameState(cur, op.from) || halfMadeFolder(cur, op.from, op.to))) {
      skipped.add(op.path);
      changed.push({ path: op.path, reason: 'changed since the interrupted rewind; left as it is now' });
      continue;
    }
    if (writeProblem(op.path, op.to) !== undefined) return undefined;
    if (removesFolderThatStays(op, cur, states, folderStays)) continue; // its write after finds the folder: left
    states.set(op.path, op.to);
  }
  return { states, changed };
}

/** Restorer.rollBackGuarded (without the steps of a run in this process), on states. */
function rollBack(ops: RestoreOp[], now: Now, writeProblem: WriteProblem, folderStays: FolderStays, unreachable: Unreachable): Omit<RecoveryForecast, 'temps'> {
  const byPath = new Map<string, { before: EntryState; wrote: EntryState[] }>();
  for (const op of ops) {
    const e = byPath.get(op.path);
    if (e) e.wrote.push(op.to);
    else byPath.set(op.path, { before: op.from, wrote: [op.to] });
  }
  const changes = new Map<string, EntryState>();
  const left: (SkippedFile & { retry?: boolean })[] = [];
  const back: RestoreOp[] = [];
  for (const [path, e] of byPath) {
    const cannot = unreachable(path);
    if (cannot) {
      left.push(cannot);
      continue;
    }
    const cur = now(path);
    if (cur !== 'unknown' && sameState(cur, e.before)) continue;
    if (cur === 'unknown' || !e.wrote.some((w) => sameState(cur, w) || halfMadeFolder(cur, e.before, w))) {
      left.push({ path, reason: 'changed since the rewind wrote it; left as it is now' });
      continue;
    }
    back.push({ path, from: cur, to: e.before });
  }
  // in the order the roll-back runs its steps, which is the order it reports those it could not take
  const staying = new Set<string>();
  for (const op of orderOps(back)) {
    const problem = writeProblem(op.path, op.to);
    if (problem !== undefined) left.push({ path: op.path, reason: problem, retry: true });
    else if (staying.has(op.path)) left.push({ path: op.path, reason: `${op.path} is a folder now; refusing to replace it` });
    else if (removesFolderThatStays(op, op.from, changes, folderStays)) staying.add(op.path);
    else changes.set(op.path, op.to);
  }
  const seen = new Set<string>();
  const once = left.filter((l) => !seen.has(l.path) && (seen.add(l.path), true));
  return {
    outcome: 'rolledBack',
    changes,
    notRestored: once.map(({ path, reason }) => ({ path, reason })),
    staysFailed: once.some((l) => l.retry),
  };
}

function changesOf(states: Map<string, EntryState>, now: Now): Map<string, EntryState> {
  const out = new Map<string, EntryState>();
  for (const [path, state] of states) {
    const cur = now(path);
    if (cur === 'unknown' || !sameState(cur, state)) out.set(path, state);
  }
  return out;
}
