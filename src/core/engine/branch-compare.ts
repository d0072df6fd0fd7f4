// Two branches side by side: where they part (the last entry both paths share), the messages each has after that, and
// the files that differ between each branch's latest file snapshot. The two branches may be of one session or of two
// sessions of the folder: a session and its fork (a Claude Code or Codex fork is a separate session with one branch,
// its copied messages first) or any two. Across sessions the paths are compared message by message, a message being
// the same when it has the same id (a Claude Code fork keeps its uuids) or the same role and content (a Codex fork's
// ids are its own line numbers). Everything is read: the sessions (any agent's) and the snapshot store; the workspace
// is never looked at.
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
import { snapshotsByEntry } from '../sources/file-anchors';
import { branchesOf } from '../sources/session-details';
import { kindOf, previewOf, toTranscriptItem } from '../transcript/transcript';

/** The most messages listed per side; the rest is counted in `omitted`. */
export const MAX_COMPARED_MESSAGES = 2000;

/** One side of a comparison: a branch of a session. */
export interface CompareSideInput {
  session: SessionView;
  sessionRef: string;
  title: string;
  branch: string;
  /** undefined: the session's folder is not open here, so its snapshots cannot be read. */
  checkpointer: FileCheckpoints | undefined;
}

export interface CompareInputs {
  checkpointingEnabled: boolean;
  warn: Warn;
  maxMessages?: number;
}

export async function compareBranches(inA: CompareSideInput, inB: CompareSideInput, inputs: CompareInputs): Promise<BranchCompareModel> {
  const twoSessions = inA.sessionRef !== inB.sessionRef;
  const pathA = pathOf(inA, inputs.warn);
  const pathB = pathOf(inB, inputs.warn);
  const { commonA, commonB } = twoSessions ? sharedMessages(pathA.path, pathB.path) : sharedEntries(pathA.path, pathB.path);

  // The divergence point as a chat message: the shared entry may be a record (a branch move), so its nearest message.
  let divergence: MessageRef | null = null;
  for (let i = commonA - 1; i >= 0; i--) {
    const e = pathA.path[i]!;
    if (toTranscriptItem(e, {})) {
      divergence = ref(e);
      break;
    }
  }

  const snapsA = await snapshotsOf(inA);
  const snapsB = twoSessions ? await snapshotsOf(inB) : snapsA;
  const max = inputs.maxMessages ?? MAX_COMPARED_MESSAGES;
  const a = side(pathA.branch, pathA.path, commonA, snapsA.byEntry, max);
  const b = side(pathB.branch, pathB.path, commonB, snapsB.byEntry, max);
  if (twoSessions) {
    a.side.session = sessionOf(inA);
    b.side.session = sessionOf(inB);
  }
  const model: BranchCompareModel = {
    sessionId: inA.session.sessionId,
    sessionRef: inA.sessionRef,
    title: inA.title,
    divergence,
    a: a.side,
    b: b.side,
    files: { ok: false, error: '' },
  };
  const foreign = [inA.session, inB.session].find(isForeignView);
  if (foreign) model.readOnly = { agent: agentName(foreign.source) };
  const snapshotError = snapsA.error ?? snapsB.error ?? (twoSessions ? otherFolderError(inA, inB) : undefined);
  model.files = await filesPart(a.record, b.record, a.side, b.side, snapshotError, inA.checkpointer, inputs);
  return model;
}

function pathOf(input: CompareSideInput, warn: Warn): { branch: BranchView; path: SessionEntry[] } {
  const branch = branchesOf(input.session, warn).branches.find((x) => x.name === input.branch);
  if (!branch) throw new BranchNotFoundError(input.branch);
  return { branch, path: new EntryIndex(input.session.getEntries()).pathTo(branch.leafId) };
}

