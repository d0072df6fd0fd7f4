// One small interface per kind of session (src/core/sources/<kind>/): find a workspace's sessions, read one into the
// common model (session-view.ts), and rewind its conversation the way that agent can continue from. The engine,
// the tree, the transcript and the CLI only talk to this.
import type { BranchInfo } from '../branches/derive';
import type { Warn } from '../branches/records';
import type { FileCheckpoints } from '../files/types';
import type { SessionListing } from './listings';
import type { EngineSettings } from '../settings/settings';
import type { SessionSource } from '../session/types';
import type { SessionView } from './session-view';
import type { SessionRef, SessionStamp } from './session-ref';
import type { CommandRunner, EditorChatAction, EditorChatTarget } from './editor-chat';

export interface SourceContext {
  settings: EngineSettings;
  /** The open workspace folders (resolved). */
  workspaceRoots: readonly string[];
  warn: Warn;
}

/** A folder whose changes may change sessions (session files, a database and its journal, a log and its side
 *  folder), and the glob (relative to it) of the paths that matter; the extension watches it. */
export interface WatchedFolder {
  path: string;
  source: SessionSource;
  /** Default `*.jsonl`. */
  pattern?: string;
}

/** What rewinding a conversation to a message made: a branch in the same session, or a new session (a fork). */
export type ConversationRewind =
  | { kind: 'branch'; branch: BranchInfo }
  | { kind: 'fork'; sessionId: string; sessionRef: SessionRef; agent: string; resumeCommand: string[]; promptText: string };

/** What snapshotNewPrompts did: the prompts it snapshotted (and how long after they were sent), the ones it left. */
export interface NewPromptSnapshots {
  taken: { entryId: string; lagMs: number }[];
  skipped: { entryId: string; reason: string }[];
}

export interface SourceAdapter {
  /** The kinds this adapter reads (the first is what a file it owns is labelled when nothing says otherwise). */
  readonly kinds: readonly SessionSource[];
  /** Whether sessions of this kind can be written (appends, branch switches, records). */
  readonly writable: boolean;
  /** This workspace's sessions, cheaply (no session is parsed whole to be listed). */
  list(ctx: SourceContext): Promise<SessionListing[]>;
  /** The change signal, what to watch: the folders (and globs) whose changes may change its sessions. */
  watchFolders(ctx: SourceContext): WatchedFolder[];
  /** The change signal, which sessions: those a change of `path` (matched by watchFolders) may have changed. Default:
   *  the path itself (a file per session). A shared database answers every session it holds; the watcher then
   *  refreshes only those whose stamp moved. */
  refsOfChange?(path: string): Promise<SessionRef[]>;
  /** The change signal, whether it changed: a cheap version that differs whenever the session may have changed
   *  (default: the file's size and mtime, session-ref.ts fileStamp); undefined: the session is gone. */
  stamp?(ref: SessionRef): Promise<SessionStamp | undefined>;
  /** The file a person opens or reveals for the session (the raw session file), if there is one. Default: the ref,
   *  which is the path of a file per session. */
  fileOf?(ref: SessionRef): string | undefined;
  /** Sessions whose id is `id` (else starts with it), for a session named by id on the command line. */
  findById?(id: string, ctx: SourceContext): Promise<SessionRef[]>;
  /** Which of its kinds a session of its own is (default: the first). */
  kindOf?(ref: SessionRef): SessionSource;
  /** Whether the session is one of this adapter's (from the ref, else, when the ref is a file, its first line). */
  owns(ref: SessionRef, firstLine: string | undefined): boolean;
  /** The session, up to date with its storage. Throws a clear error for a missing or unreadable session. */
  open(ref: SessionRef): Promise<SessionView>;
  /** "Rewind to here" on a user message, conversation part: how this agent can continue from there. */
  rewindConversation(view: SessionView, userEntryId: string, warn: Warn): Promise<ConversationRewind>;
  /** What the preview says about that, before anything is written (undefined: a new branch in the same file; an
   *  error: the conversation cannot be rewound to that message, only the files). */
  forkNote?(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } | undefined;
  /** For an agent whose conversation its own editor rewinds (VS Code chat): the request its commands act on. */
  editorChatTarget?(view: SessionView, userEntryId: string): EditorChatTarget | undefined;
  /** Runs the editor's own command for that request through the editor's command surface. */
  runEditorChatAction?<U>(action: EditorChatAction, target: EditorChatTarget, run: CommandRunner<U>): Promise<void>;
  /** For an agent whose hooks are not installed: a prompt that has appeared in the session with no snapshot yet gets
   *  one now, late (the snapshot's note says how late). Called when the session changed. */
  snapshotNewPrompts?(view: SessionView, checkpoints: Pick<FileCheckpoints, 'listSnapshots' | 'snapshot' | 'workspaceRoot'>): Promise<NewPromptSnapshots>;
  /** By user message id, the files (absolute paths) the agent's own records say its tools wrote in that message's
   *  turn (created or edited through its edit tools; not what a shell command changed, which it does not record). A
   *  rewind's attribution gives such a file's change to that turn when it lands just after the turn's end snapshot,
   *  outside every turn (engine/turn-writes.ts). */
  filesWrittenByTurn?(view: SessionView): Promise<ReadonlyMap<string, readonly string[]>>;
  /** The session changed in a way appends do not explain, or vanished: read it afresh next time. */
  forget(ref: SessionRef): Promise<void>;
  dispose(): Promise<void>;
}

/** Thrown when something would write to a session that only its own agent writes. */
export class ReadOnlySessionError extends Error {
  constructor(agent: string, what: string) {
    super(
      `${what} is not possible here: this is a ${agent} session, and agent-rewind never writes to ${agent}'s files. Use "Rewind to here" to continue from a message in a new ${agent} session.`,
    );
  }
}
