// Undo and redo of a whole rewind: the folder's rewind log (rewind-log.ts) says what the last rewind changed, so undo
// puts back the files and the branch the session was on (the branch it made stays), and redo applies both again.
// A session's undo takes the last step made in it (or in its origin, as the fork it now is); the folder's undo (the
// palette's) takes the last step made in the folder, whichever session is active.
// A log step whose file undo count no longer matches was overtaken by a file rewind made outside it: then only the
// files are undone, as before, and the session's steps are dropped rather than replayed over other changes.
import type { FileCheckpoints } from '../files/types';
import { anchorCheckFor } from '../files/anchor-check';
import { isForeignView, type SessionView } from '../sources/session-view';
import { filesAnchorOf } from '../sources/file-anchors';
import { FolderNotOpenError } from './folder-not-open';
import { ofSession, withRedone, withUndone, withoutSession, type FolderRewindLog, type PendingRewind, type RewindStep } from './rewind-log';
import { filesTopOf, settlePending } from './rewind-recovery';
import type { UndoContext } from './undo-context';
import { choiceOfLoggedStep, choiceOptions } from './files-choice';

export interface UndoOutcome {
  filesChanged: string[];
  /** Files changed by hand since the rewind: left as they are. */
  userModified: string[];
  /** The branch the session is on now, when the conversation moved too. */
  branch?: string;
  redoAvailable?: boolean;
  /** The session whose rewind was undone or redone (the one it was made in). */
  sessionRef?: string;
}

/** Runs fn holding the folder's rewind log, after settling what a killed process left in it (rewind-recovery.ts). */
export function withFolderLog<T>(ctx: UndoContext, folder: string, fn: (log: FolderRewindLog) => Promise<T>): Promise<T> {
  return ctx.log.locked(folder, async () => fn(await settlePending(ctx, folder, await ctx.log.read(folder))));
}

/**
 * Runs one rewind, undo or redo as a journaled operation of the folder's log: `pending` is written first, `act` moves
 * the files and the branch, and the log it returns is written in its place (clearing `pending`) in one atomic write.
 * When act fails, what it did is settled at once as after a crash (rolled back, or finished when its files moved).
 */
export async function journaled<T>(
  ctx: UndoContext,
  folder: string,
  log: FolderRewindLog,
  pending: Omit<PendingRewind, 'startedAt'>,
  act: () => Promise<{ result: T; log: FolderRewindLog }>,
): Promise<T> {
  const started: FolderRewindLog = { ...log, pending: { ...pending, startedAt: new Date().toISOString() } };
  await ctx.log.write(folder, started);
  let done: { result: T; log: FolderRewindLog };
  try {
    done = await act();
  } catch (error) {
    await settlePending(ctx, folder, started).catch((settleError) =>
      ctx.warn(`The failed operation could not be settled yet; the next one will try again: ${(settleError as Error).message}`),
    );
    throw error;
  }
  await ctx.log.write(folder, done.log);
  return done.result;
}

/** How many file undos the session has (each keeps one pre-restore snapshot until it is undone). */
export async function undoDepthOf(cp: FileCheckpoints, sessionId: string): Promise<number> {
  return (await cp.undoStack(sessionId)).length;
}

/** The last logged rewind matching `match`, while it still describes the files. */
async function currentStep(ctx: UndoContext, log: FolderRewindLog, match: (s: RewindStep) => boolean): Promise<RewindStep | undefined> {
  const step = [...log.undo].reverse().find(match);
  if (!step) return undefined;
  if (!step.files) return step;
  const cp = ctx.checkpointerOf(await ctx.view(step.sessionRef));
  if (!cp || (await undoDepthOf(cp, step.sessionId)) !== step.undoDepth) return undefined;
  return step;
}

export async function describeUndo(ctx: UndoContext, session: SessionView): Promise<string | undefined> {
  const step = await currentStep(ctx, await ctx.log.read(ctx.folderOf(session)), ofSession(session));
  if (!step) return undefined;
  const parts: string[] = [];
  if (step.files) parts.push('put the files back as they were before the rewind');
  if (step.mode !== 'files' && step.fromBranch) parts.push(`return to branch "${step.fromBranch}" (branch "${step.toBranch}" stays)`);
  if (step.forkRef) parts.push('keep the new session that was written');
  return parts.length ? `Undo will ${parts.join(' and ')}.` : undefined;
}

/** Undoes the last rewind of the session (made in it, or in its origin as this fork). */
export async function undoLastRewind(ctx: UndoContext, sessionRef: string, session: SessionView): Promise<UndoOutcome> {
  const folder = ctx.folderOf(session);
  return withFolderLog(ctx, folder, async (log) => {
    const step = await currentStep(ctx, log, ofSession(session));
    if (step) return undoStep(ctx, folder, log, step);
    // not (or no longer) described by the log: the session's last file rewind alone
    const cp = ctx.checkpointerOf(session);
    if (!cp) throw new FolderNotOpenError(session.cwd, 'there is no file rewind to undo here');
    const result = await cp.undoLastRewind(session.sessionId);
    await ctx.log.write(folder, withoutSession(log, ofSession(session)));
    return { filesChanged: result.filesChanged, userModified: result.userModified, sessionRef };
  });
}

/** Undoes the last rewind made in any of these folders (the newest of their logs' last steps); undefined when their
 *  logs hold none. */