/** One session: the entries both paths start with (the same entries, by id). */
function sharedEntries(pathA: readonly SessionEntry[], pathB: readonly SessionEntry[]): { commonA: number; commonB: number } {
  let common = 0;
  while (common < pathA.length && common < pathB.length && pathA[common]!.id === pathB[common]!.id) common++;
  return { commonA: common, commonB: common };
}

/** Two sessions: the chat messages both paths start with; each count runs to just after the last shared message on
 *  its own path (records between messages are not compared: each agent writes its own). */
function sharedMessages(pathA: readonly SessionEntry[], pathB: readonly SessionEntry[]): { commonA: number; commonB: number } {
  const messages = (path: readonly SessionEntry[]) => path.flatMap((e, i) => (toTranscriptItem(e, {}) ? [i] : []));
  const atA = messages(pathA);
  const atB = messages(pathB);
  let shared = 0;
  while (shared < atA.length && shared < atB.length && sameMessage(pathA[atA[shared]!]!, pathB[atB[shared]!]!)) shared++;
  return shared === 0 ? { commonA: 0, commonB: 0 } : { commonA: atA[shared - 1]! + 1, commonB: atB[shared - 1]! + 1 };
}

function sameMessage(x: SessionEntry, y: SessionEntry): boolean {
  if (x.id === y.id) return true;
  if (x.type !== 'message' || y.type !== 'message') return false;
  const m = (e: typeof x) => (e as { message?: { role?: unknown; content?: unknown } }).message;
  return m(x)?.role === m(y)?.role && JSON.stringify(m(x)?.content) === JSON.stringify(m(y)?.content);
}

function sessionOf(input: CompareSideInput): NonNullable<BranchCompareSide['session']> {
  return { sessionRef: input.sessionRef, sessionId: input.session.sessionId, title: input.title };
}

/** Snapshots live in a store per folder: two sessions of different folders have no snapshots in common to diff. */
function otherFolderError(a: CompareSideInput, b: CompareSideInput): string | undefined {
  if (!a.checkpointer || !b.checkpointer || a.checkpointer.workspaceRoot === b.checkpointer.workspaceRoot) return undefined;
  return `The two sessions worked in different folders (${a.checkpointer.workspaceRoot} and ${b.checkpointer.workspaceRoot}), so their files cannot be compared.`;
}

/** A session's file snapshots by the message they belong to (a fork's copied prompts find the origin's snapshots). */
async function snapshotsOf(input: CompareSideInput): Promise<{ byEntry: Map<string, SnapshotRecord>; error?: string }> {
  const { session, checkpointer } = input;
  if (!checkpointer) {
    return {
      byEntry: new Map(),
      error: `This session's folder (${session.cwd}) is not open here, so its file snapshots cannot be compared. Open that folder (or pass --workspace DIR).`,
    };
  }
  try {
    const byEntry = await snapshotsByEntry(session, checkpointer);
    // turn-end snapshots are keyed by the assistant message's own id (ours only: a foreign hook's keys are not ids)
    if (!isForeignView(session)) {
      for (const r of await checkpointer.listSnapshots(session.sessionId)) if (r.kind === 'turn-end' && !byEntry.has(r.anchorId)) byEntry.set(r.anchorId, r);
    }
    return { byEntry };
  } catch (error) {
    return { byEntry: new Map(), error: `Cannot read the file snapshots of this session: ${(error as Error).message}` };
  }
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
  recA: SnapshotRecord | undefined,
  recB: SnapshotRecord | undefined,
  a: BranchCompareSide,
  b: BranchCompareSide,
  snapshotError: string | undefined,
  checkpointer: FileCheckpoints | undefined,
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
  const sameSnapshot = recA!.sessionId === recB!.sessionId && recA!.anchorId === recB!.anchorId;
  if (sameSnapshot || recA!.root === recB!.root) return { ok: true, files: [], insertions: 0, deletions: 0, sameSnapshot };
  try {
    const files = await checkpointer!.diffSnapshots(recA!, recB!);
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
