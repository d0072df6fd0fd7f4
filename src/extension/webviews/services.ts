// What the webview panels need from the rest of the extension. The panels (webviews/) only render and relay;
// the engine facade (src/core/engine) does the work, and src/extension wires one to the other.
import type * as vscode from 'vscode';
import type {
  BranchCompareModel,
  EntryLocation,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  TranscriptItem,
  TranscriptModel,
} from '../../shared/view-models';

/** Identifies a session everywhere in the extension: its .jsonl file (ours, pi's or oh-my-pi's). */
export interface SessionRef {
  sessionFile: string;
}

export interface TranscriptServices {
  /** The session as chat rows: its active branch, or `branch` of a read-only session (another agent's). */
  loadTranscript(ref: SessionRef, opts?: { branch?: string }): Promise<{ model: TranscriptModel; items: TranscriptItem[] }>;
  /** Where a message is (active branch, another branch, not in the session), for revealing it. */
  locateEntry(ref: SessionRef, entryId: string): Promise<EntryLocation>;
  /** Fires when the session file changes on disk (another process appended, a branch switch, ...). */
  onDidChangeSession(ref: SessionRef, listener: () => void): vscode.Disposable;
  switchBranch(ref: SessionRef, branchName: string): Promise<void>;
  /** Opens the rewind preview for a user message (changes nothing by itself). */
  previewRewind(ref: SessionRef, entryId: string): Promise<void>;
  fork(ref: SessionRef, entryId: string): Promise<void>;
  label(ref: SessionRef, entryId: string): Promise<void>;
  /** Opens Compare branches for the session, `branch` (the one shown) as one side; asks for the other. */
  compareBranches(ref: SessionRef, branch: string | undefined): Promise<void>;
}

export interface PreviewServices {
  /** A dry run of everything "Rewind to here" would do; never throws, never writes. */
  preview(ref: SessionRef, anchorEntryId: string): Promise<RewindPreviewModel>;
  /** Runs the rewind the user confirmed. Throws with a user-readable message when it cannot. */
  apply(ref: SessionRef, anchorEntryId: string, mode: RewindMode, options: { overwriteUserModified: boolean }): Promise<RewindOutcome>;
  /** Opens VS Code's diff editor: the file at the anchor (read-only) against the file now. */
  openFileDiff(ref: SessionRef, anchorEntryId: string, relPath: string): Promise<void>;
  /** Closes the diff editors openFileDiff opened for this message (after a rewind their "now" side is stale). */
  closeFileDiffs(ref: SessionRef, anchorEntryId: string): Promise<void>;
  /** What Undo would do now, in one sentence ("Undo will …"); undefined when there is nothing to undo. */
  describeUndo(ref: SessionRef): Promise<string | undefined>;
}

/** Two branches compared (the Compare branches panel): A of `sessionFile`, B of `sessionFileB` when set (another
 *  session of the workspace: a fork, its origin, any other), else of the same session. */
export interface CompareRef extends SessionRef {
  branchA: string;
  branchB: string;
  sessionFileB?: string;
}

/** One side of an opened file diff: a branch's snapshot, in its session. */
export interface CompareSideRef {
  sessionFile: string;
  branch: string;
  anchorEntryId: string;
}

export interface CompareServices {
  /** Where the branches part, each one's messages after that, the files that differ. Throws for an unknown branch. */
  compare(ref: CompareRef): Promise<BranchCompareModel>;
  /** VS Code's diff editor: the file at A's snapshot ↔ at B's (read-only; a side without the file is empty). */
  openBranchFileDiff(a: CompareSideRef, b: CompareSideRef, relPath: string): Promise<void>;
  /** The transcript of a session, at a message. */
  openMessage(ref: SessionRef, entryId: string): Promise<void>;
  /** Fires when the session file changes on disk. */
  onDidChangeSession(ref: SessionRef, listener: () => void): vscode.Disposable;
}
