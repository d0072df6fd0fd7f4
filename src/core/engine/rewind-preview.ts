// The dry run of "Rewind to here" on a user message: what happens to the conversation, to state and artifacts, and
// to the files. Never writes, never throws: every part that cannot be done says why, in words a user understands.
//
// It describes exactly what applyRewind does: the conversation moves to a new branch whose head is the message
// (docs/ARCHITECTURE.md, branches and checkpoints), so state and artifacts become what they are at that message, before its invocation ran (docs/ARCHITECTURE.md, state and artifacts);
// the files go back to the snapshot taken when the message was sent (docs/ARCHITECTURE.md, file checkpoints).
import { isDeepStrictEqual } from 'node:util';
import { EntryIndex } from '../branches/entry-index';
import { nextBranchName } from '../branches/naming';
import { findMessageInSiblingSessions } from '../branches/other-chats';
import type { Warn } from '../branches/records';
import type { FileCheckpoints, RecoveryFirst, RewindFilesOptions, TurnWrites } from '../files/types';
import { anchorCheckFor } from '../files/anchor-check';
import { FolderNotOpenError } from './folder-not-open';
import type { SessionView } from '../sources/session-view';
import { foldState } from '../state/fold';
import { scopeOf } from '../state/records';
import type { ArtifactChangePreview, RewindPreviewModel, StateChangePreview } from '../../shared/view-models';
import { branchesOf } from '../sources/session-details';
import { isUserMessage, kindOf, previewOf, toTranscriptItem } from '../transcript/transcript';

export interface PreviewInputs {
  session: SessionView;
  anchorEntryId: string;
  /** undefined: the session's folder is not open here, so its files cannot be rewound. */
  checkpointer: FileCheckpoints | undefined;
  /** What the checkpointer knows the message's snapshot by (the message id for our sessions; file-anchors.ts). */
  snapshotKey?: string;
  /** What agents' records say their tools wrote in the turns since (turn-writes.ts). */
  turnWrites?: TurnWrites[];
  /** Said with the files when the snapshot is not one of ours (made from the agent's own checkpoint). */
  filesNote?: string;
  /** What the real rewind settles first (RewindFilesOptions.settledFirst): the engine's rewind log's pending step. */
  settledFirst?: RewindFilesOptions['settledFirst'];
  /** Set when the conversation continues in a new session file of another agent instead of a branch here (or
   *  cannot be continued from this message at all). */
  fork?: { agent: string; resumeHint: string } | { error: string };
  checkpointingEnabled: boolean;
  warn: Warn;
}

type Part<T> = ({ ok: true } & T) | { ok: false; error: string };

/** Why the anchor cannot be rewound to, or undefined when it can. */
export async function anchorProblem(session: SessionView, anchorEntryId: string): Promise<string | undefined> {
  const entry = session.getEntry(anchorEntryId);
  if (!entry) {
    const other = session.sessionRef ? await findMessageInSiblingSessions(session.sessionRef, anchorEntryId).catch(() => undefined) : undefined;
    return other !== undefined
      ? `Message "${anchorEntryId}" belongs to a different chat (session ${other}); open that session to rewind to it.`
      : `Message "${anchorEntryId}" not found in this session.`;
  }
  // A named checkpoint marks any message (usually the agent's last reply): rewinding to it is the same preview, with
  // the conversation and state at that message; its files part says files go back only to a message you sent.
  if (!isUserMessage(entry) && !isNamedCheckpoint(session, anchorEntryId))
    return `Rewind to here works on your own messages; "${previewOf(entry)}" is a ${kindOf(entry)} entry.`;
  return undefined;
}

function isNamedCheckpoint(session: SessionView, entryId: string): boolean {
  return branchesOf(session, () => {}).checkpoints.some((c) => c.messageId === entryId);
}

export { anchorCheckFor };

export async function previewRewind(inputs: PreviewInputs): Promise<RewindPreviewModel> {
  const { session, anchorEntryId } = inputs;
  const anchor = session.getEntry(anchorEntryId);
  const base = { sessionId: session.sessionId, anchorEntryId, anchorPreview: anchor ? previewOf(anchor) : '' };
  let problem: string | undefined;
  try {
    problem = await anchorProblem(session, anchorEntryId);
  } catch (error) {
    problem = `Cannot read this session: ${(error as Error).message}`;
  }
  const files = await filesPart(inputs).catch((error) => failed(`Cannot preview the files: ${(error as Error).message}`));
  if (problem) return { ...base, conversation: failed(problem), state: failed(problem), files };
  return { ...base, conversation: safely(() => conversationPart(inputs)), state: safely(() => statePart(inputs)), files };
}

