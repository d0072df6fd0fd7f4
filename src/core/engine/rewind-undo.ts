// Undo and redo of a whole "Rewind to here": the rewind log (rewind-log.ts) says what the last rewind changed, so
// undo puts back the files and the branch the session was on (the branch it made stays), and redo applies both again.
// A log step whose file undo count no longer matches was overtaken by a file rewind made outside it: then only the
// files are undone, as before, and the log is cleared rather than replayed over other changes.
import type { FileCheckpoints } from '../files/types';
import { anchorCheckFor } from '../files/anchor-check';
import type { BranchInfo } from '../branches/derive';
import { isForeignView, type SessionView } from '../sources/session-view';
import { filesAnchorOf } from '../sources/file-anchors';
import { FolderNotOpenError } from './folder-not-open';
import type { RewindLog, RewindStep } from './rewind-log';

export interface UndoOutcome {
  filesChanged: string[];
  /** Files changed by hand since the rewind: left as they are. */
  userModified: string[];
  /** The branch the session is on now, when the conversation moved too. */
  branch?: string;
  redoAvailable?: boolean;
}

export interface UndoContext {
  log: RewindLog;
  checkpointerOf(session: SessionView): FileCheckpoints | undefined;
  switchBranch(sessionFile: string, name: string): Promise<BranchInfo>;
  checkpointingEnabled: boolean;
}

/** How many file undos the session has (each keeps one pre-restore snapshot until it is undone). */
export async function undoDepthOf(cp: FileCheckpoints, sessionId: string): Promise<number> {
  return (await cp.listSnapshots(sessionId)).filter((r) => r.kind === 'pre-restore').length;
}

/** The last logged rewind of the session, while it still describes the files. */
async function currentStep(ctx: UndoContext, session: SessionView): Promise<RewindStep | undefined> {
  const step = await ctx.log.lastApplied(session.sessionId);
  if (!step) return undefined;
  const cp = step.files ? ctx.checkpointerOf(session) : undefined;
  if (step.files && (!cp || (await undoDepthOf(cp, session.sessionId)) !== step.undoDepth)) return undefined;
  return step;
}

export async function describeUndo(ctx: UndoContext, session: SessionView): Promise<string | undefined> {
  const step = await currentStep(ctx, session);
  if (!step) return undefined;
  const parts: string[] = [];
  if (step.files) parts.push('put the files back as they were before the rewind');
  if (step.mode !== 'files' && step.fromBranch) parts.push(`return to branch "${step.fromBranch}" (branch "${step.toBranch}" stays)`);
  if (step.forkFile) parts.push('keep the new session that was written');
  return parts.length ? `Undo will ${parts.join(' and ')}.` : undefined;
}

export async function undoLastRewind(ctx: UndoContext, sessionFile: string, session: SessionView): Promise<UndoOutcome> {
  const cp = ctx.checkpointerOf(session);
  const step = await currentStep(ctx, session);
  if (!step) {
    if (!cp) throw new FolderNotOpenError(session.cwd, 'there is no file rewind to undo here');
    const result = await cp.undoLastRewind(session.sessionId);
    await ctx.log.clear(session.sessionId);
    return { filesChanged: result.filesChanged, userModified: result.userModified };
  }
  let files = { filesChanged: [] as string[], userModified: [] as string[] };
  if (step.files) files = await cp!.undoLastRewind(session.sessionId);
  let branch: string | undefined;
  if (step.mode !== 'files' && step.fromBranch && !isForeignView(session)) branch = (await ctx.switchBranch(sessionFile, step.fromBranch)).name;
  await ctx.log.undone(session.sessionId);
  return { filesChanged: files.filesChanged, userModified: files.userModified, ...(branch ? { branch } : {}), redoAvailable: true };
}

export async function redoRewind(ctx: UndoContext, sessionFile: string, session: SessionView): Promise<UndoOutcome> {
  const step = await ctx.log.lastUndone(session.sessionId);
  if (!step) throw new Error('There is no undone rewind to redo in this session.');
  const cp = ctx.checkpointerOf(session);
  let files = { filesChanged: [] as string[], userModified: [] as string[] };
  if (step.files) {
    if (!cp) throw new FolderNotOpenError(session.cwd, 'its files cannot be rewound here');
    files = await cp.rewindFiles(session.sessionId, (await filesAnchorOf(session, step.anchorEntryId, cp)).key, {
      anchor: anchorCheckFor(session, step.anchorEntryId, ctx.checkpointingEnabled),
    });
  }
  let branch: string | undefined;
  if (step.mode !== 'files' && step.toBranch && !isForeignView(session)) branch = (await ctx.switchBranch(sessionFile, step.toBranch)).name;
  await ctx.log.redone(session.sessionId, cp ? await undoDepthOf(cp, session.sessionId) : 0);
  return { filesChanged: files.filesChanged, userModified: files.userModified, ...(branch ? { branch } : {}), redoAvailable: false };
}
