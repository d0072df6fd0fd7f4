// Two branches of one session side by side: where they part (the last entry both paths share), the messages each
// has after that, and the files that differ between each branch's latest file snapshot. Everything is read: the
// session (any agent's, Claude Code's included) and the snapshot store; the workspace is never looked at.
//
// A branch's latest snapshot is the last one on its path: the turn-end snapshot of the agent's last reply when there
// is one (our sessions take one at every assistant message: the files as the agent left them), else the snapshot of
// the last user message (taken when it was sent, before the agent acted; the only kind another agent's hook takes).
import type { BranchView } from '../branches/derive';
import { EntryIndex } from '../branches/entry-index';
import { BranchNotFoundError } from '../branches/errors';
import type { Warn } from '../branches/records';
import type { SnapshotRecord } from '../files/snapshot-records';
import type { FileCheckpoints } from '../files/types';
import type { SessionEntry } from '../session/types';
import { isForeignView, type SessionView } from '../sources/session-view';
import { agentName } from '../sources/registry';
import type { BranchCompareModel, BranchCompareSide, MessageRef } from '../../shared/view-models';
import { snapshotsByEntryFromRecords } from '../sources/file-anchors';
import { branchesOf } from '../sources/session-details';
import { kindOf, previewOf, toTranscriptItem } from '../transcript/transcript';

/** The most messages listed per side; the rest is counted in `omitted`. */
export const MAX_COMPARED_MESSAGES = 2000;

export interface CompareInputs {
  sessionRef: string;
  title: string;
  /** undefined: the session's folder is not open here, so its snapshots cannot be read. */
  checkpointer: FileCheckpoints | undefined;
  checkpointingEnabled: boolean;
  warn: Warn;
  maxMessages?: number;
}

export async function compareBranches(session: SessionView, nameA: string, nameB: string, inputs: CompareInputs): Promise<BranchCompareModel> {
  const snap = branchesOf(session, inputs.warn);
  const find = (name: string): BranchView => {
    const b = snap.branches.find((x) => x.name === name);
    if (!b) throw new BranchNotFoundError(name);
    return b;
  };
  const branchA = find(nameA);
  const branchB = find(nameB);
  const index = new EntryIndex(session.getEntries());
  const pathA = index.pathTo(branchA.leafId);
  const pathB = index.pathTo(branchB.leafId);
  let common = 0;
  while (common < pathA.length && common < pathB.length && pathA[common]!.id === pathB[common]!.id) common++;

  // The divergence point as a chat message: the shared entry may be a record (a branch move), so its nearest message.
  let divergence: MessageRef | null = null;
  for (let i = common - 1; i >= 0; i--) {
    const e = pathA[i]!;
    if (toTranscriptItem(e, {})) {
      divergence = ref(e);
      break;
    }
  }

  let snapshots = new Map<string, SnapshotRecord>();
  let snapshotError: string | undefined;
  if (!inputs.checkpointer) {
    snapshotError = `This session's folder (${session.cwd}) is not open here, so its file snapshots cannot be compared. Open that folder (or pass --workspace DIR).`;
  } else {
    try {
      const all = await inputs.checkpointer.listSnapshots(session.sessionId);
      snapshots = snapshotsByEntryFromRecords(session, all);
      // turn-end snapshots are keyed by the assistant message's own id (ours only: a foreign hook's keys are not ids)
      if (!isForeignView(session)) for (const r of all) if (r.kind === 'turn-end' && !snapshots.has(r.anchorId)) snapshots.set(r.anchorId, r);
    } catch (error) {
      snapshotError = `Cannot read the file snapshots of this session: ${(error as Error).message}`;
    }
  }

  const max = inputs.maxMessages ?? MAX_COMPARED_MESSAGES;
  const a = side(branchA, pathA, common, snapshots, max);
  const b = side(branchB, pathB, common, snapshots, max);
  const model: BranchCompareModel = {
    sessionId: session.sessionId,
    sessionRef: inputs.sessionRef,
    title: inputs.title,
    divergence,
    a: a.side,
    b: b.side,
    files: { ok: false, error: '' },
  };
  if (isForeignView(session)) model.readOnly = { agent: agentName(session.source) };
  model.files = await filesPart(session, a.record, b.record, a.side, b.side, snapshotError, inputs);
  return model;
}

function ref(e: SessionEntry): MessageRef {
  return { entryId: e.id, kind: kindOf(e), preview: previewOf(e) };
}

function side(
  branch: BranchView,
  path: readonly SessionEntry[],
  common: number,
  snapshots: ReadonlyMap<string, SnapshotRecord>,
  max: number,
): { side: BranchCompareSide; record: SnapshotRecord | undefined } {
  const after = path.slice(common).filter((e) => toTranscriptItem(e, {}) !== undefined);
  let record: SnapshotRecord | undefined;
  let snapshot: BranchCompareSide['snapshot'] = null;
  for (let i = path.length - 1; i >= 0; i--) {
    const r = snapshots.get(path[i]!.id);
    if (!r) continue;
    record = r;
    snapshot = {
      anchorEntryId: path[i]!.id,
      kind: r.kind === 'turn-end' ? 'turn-end' : 'user-message',
      preview: previewOf(path[i]!),
      files: r.files,
      createdAt: r.createdAt,
      afterDivergence: i >= common,
    };
    break;
  }
  return {
    side: {
      name: branch.name,
      isActive: branch.isActive,
      headEntryId: branch.headMessageId,
      messages: after.slice(0, max).map(ref),
      omitted: Math.max(0, after.length - max),
      snapshot,
    },
    record,
  };
}

async function filesPart(
  session: SessionView,
  recA: SnapshotRecord | undefined,
  recB: SnapshotRecord | undefined,
  a: BranchCompareSide,
  b: BranchCompareSide,
  snapshotError: string | undefined,
  inputs: CompareInputs,
): Promise<BranchCompareModel['files']> {
  if (snapshotError) return { ok: false, error: snapshotError };
  const none = [recA ? undefined : a.name, recB ? undefined : b.name].filter((n): n is string => n !== undefined);
  if (none.length) {
    const which = none.length === 2 ? `Neither branch ("${none[0]}", "${none[1]}") has` : `Branch "${none[0]}" has no`;
    const why = inputs.checkpointingEnabled
      ? 'its messages were recorded while file checkpointing was off, or the snapshots were removed'
      : 'file checkpointing is off';
    return { ok: false, error: `${which}${none.length === 2 ? ' a' : ''} file snapshot on its path (${why}), so their files cannot be compared.` };
  }
  if (recA!.anchorId === recB!.anchorId || recA!.root === recB!.root) {
    return { ok: true, files: [], insertions: 0, deletions: 0, sameSnapshot: recA!.anchorId === recB!.anchorId };
  }
  try {
    const files = await inputs.checkpointer!.diffSnapshots(session.sessionId, recA!.anchorId, recB!.anchorId);
    return {
      ok: true,
      files,
      insertions: files.reduce((n, f) => n + f.insertions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      sameSnapshot: false,
    };
  } catch (error) {
    return { ok: false, error: `Cannot compare the two snapshots: ${(error as Error).message}` };
  }
}
