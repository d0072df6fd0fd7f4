// Moving the active branch: the record is appended as a child of the new branch's leaf, so it becomes the file's
// last entry and a reader that takes "last entry = leaf" (pi, oh-my-pi) lands on the same path as we do.
import { v7 as uuidv7 } from 'uuid';
import { deriveBranches, type BranchesSnapshot, type BranchView } from './derive';
import { EntryIndex } from './entry-index';
import { nextBranchName } from './naming';
import { BRANCH_RECORD, onceWarn, type BranchMove, type Warn } from './records';
import { sessionCreatedAt, type SessionLike } from './session-like';

export function snapshotOf(session: SessionLike, warn: Warn): BranchesSnapshot {
  return deriveBranches(session.getEntries(), session.getLeafId(), { sessionId: session.sessionId, sessionCreatedAt: sessionCreatedAt(session), warn });
}

/** The record for a new branch `<active>-vN` ending at leafId. */
export function newBranchMove(session: SessionLike, snapshot: BranchesSnapshot, leafId: string | null, now: number): BranchMove {
  const taken = new Set(snapshot.branches.map((b) => b.name));
  return {
    op: 'create',
    name: nextBranchName(snapshot.active.name, taken),
    branchId: uuidv7(),
    headId: new EntryIndex(session.getEntries()).lastMessageTo(leafId),
    createdAt: now,
    from: leftBranch(snapshot.active),
  };
}

export function switchMove(_session: SessionLike, snapshot: BranchesSnapshot, target: BranchView, now: number): BranchMove {
  return { op: 'switch', name: target.name, branchId: target.id, headId: target.headMessageId, createdAt: now, from: leftBranch(snapshot.active) };
}

function leftBranch(active: BranchView): NonNullable<BranchMove['from']> {
  return { name: active.name, branchId: active.id, headId: active.headMessageId, leafId: active.leafId };
}

/** Moves the leaf to leafId and appends the record there (a custom entry: context building ignores it). */
export function placeUnder(session: SessionLike, leafId: string | null, customType: string, data: unknown): string {
  if (leafId === null) session.resetLeaf();
  else session.branch(leafId);
  return session.appendCustomEntry(customType, data);
}

export function appendBranchMove(session: SessionLike, leafId: string | null, move: BranchMove): string {
  return placeUnder(session, leafId, BRANCH_RECORD, move);
}

export { onceWarn };
