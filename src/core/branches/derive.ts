// Branches and checkpoints are derived from the session's entries on every read: the file is the only source of
// truth, so two processes (or pi) writing the same file never disagree with a cache.
//
// - The active branch is named by the nearest branch-moving record on the path root → leaf; with none, it is `main`.
//   Its head is the last `message` on that path, so it advances as messages are appended.
// - An inactive branch keeps the leaf recorded when it was left (or created); its head is the last message on the
//   path to that leaf.
// - Childless entries that no branch ends at (tips made in pi's /tree, explorations abandoned by the agent's rewind
//   tool) are listed as `tip-<entryId>`; switching to one names it for good.
import { v5 as uuidv5 } from 'uuid';
import type { SessionEntry } from '../session/types';
import { EntryIndex } from './entry-index';
import { tipBranchName } from './naming';
import { CHECKPOINT_RECORD, checkpointRecordSchema, isCustomEntry, readBranchMove, readRecord, type Warn } from './records';

/** A branch as the API returns it (docs/API.md, Extension API). headMessageId is null only for a branch that has no message yet. */
export interface BranchInfo {
  id: string;
  name: string;
  headMessageId: string | null;
  isActive: boolean;
  messageCount: number;
  createdAt: number;
}

export interface BranchView extends BranchInfo {
  /** Where the branch's path ends; moving to the branch appends the record under this entry. */
  leafId: string | null;
  /** named: from a record; implicit: `main` of a file without records; tip: an unnamed tip of the tree. */
  kind: 'named' | 'implicit' | 'tip';
}

export interface CheckpointInfo {
  id: string;
  name: string;
  messageId: string;
  createdAt: number;
}

export interface BranchesSnapshot {
  active: BranchView;
  /** main first, then named branches in the order they were created, then unnamed tips in file order. */
  branches: BranchView[];
  checkpoints: CheckpointInfo[];
}

export interface DeriveOptions {
  sessionId: string;
  /** ms since epoch; the implicit `main` was created with the session. */
  sessionCreatedAt: number;
  warn: Warn;
}

export const MAIN_BRANCH = 'main';
const BRANCH_ID_NAMESPACE = '6f1b7c2e-3a4d-4e8b-9c1f-2d5e6a7b8c9d';

/** Stable across processes, so `main` keeps its id before and after it is first written in a record. */
export function implicitBranchId(sessionId: string, name: string): string {
  return uuidv5(`${sessionId}/${name}`, BRANCH_ID_NAMESPACE);
}

export function toBranchInfo(view: BranchView): BranchInfo {
  const { id, name, headMessageId, isActive, messageCount, createdAt } = view;
  return { id, name, headMessageId, isActive, messageCount, createdAt };
}

interface Slot {
  id: string;
  name: string;
  createdAt: number;
  leafId: string | null;
  recordedHeadId: string | null;
  kind: BranchView['kind'];
}

export function deriveBranches(entries: readonly SessionEntry[], leafId: string | null, opts: DeriveOptions): BranchesSnapshot {
  const index = new EntryIndex(entries);
  const slots = new Map<string, Slot>();
  const slot = (name: string, id: string, createdAt: number): Slot => {
    let s = slots.get(name);
    if (!s) {
      s = { id, name, createdAt, leafId: null, recordedHeadId: null, kind: 'named' };
      slots.set(name, s);
    }
    return s;
  };

  const checkpoints = new Map<string, CheckpointInfo>();
  for (const entry of entries) {
    const move = readBranchMove(entry, opts.warn);
    if (move) {
      if (move.from) {
        const left = slot(move.from.name, move.from.branchId, move.from.name === MAIN_BRANCH ? opts.sessionCreatedAt : move.createdAt);
        left.leafId = move.from.leafId;
        left.recordedHeadId = move.from.headId;
      }
      const target = slot(move.name, move.branchId, move.createdAt);
      target.leafId = entry.id;
      target.recordedHeadId = move.headId;
      continue;
    }
    if (isCustomEntry(entry, CHECKPOINT_RECORD)) applyCheckpointRecord(checkpoints, entry, opts.warn);
  }

  let activeName = MAIN_BRANCH;
  let activeId: string | undefined;
  const path = index.pathTo(leafId);
  for (let i = path.length - 1; i >= 0; i--) {
    const move = readBranchMove(path[i]!, () => {});
    if (move) {
      activeName = move.name;
      activeId = move.branchId;
      break;
    }
  }
  const recorded = slots.has(activeName);
  const activeSlot = slot(activeName, activeId ?? implicitBranchId(opts.sessionId, activeName), opts.sessionCreatedAt);
  if (!recorded) activeSlot.kind = 'implicit';
  activeSlot.leafId = leafId;

  const views: BranchView[] = [];
  const leaves = new Set<string>();
  const heads = new Set<string>();
  for (const s of slots.values()) {
    const known = s.leafId !== null && index.get(s.leafId) !== undefined;
    // A leaf that vanished (hand edit) falls back to the recorded head, if that still exists.
    const effectiveLeaf = known ? s.leafId : s.recordedHeadId !== null && index.get(s.recordedHeadId) ? s.recordedHeadId : null;
    const headMessageId = index.lastMessageTo(effectiveLeaf);
    if (!known && s.leafId !== null) opts.warn(`Branch "${s.name}" ends at missing entry ${s.leafId}; using ${effectiveLeaf ?? 'the root'}`);
    views.push({
      id: s.id,
      name: s.name,
      headMessageId,
      isActive: s === activeSlot,
      messageCount: index.messageCountTo(effectiveLeaf),
      createdAt: s.createdAt,
      leafId: effectiveLeaf,
      kind: s.kind,
    });
    if (effectiveLeaf) leaves.add(effectiveLeaf);
    if (headMessageId) heads.add(headMessageId);
  }
  views.sort((a, b) => (a.name === MAIN_BRANCH ? -1 : b.name === MAIN_BRANCH ? 1 : 0));

  for (const entry of entries) {
    if (index.hasChildren(entry.id) || leaves.has(entry.id)) continue;
    const headMessageId = index.lastMessageTo(entry.id);
    if (headMessageId === null || heads.has(headMessageId)) continue;
    heads.add(headMessageId);
    const name = tipBranchName(entry.id);
    views.push({
      id: implicitBranchId(opts.sessionId, name),
      name,
      headMessageId,
      isActive: false,
      messageCount: index.messageCountTo(entry.id),
      createdAt: Date.parse(entry.timestamp) || opts.sessionCreatedAt,
      leafId: entry.id,
      kind: 'tip',
    });
  }

  const active = views.find((v) => v.isActive)!;
  return { active, branches: views, checkpoints: [...checkpoints.values()] };
}

function applyCheckpointRecord(checkpoints: Map<string, CheckpointInfo>, entry: SessionEntry & { customType: string }, warn: Warn): void {
  const record = readRecord(entry as never, checkpointRecordSchema, warn);
  if (!record) return;
  if (record.op === 'set') {
    checkpoints.set(record.name, { id: record.checkpointId, name: record.name, messageId: record.messageId, createdAt: record.createdAt });
  } else if (record.op === 'delete') {
    checkpoints.delete(record.name);
  } else {
    const existing = checkpoints.get(record.name);
    if (!existing) return warn(`Ignoring rename of unknown checkpoint "${record.name}" in record ${entry.id}`);
    checkpoints.delete(record.name);
    checkpoints.set(record.newName, { ...existing, name: record.newName });
  }
}
