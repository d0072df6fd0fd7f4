// What the webview panels need from the rest of the extension. The panels (webviews/) only render and relay;
// the engine facade (src/core/engine) does the work, and src/extension wires one to the other.
import type * as vscode from 'vscode';
import type {
  BranchCompareModel,
  EntryLocation,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  SelectionPreview,
  FileHunks,
  HunkSelection,
  TranscriptItem,
  TranscriptModel,
} from '../../shared/view-models';

/** Identifies a session everywhere in the extension: its ref (core/sources/session-ref.ts), as listings give it. */
export interface SessionTarget {
  sessionRef: string;
}

export interface TranscriptServices {
  /** The session as chat rows: its active branch, or `branch` of a read-only session (another agent's). */
  loadTranscript(ref: SessionTarget, opts?: { branch?: string }): Promise<{ model: TranscriptModel; items: TranscriptItem[] }>;
  /** Where a message is (active branch, another branch, not in the session), for revealing it. */
  locateEntry(ref: SessionTarget, entryId: string): Promise<EntryLocation>;
  /** Fires when the session file changes on disk (another process appended, a branch switch, ...). */
  onDidChangeSession(ref: SessionTarget, listener: () => void): vscode.Disposable;
  switchBranch(ref: SessionTarget, branchName: string): Promise<void>;
  /** Opens the rewind preview for a user message (changes nothing by itself). */
  previewRewind(ref: SessionTarget, entryId: string): Promise<void>;
  fork(ref: SessionTarget, entryId: string): Promise<void>;
  label(ref: SessionTarget, entryId: string): Promise<void>;
  /** Opens Compare branches for the session, `branch` (the one shown) as one side; asks for the other. */
  compareBranches(ref: SessionTarget, branch: string | undefined): Promise<void>;
}

/** What Confirm chose for the files: the user's hand-made changes too, or exactly the ticked files. */
export interface ApplyOptions {
  overwriteUserModified: boolean;
  only?: string[];
  /** Only these hunks of these files (keyed to the bytes the preview showed them for). */
  hunks?: HunkSelection[];
}

export interface PreviewServices {
  /** A dry run of everything "Rewind to here" would do; never throws, never writes. */
  preview(ref: SessionTarget, anchorEntryId: string): Promise<RewindPreviewModel>;
  /** The dry run of the files part for exactly the files `only` names (whoever changed them). Throws with a
   *  user-readable message when the files cannot be rewound; never writes. */
  previewSelection(ref: SessionTarget, anchorEntryId: string, only: string[], hunks?: HunkSelection[]): Promise<SelectionPreview>;
  /** A file's changes since the message as hunks to tick (the same computation the rewind uses); never writes. */
  fileHunks(ref: SessionTarget, anchorEntryId: string, relPath: string): Promise<FileHunks>;
  /** Runs the rewind the user confirmed (`only`: exactly these files). Throws with a user-readable message when it cannot. */
  apply(ref: SessionTarget, anchorEntryId: string, mode: RewindMode, options: ApplyOptions): Promise<RewindOutcome>;
  /** Opens VS Code's diff editor: the file at the anchor (read-only) against the file now. */
  openFileDiff(ref: SessionTarget, anchorEntryId: string, relPath: string): Promise<void>;
  /** Closes the diff editors openFileDiff opened for this message (after a rewind their "now" side is stale). */
  closeFileDiffs(ref: SessionTarget, anchorEntryId: string): Promise<void>;
  /** What Undo would do now, in one sentence ("Undo will …"); undefined when there is nothing to undo. */
  describeUndo(ref: SessionTarget): Promise<string | undefined>;
  /** Runs the editor's own command for the message's conversation (VS Code chat: show the session, or its Restore
   *  Checkpoint on the request). Throws with a user-readable message when the session has none. */
  editorChat(ref: SessionTarget, anchorEntryId: string, action: 'open' | 'restoreCheckpoint'): Promise<void>;
}

/** Two branches compared (the Compare branches panel): A of `sessionRef`, B of `sessionRefB` when set (another
 *  session of the workspace: a fork, its origin, any other), else of the same session. */
export interface CompareRef extends SessionTarget {
  branchA: string;
  branchB: string;
  sessionRefB?: string;
}

/** One side of an opened file diff: a branch's snapshot, in its session. */
export interface CompareSideRef {
  sessionRef: string;
  branch: string;
  anchorEntryId: string;
}

export interface CompareServices {
  /** Where the branches part, each one's messages after that, the files that differ. Throws for an unknown branch. */
  compare(ref: CompareRef): Promise<BranchCompareModel>;
  /** VS Code's diff editor: the file at A's snapshot ↔ at B's (read-only; a side without the file is empty). */
  openBranchFileDiff(a: CompareSideRef, b: CompareSideRef, relPath: string): Promise<void>;
  /** The transcript of a session, at a message. */
  openMessage(ref: SessionTarget, entryId: string): Promise<void>;
  /** Fires when the session file changes on disk. */
  onDidChangeSession(ref: SessionTarget, listener: () => void): vscode.Disposable;
}
