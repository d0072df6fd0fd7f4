// Files and conversation move together, or are recovered together (issue 22). A rewind, an undo or a redo first
// writes what it is about to do into the folder's rewind log (`pending`), then moves the files (the checkpoint store's
// own journal makes that step whole: after a crash it is finished on the next store operation), then the branch, and
// ends by writing the finished step in the same atomic write that clears `pending`. A process killed in between
// leaves `pending`, and the next rewind, undo, redo or branch switch of the folder settles it before anything else:
//  - a rewind is rolled back: its files are put back if they moved (the store's undo record of it exists), and the
//    session returns to the branch it was on; a fork it may have written stays, as a new session;
//  - an undo or a redo is rolled forward when its files moved (or it had none): the branch is switched as it would
//    have been, and the step moves as it would have; when its files did not move, nothing happened and it is dropped.
// Whether the files moved is read from the session's file undos once the store's journal is recovered: a rewind
// pushes one, an undo pops the one its step made.
import type { FileCheckpoints, RewindFilesOptions } from '../files/types';
import { isForeignView, type SessionView } from '../sources/session-view';
import { branchesOf } from '../sources/session-details';
import { withRedone, withUndone, type FolderRewindLog, type PendingRewind } from './rewind-log';
import type { UndoContext } from './undo-context';

/** Settles a rewind, undo or redo a killed process left in the log; returns the log as it is afterwards. Run holding
 *  the folder's log lock. */
export async function settlePending(ctx: UndoContext, folder: string, log: FolderRewindLog): Promise<FolderRewindLog> {
  const pending = log.pending;
  if (!pending) return log;
  const { pending: _done, ...rest } = log;
  let next: FolderRewindLog = rest;
  try {
    next = await settle(ctx, log, pending, rest);
  } catch (error) {
    // the session or its folder cannot be reached now: keep the record, so the next command tries again
    throw new Error(`An interrupted rewind of this folder could not be finished yet: ${(error as Error).message}`);
  }
  await ctx.log.write(folder, next);
  return next;
}

async function settle(ctx: UndoContext, log: FolderRewindLog, pending: PendingRewind, settled: FolderRewindLog): Promise<FolderRewindLog> {
  const { step } = pending;
  const session = await ctx.view(step.sessionRef);
  const cp = ctx.checkpointerOf(session);
  const stack = step.mode !== 'conversation' && cp ? await cp.undoStack(step.sessionId) : undefined;
  if (pending.op === 'apply') {
    if (stack && stack.at(-1) !== pending.filesTop) await cp!.undoLastRewind(step.sessionId);
    if (step.fromBranch && !isForeignView(session) && activeBranch(session, ctx) !== step.fromBranch) await ctx.switchBranch(step.sessionRef, step.fromBranch);
    return settled;
  }
  if (pending.op === 'undo') {
    if (!log.undo.some((s) => s.id === step.id)) return settled;
    const filesMoved = !step.files || (stack !== undefined && pending.filesTop !== undefined && !stack.includes(pending.filesTop));
    if (!filesMoved) return settled;
    if (step.mode !== 'files' && step.fromBranch && !isForeignView(session)) await ctx.switchBranch(step.sessionRef, step.fromBranch);
    return withUndone(settled, step.id);
  }
  if (!log.redo.some((s) => s.id === step.id)) return settled;
  const filesMoved = !step.files || (stack !== undefined && stack.at(-1) !== pending.filesTop);
  if (!filesMoved) return settled;
  if (step.mode !== 'files' && step.toBranch && !isForeignView(session)) await ctx.switchBranch(step.sessionRef, step.toBranch);
  return withRedone(settled, step.id, stack?.length ?? step.undoDepth);
}

function activeBranch(session: SessionView, ctx: UndoContext): string {
  return branchesOf(session, ctx.warn).active.name;
}

/** The session's newest file undo (its pre-restore anchor), as the journal records it before an operation. */
export async function filesTopOf(cp: FileCheckpoints | undefined, sessionId: string): Promise<string | undefined> {
  return cp ? (await cp.undoStack(sessionId)).at(-1) : undefined;
}

/** What settling the folder's log does to the files before a rewind plans them, as its dry run is told (read only):
 *  the store's recovery runs in that earlier step, and a rewind left pending is taken back when its files moved. */
export async function settledFirstOf(ctx: UndoContext, folder: string): Promise<NonNullable<RewindFilesOptions['settledFirst']>> {
  const pending = (await ctx.log.read(folder)).pending;
  if (pending?.op !== 'apply' || pending.step.mode === 'conversation') return {};
  return { undoRewindOf: { sessionId: pending.step.sessionId, ...(pending.filesTop ? { filesTop: pending.filesTop } : {}) } };
}
