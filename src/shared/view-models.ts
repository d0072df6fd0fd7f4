// What the webviews show, as plain JSON-safe data. The extension host builds these from src/core; the webviews
// only render them. No Node, no `vscode` here: this file is bundled into the browser side too.

export type MessageKind = 'user' | 'assistant' | 'toolCall' | 'toolResult' | 'bash' | 'branchSummary' | 'compaction' | 'custom' | 'other';

/** One row of the transcript (the active branch as a chat). */
export interface TranscriptItem {
  /** The session entry id (the anchor for rewinds when kind is 'user'). */
  entryId: string;
  kind: MessageKind;
  /** Markdown source; the webview renders it safely (raw HTML is shown as text). */
  markdown: string;
  /** e.g. the tool name, the model, the custom type. */
  title?: string;
  timestamp?: string;
  label?: string;
  isError?: boolean;
  /** Shown as a badge: an aborted or failed reply, tool calls that never ran. */
  notice?: string;
  /** Shown as typed (line breaks and indentation kept), not rendered as markdown: what the user wrote or pasted. */
  preformatted?: boolean;
  /** Branch points: other branches that leave the tree at this entry. */
  otherBranches?: { name: string; headEntryId: string }[];
  /** Whether a file checkpoint exists for this (user) message, and how many files it holds. */
  fileCheckpoint?: { files: number } | null;
  /** Conversations this tool call started (a Claude Code Task/Agent subagent), shown folded under it. */
  subagents?: { agentId: string; title: string; messages: number; markdown: string }[];
  /** Copied from the session this one was forked from (shown folded, not as new messages). */
  inherited?: boolean;
}

export interface TranscriptModel {
  sessionId: string;
  title: string;
  /** The kind of session (an agent's kind id, 'agent-rewind' for ours). */
  source: string;
  /** The agent that wrote it as a person knows it, and its codicon: the webview names no agent itself. */
  sourceLabel: string;
  sourceIcon: string;
  /** Set for another agent's session (Claude Code, Codex): shown, never written; `branch` is the branch shown. */
  readOnly?: { agent: string };
  /** The session this one was forked from (Claude Code --fork-session, a Rewind to here fork). */
  forkedFrom?: { sessionId: string; sessionRef?: string; title?: string };
  branch: string;
  /** The session's active branch (another agent's: the one it continues on). When it is not `branch`, the transcript
   *  shows a branch without switching to it, and says so. */
  activeBranch?: string;
  /** Total rows; rows are sent in pages so 10,000+ message sessions stay smooth. */
  total: number;
}

/** Where a message of a session is (for opening its transcript at that message). */
export type EntryLocation =
  | { found: false }
  | {
      found: true;
      onActiveBranch: boolean;
      /** The branch it is shown on: the active one when it is on its path, else the first that holds it; absent
       *  when no branch reaches it (an entry orphaned by a hand edit). */
      branch?: string;
      activeBranch: string;
      /** One line of its text, for saying which message is meant. */
      preview: string;
    };

export interface FileChangePreview {
  /** Workspace-relative, '/'-separated. */
  path: string;
  status: 'modified' | 'added' | 'deleted' | 'typeChanged' | 'modeChanged';
  insertions: number;
  deletions: number;
  binary: boolean;
  /** Changed by hand (its last change since the message was made outside every agent's turn): only overwritten
   *  when the user says so. */
  userModified: boolean;
  /** Who made the last change to it since the message, from the folder's timeline (absent when the message's
   *  snapshot is not on it: then `userModified` follows the session's last turn end). */
  changedBy?: FileChangedBy;
  /** For 'other-session': that session's id and the prompt (its snapshot anchor) whose turn changed the file. */
  otherSession?: string;
  otherPrompt?: string;
  /** For 'several': the sessions whose turns overlapped when it changed. */
  sessions?: string[];
  /** Left as it is by this rewind (changed by the user or another session and not included, or not selected). */
  kept?: boolean;
  /** Only some of its hunks are taken back (a hunk selection): which (1-based), of how many, and the hash of the bytes
   *  they were computed from; insertions and deletions count those hunks only. */
  partial?: { hunks: number[]; of: number; hash: string };
}

/** One run of changed lines of a file between unchanged ones, which a rewind can take back on its own. */
export interface FileHunk {
  /** 1-based, in file order: what a selection names. */
  index: number;
  /** Where it is in the file at the message (1-based first line, and its lines there: the ones it brings back). */
  anchorStart: number;
  anchorLines: number;
  /** Where it is in the file now (its lines here are the ones taking it back removes). */
  nowStart: number;
  nowLines: number;
  insertions: number;
  deletions: number;
  /** Its lines ('-': at the message only, '+': now only), at most 200; `linesNotShown` counts the rest. */
  lines: { kind: '+' | '-'; text: string }[];
  linesNotShown?: number;
}

/** A file's hunks since a message, keyed by `hash` (of the file's bytes now, which they were computed from), or why
 *  it can only be taken back whole (binary, new, deleted, its kind or permissions changed, too large). */
export type FileHunks = { path: string; ok: true; hash: string; hunks: FileHunk[] } | { path: string; ok: false; reason: string };

/** Hunks of one file to take back (1-based), and the hash of the bytes they were chosen from: when the file is no
 *  longer those bytes, the rewind refuses. Without a hash (a terminal user), the hunks of the file as it is. */
export interface HunkSelection {
  path: string;
  hunks: number[];
  hash?: string;
}

/** Who changed a file: a turn of the session being rewound, of another session, several at once, or the user. */
export type FileChangedBy = 'this-session' | 'other-session' | 'several' | 'user';