export async function undoLastRewindIn(ctx: UndoContext, folders: readonly string[]): Promise<UndoOutcome | undefined> {
  const folder = await newestFolder(ctx, folders, 'undo');
  if (!folder) return undefined;
  return withFolderLog(ctx, folder, async (log) => {
    const last = log.undo.at(-1);
    if (!last) throw new Error('There is no rewind to undo in this workspace.');
    const step = await currentStep(ctx, log, (s) => s.id === last.id);
    if (step) return undoStep(ctx, folder, log, step);
    // its files were changed outside the log since: undo that session's last file rewind alone, as a session's undo does
    const session = await ctx.view(last.sessionRef);
    const cp = ctx.checkpointerOf(session);
    if (!cp) throw new FolderNotOpenError(session.cwd, 'there is no file rewind to undo here');
    const result = await cp.undoLastRewind(session.sessionId);
    await ctx.log.write(folder, withoutSession(log, ofSession(session)));
    return { filesChanged: result.filesChanged, userModified: result.userModified, sessionRef: last.sessionRef };
  });
}

async function undoStep(ctx: UndoContext, folder: string, log: FolderRewindLog, step: RewindStep): Promise<UndoOutcome> {
  const origin = await ctx.view(step.sessionRef);
  const cp = step.files ? ctx.checkpointerOf(origin) : undefined;
  if (step.files && !cp) throw new FolderNotOpenError(origin.cwd, 'there is no file rewind to undo here');
  const filesTop = step.files ? await filesTopOf(cp, step.sessionId) : undefined;
  return journaled(ctx, folder, log, { op: 'undo', step, ...(filesTop ? { filesTop } : {}) }, async () => {
    let files = { filesChanged: [] as string[], userModified: [] as string[] };
    if (cp) files = await cp.undoLastRewind(step.sessionId);
    let branch: string | undefined;
    if (step.mode !== 'files' && step.fromBranch && !isForeignView(origin)) branch = (await ctx.switchBranch(step.sessionRef, step.fromBranch)).name;
    return {
      result: {
        filesChanged: files.filesChanged,
        userModified: files.userModified,
        ...(branch ? { branch } : {}),
        redoAvailable: true,
        sessionRef: step.sessionRef,
      },
      log: withUndone(log, step.id),
    };
  });
}

/** Applies the last undone rewind of the session again. */
export async function redoRewind(ctx: UndoContext, session: SessionView): Promise<UndoOutcome> {
  const folder = ctx.folderOf(session);
  return withFolderLog(ctx, folder, async (log) => {
    const step = [...log.redo].reverse().find(ofSession(session));
    if (!step) throw new Error('There is no undone rewind to redo in this session.');
    return redoStep(ctx, folder, log, step);
  });
}

/** Applies the last undone rewind of any of these folders again; undefined when their logs hold none. */
export async function redoRewindIn(ctx: UndoContext, folders: readonly string[]): Promise<UndoOutcome | undefined> {
  const folder = await newestFolder(ctx, folders, 'redo');
  if (!folder) return undefined;
  return withFolderLog(ctx, folder, async (log) => {
    const step = log.redo.at(-1);
    if (!step) throw new Error('There is no undone rewind to redo in this workspace.');
    return redoStep(ctx, folder, log, step);
  });
}

async function redoStep(ctx: UndoContext, folder: string, log: FolderRewindLog, step: RewindStep): Promise<UndoOutcome> {
  const origin = await ctx.view(step.sessionRef);
  const cp = ctx.checkpointerOf(origin);
  if (step.files && !cp) throw new FolderNotOpenError(origin.cwd, 'its files cannot be rewound here');
  const key = step.files && cp ? (await filesAnchorOf(origin, step.anchorEntryId, cp)).key : undefined;
  const filesTop = step.files ? await filesTopOf(cp, step.sessionId) : undefined;
  return journaled(ctx, folder, log, { op: 'redo', step, ...(filesTop ? { filesTop } : {}) }, async () => {
    let files = { filesChanged: [] as string[], userModified: [] as string[] };
    if (cp && key !== undefined) {
      files = await cp.rewindFiles(step.sessionId, key, {
        anchor: anchorCheckFor(origin, step.anchorEntryId, ctx.checkpointingEnabled),
        ...choiceOptions(choiceOfLoggedStep(step)),
        turnWrites: await ctx.turnWrites(origin, step.sessionRef, cp, key),
      });
    }
    let branch: string | undefined;
    if (step.mode !== 'files' && step.toBranch && !isForeignView(origin)) branch = (await ctx.switchBranch(step.sessionRef, step.toBranch)).name;
    const depth = step.files && cp ? await undoDepthOf(cp, step.sessionId) : step.undoDepth;
    const next = withRedone(log, step.id, depth);
    return {
      result: {
        filesChanged: files.filesChanged,
        userModified: files.userModified,
        ...(branch ? { branch } : {}),
        redoAvailable: next.redo.length > 0,
        sessionRef: step.sessionRef,
      },
      log: next,
    };
  });
}

/** Of these folders, the one whose last step (to undo, or undone to redo) is the newest. */
async function newestFolder(ctx: UndoContext, folders: readonly string[], which: 'undo' | 'redo'): Promise<string | undefined> {
  let best: { folder: string; at: string } | undefined;
  for (const folder of new Set(folders)) {
    const step = (await ctx.log.read(folder))[which].at(-1);
    if (step && (!best || step.at > best.at)) best = { folder, at: step.at };
  }
  return best?.folder;
}