function failed(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function safely<T>(fn: () => Part<T>): Part<T> {
  try {
    return fn();
  } catch (error) {
    return failed((error as Error).message);
  }
}

function conversationPart({ session, anchorEntryId, warn, fork }: PreviewInputs): Part<{
  currentBranch: string;
  newBranchName: string;
  messagesLeftOnOldBranch: { entryId: string; kind: ReturnType<typeof kindOf>; preview: string }[];
  fork?: { agent: string; resumeHint: string };
}> {
  const snap = branchesOf(session, warn);
  const newBranchName = nextBranchName(snap.active.name, new Set(snap.branches.map((b) => b.name)));
  const path = session.getPath();
  const at = path.findIndex((e) => e.id === anchorEntryId);
  // Messages after the anchor stay on the current branch (nothing is deleted); a message on another branch leaves
  // the current branch untouched altogether.
  const after = at < 0 ? [] : path.slice(at + 1);
  const messagesLeftOnOldBranch = after
    .filter((e) => toTranscriptItem(e, {}) !== undefined)
    .map((e) => ({ entryId: e.id, kind: kindOf(e), preview: previewOf(e) }));
  if (fork && 'error' in fork) return failed(fork.error);
  if (fork) {
    // The new session holds the conversation up to just before the message; the message itself is offered again.
    const anchor = at < 0 ? [] : [path[at]!];
    const left = [...anchor, ...after]
      .filter((e) => toTranscriptItem(e, {}) !== undefined)
      .map((e) => ({ entryId: e.id, kind: kindOf(e), preview: previewOf(e) }));
    return { ok: true, currentBranch: snap.active.name, newBranchName: `a new ${fork.agent} session`, messagesLeftOnOldBranch: left, fork };
  }
  return { ok: true, currentBranch: snap.active.name, newBranchName, messagesLeftOnOldBranch };
}

function statePart({ session, anchorEntryId, warn }: PreviewInputs): Part<{ changes: StateChangePreview[]; artifacts: ArtifactChangePreview[] }> {
  const index = new EntryIndex(session.getEntries());
  const now = foldState(index.pathTo(session.getLeafId()), warn);
  const after = foldState(index.pathTo(anchorEntryId), warn);
  const text = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  const changes: StateChangePreview[] = [];
  for (const key of new Set([...now.state.keys(), ...after.state.keys()])) {
    const a = now.state.get(key);
    const b = after.state.get(key);
    if (isDeepStrictEqual(a, b)) continue;
    changes.push({ key, scope: scopeOf(key), now: text(a), after: text(b) });
  }
  const artifacts: ArtifactChangePreview[] = [];
  for (const name of new Set([...now.artifacts.keys(), ...after.artifacts.keys()])) {
    const a = now.artifacts.get(name)?.version ?? null;
    const b = after.artifacts.get(name)?.version ?? null;
    if (a !== b) artifacts.push({ name, currentVersion: a, restoredVersion: b });
  }
  changes.sort((x, y) => x.key.localeCompare(y.key));
  artifacts.sort((x, y) => x.name.localeCompare(y.name));
  return { ok: true, changes, artifacts };
}

async function filesPart({
  session,
  anchorEntryId,
  checkpointer,
  checkpointingEnabled,
  snapshotKey,
  filesNote,
  turnWrites,
  settledFirst,
}: PreviewInputs): Promise<RewindPreviewModel['files']> {
  if (!checkpointer) {
    return failed(`${new FolderNotOpenError(session.cwd, 'its files cannot be rewound here').message} Open that folder to rewind files.`);
  }
  const result = await checkpointer.rewindFiles(session.sessionId, snapshotKey ?? anchorEntryId, {
    dryRun: true,
    ...(turnWrites ? { turnWrites } : {}),
    ...(settledFirst ? { settledFirst } : {}),
    anchor: anchorCheckFor(session, anchorEntryId, checkpointingEnabled),
  });
  if (!result.canRewind) return failed(result.error ?? 'The files cannot be rewound to this message.');
  const userModified = new Set(result.userModified);
  return {
    ok: true,
    filesChanged: result.filesChanged,
    insertions: result.insertions,
    deletions: result.deletions,
    files: result.files.map((f) => ({ ...f, userModified: f.userModified || userModified.has(f.path) })),
    skipped: result.skipped,
    ...(filesNote ? { note: filesNote } : {}),
    ...(result.recoveryFirst ? { recoveryFirst: recoveryLine(result.recoveryFirst) } : {}),
  };
}

/** The preview's line about an interrupted rewind the real one settles first (the figures are from after it). */
export function recoveryLine({ action, paths }: RecoveryFirst): string {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return `An interrupted rewind is ${action} first (${paths.length === 1 ? '1 file' : `${paths.length} files`}: ${shown}); what is shown here is from after that.`;
}