/** A file's attribution (FileChangePreview's fields of it). */
export interface FileAttribution {
  changedBy: FileChangedBy;
  otherSession?: string;
  otherPrompt?: string;
  sessions?: string[];
}

/** A file that differs between two snapshots, seen from A to B: 'added' exists only at B, 'deleted' only at A;
 *  insertions are lines B has that A has not, deletions lines A has that B has not. */
export type FileDifference = Omit<FileChangePreview, 'userModified' | keyof FileAttribution | 'kept'>;

/** One message in a list of messages (kind and a one-line preview). */
export interface MessageRef {
  entryId: string;
  kind: MessageKind;
  preview: string;
}

/** One side of a branch comparison. */
export interface BranchCompareSide {
  name: string;
  /** Set on both sides when they are branches of two sessions (a session and its fork, or any two of the folder):
   *  the session this side's branch, messages and snapshot are of. */
  session?: { sessionRef: string; sessionId: string; title: string };
  isActive: boolean;
  /** The branch's last message (null: it has none). */
  headEntryId: string | null;
  /** The chat messages after the divergence point, oldest first (at most `messages.length`; `omitted` more after). */
  messages: MessageRef[];
  /** Messages after the divergence point left out of `messages` to keep the model small. */
  omitted: number;
  /** The latest file snapshot on the branch's path, which the files are compared at (null: none): the turn-end
   *  snapshot of an agent reply (the files as the agent left them) or a user message's (as they were when it was
   *  sent). `anchorEntryId` is that message, for fileAtAnchor. */
  snapshot: {
    anchorEntryId: string;
    kind: 'user-message' | 'turn-end';
    preview: string;
    files: number;
    createdAt: string;
    afterDivergence: boolean;
  } | null;
}

/** Two branches side by side (of one session, or of two: see BranchCompareSide.session): where they part, what each
 *  says after that, how their files differ. sessionId, sessionRef and title are A's session's. */
export interface BranchCompareModel {
  sessionId: string;
  sessionRef: string;
  title: string;
  /** Set when a side is another agent's session (read-only: nothing here writes anyway). */
  readOnly?: { agent: string };
  /** The last entry both branches share, as its nearest chat message; null: they share no message. */
  divergence: MessageRef | null;
  a: BranchCompareSide;
  b: BranchCompareSide;
  /** The files that differ between A's snapshot and B's, from A to B; or why they cannot be compared. */
  files: { ok: true; files: FileDifference[]; insertions: number; deletions: number; sameSnapshot: boolean } | { ok: false; error: string };
}

export interface StateChangePreview {
  key: string;
  scope: 'app' | 'user' | 'session';
  /** JSON text of the value now and after the rewind (null: the key is deleted). */
  now: string | null;
  after: string | null;
}

export interface ArtifactChangePreview {
  name: string;
  currentVersion: number | null;
  /** The version restored (saved as a new version), or null when the artifact is removed. */
  restoredVersion: number | null;
}

export const REWIND_MODES = ['all', 'conversation', 'files'] as const;
export type RewindMode = (typeof REWIND_MODES)[number];

/** Whether a string (a radio button's value) is a rewind mode. */
export function isRewindMode(value: string): value is RewindMode {
  return (REWIND_MODES as readonly string[]).includes(value);
}

/** A conversation its own editor rewinds (VS Code's chat): the preview offers that editor's commands on the request. */
export interface EditorChatOffer {
  /** The agent as the preview names it ("VS Code chat"). */
  agent: string;
  sessionId: string;
  requestId: string;
}

export interface RewindPreviewModel {
  sessionId: string;
  anchorEntryId: string;
  anchorPreview: string;
  /** Set when the conversation part is the editor's own (VS Code chat): the preview's buttons run its commands. */
  editorChat?: EditorChatOffer;
  conversation:
    | {
        ok: true;
        currentBranch: string;
        newBranchName: string;
        messagesLeftOnOldBranch: { entryId: string; kind: MessageKind; preview: string }[];
        /** Set when the conversation continues in a new session file (a foreign agent's session is never written):
         *  which agent's format, and that the original stays as it is. */
        fork?: { agent: string; resumeHint: string };
      }
    | { ok: false; error: string };
  state: { ok: true; changes: StateChangePreview[]; artifacts: ArtifactChangePreview[] } | { ok: false; error: string };
  files:
    | {
        ok: true;
        filesChanged: string[];
        insertions: number;
        deletions: number;
        files: FileChangePreview[];
        skipped: { path: string; reason: string }[];
        /** What this snapshot does not cover, when it is not one of ours (e.g. made from Claude Code's own checkpoint). */
        note?: string;
        /** An interrupted rewind the real one finishes or rolls back first, and its files (the figures are from after it). */
        recoveryFirst?: string;
      }
    | { ok: false; error: string };
}

/** The files part of a dry run for a selection of files: what Confirm writes. */
export interface SelectionPreview {
  filesChanged: string[];
  insertions: number;
  deletions: number;
}

/** What Confirm chose of the files: exactly these whole files (`only`) and these hunks of others (`hunks`, always
 *  keyed to the bytes the preview showed them for). */
export interface FilesSelection {
  only: string[];
  hunks?: (HunkSelection & { hash: string })[];
}

export interface RewindOutcome {
  mode: RewindMode;
  branch?: { name: string; headMessageId: string };
  filesChanged: string[];
  /** Present when the file part can be undone with undoLastRewind. */
  undoAvailable: boolean;
  /** A foreign session's conversation rewind: the new session that continues from before the message. */
  fork?: { sessionId: string; sessionRef: string; agent: string; resumeCommand: string[]; promptText: string };
}
