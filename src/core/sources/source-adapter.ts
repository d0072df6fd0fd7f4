// One small interface per kind of session (src/core/sources/<kind>/): find a workspace's sessions, read one into the
// common model (session-view.ts), and rewind its conversation the way that agent can continue from. The engine,
// the tree, the transcript and the CLI only talk to this.
import type { BranchInfo } from '../branches/derive';
import type { Warn } from '../branches/records';
import type { SessionListing } from './listings';
import type { EngineSettings } from '../settings/settings';
import type { SessionSource } from '../session/types';
import type { SessionView } from './session-view';

export interface SourceContext {
  settings: EngineSettings;
  /** The open workspace folders (resolved). */
  workspaceRoots: readonly string[];
  warn: Warn;
}

/** A folder whose session files the extension watches, and the glob (relative to it) that matches them. */
export interface WatchedFolder {
  path: string;
  source: SessionSource;
  /** Default `*.jsonl`. */
  pattern?: string;
}

/** What rewinding a conversation to a message made: a branch in the same file, or a new session file (a fork). */
export type ConversationRewind =
  { kind: 'branch'; branch: BranchInfo } | { kind: 'fork'; sessionId: string; sessionRef: string; agent: string; resumeCommand: string[]; promptText: string };

export interface SourceAdapter {
  /** The kinds this adapter reads (the first is what a file it owns is labelled when nothing says otherwise). */
  readonly kinds: readonly SessionSource[];
  /** Whether sessions of this kind can be written (appends, branch switches, records). */
  readonly writable: boolean;
  /** This workspace's sessions, cheaply (no session is parsed whole to be listed). */
  list(ctx: SourceContext): Promise<SessionListing[]>;
  watchFolders(ctx: SourceContext): WatchedFolder[];
  /** Session files whose id is `id` (else starts with it), for a session named by id on the command line. */
  findById?(id: string, ctx: SourceContext): Promise<string[]>;
  /** Which of its kinds a file of its own is (default: the first). */
  kindOf?(file: string): SessionSource;
  /** Whether `file` is one of this kind's session files (from where it lives, else its first line). */
  owns(file: string, firstLine: string | undefined): boolean;
  /** The session, up to date with the file. Throws a clear error for a missing or unreadable file. */
  open(file: string): Promise<SessionView>;
  /** "Rewind to here" on a user message, conversation part: how this agent can continue from there. */
  rewindConversation(view: SessionView, userEntryId: string, warn: Warn): Promise<ConversationRewind>;
  /** What the preview says about that, before anything is written (undefined: a new branch in the same file; an
   *  error: the conversation cannot be rewound to that message, only the files). */
  forkNote?(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } | undefined;
  /** The file changed in a way appends do not explain, or vanished: read it afresh next time. */
  forget(file: string): Promise<void>;
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
