// The source layer's contract: every kind of session (ours and pi/oh-my-pi, Claude Code, Codex) is read into this one
// model, so the engine, the tree, the transcript, the catalog and the CLI never ask which agent wrote a session.
//
// The model is the pi-shaped entry tree of src/core/session/types.ts: `message` entries (roles user, assistant,
// toolResult, …), `compaction`, `branch_summary`, `custom` records, each with id / parentId. A source that is not
// pi-shaped on disk (Claude Code, Codex) converts on read and is read-only: it never writes the agent's own files.
import type { SessionContext, SessionEntry, SessionHeader, SessionSource } from '../session/types';
import type { SessionRef } from './session-ref';

/** Which agent wrote a session: a kind id of an agent in src/core/sources/registry.ts, which gives its name. */
export type SessionSourceKind = SessionSource;

export interface SessionViewLoadReport {
  /** Lines that could not be used (1-based), left in the file untouched. */
  skipped: { line: number; reason: string }[];
  missingBlobs?: string[];
}

/** A nested conversation started by a tool call (a Claude Code subagent / Task, a Codex spawned agent). */
export interface SubagentView {
  /** The tool call (a `toolCall` block id in an assistant entry) that started it. */
  toolCallId: string;
  agentId: string;
  /** e.g. the subagent type or description. */
  title: string;
  /** Its messages root → last, pi-shaped like the main entries. */
  entries: readonly SessionEntry[];
  file?: string;
}

/** Where a session was forked from (Claude Code --fork-session / our own fork, Codex forked_from_id). */
export interface ForkOrigin {
  sessionId: string;
  /** The origin's ref when it was found. */
  sessionRef?: SessionRef;
  /** The last entry the fork shares with its origin. */
  entryId?: string;
}

/** Where a fork's copied message may have its snapshot: a session it came from, and the keys that session may hold it
 *  under (most specific first). */
export interface OriginCheckpoint {
  sessionId: string;
  keys: readonly string[];
}

/** The read side every session offers. SessionManager (ours, pi, oh-my-pi) implements it too. */
export interface SessionView {
  readonly sessionId: string;
  /** How its adapter names it (session-ref.ts); undefined for a session kept only in memory. */
  readonly sessionRef: SessionRef | undefined;
  /** The folder the session worked in (its files are snapshotted and restored there). */
  readonly cwd: string;
  getHeader(): SessionHeader;
  getEntries(): readonly SessionEntry[];
  getEntry(id: string): SessionEntry | undefined;
  /** The active branch's last entry. */
  getLeafId(): string | null;
  /** root → leaf. */
  getPath(leafId?: string | null): SessionEntry[];
  /** What the model sees from that entry. */
  buildSessionContext(leafId?: string | null): SessionContext;
  getLabel(entryId: string): string | undefined;
  getLoadReport(): SessionViewLoadReport;
}

/** What a foreign (read-only) session adds to the view. */
export interface ForeignSessionView extends SessionView {
  /** Its kind (an agent's kind id, src/core/sources/registry.ts). */
  readonly source: SessionSourceKind;
  /** The title a person recognises (custom title, AI title, summary, else the first real prompt). */
  readonly title: string;
  readonly createdAt: string;
  readonly forkedFrom?: ForkOrigin;
  /** Whether the entry was copied from the session this one was forked from. */
  isInherited?(entryId: string): boolean;
  /** Nested conversations, by the tool call that started them. */
  subagentsOf(toolCallId: string): readonly SubagentView[];
  /**
   * The keys under which a hook snapshot of this user message may be stored, most specific first (Claude Code: the
   * line's promptId; Codex: the turn id). Empty when the message has none.
   */
  checkpointKeysOf(userEntryId: string): readonly string[];
  /**
   * For a user message a fork copied from its origin: the sessions it came from, nearest first, with the keys each
   * may hold its snapshot under (the origin's hook took it, under the origin's id). Empty for the fork's own messages.
   */
  originCheckpointsOf?(userEntryId: string): readonly OriginCheckpoint[];
  /**
   * The agent's own checkpoint of the files at that user message (Claude Code's file history), used where there is no
   * snapshot of ours: each file it tracked (absolute path) and its saved copy (null: it did not exist then), and in
   * words what it covers.
   */
  ownFileCheckpointAt?(userEntryId: string): { files: { path: string; source: string | null }[]; coverage: string } | undefined;
  /** What the preview must say about the snapshot of that user message found under `key`, when it is not the
   *  workspace exactly as the message was sent (one taken late, after the agent had started). */
  snapshotNoteOf?(userEntryId: string, key: string): string | undefined;
}

export function isForeignView(view: SessionView): view is ForeignSessionView {
  return typeof (view as Partial<ForeignSessionView>).checkpointKeysOf === 'function' && typeof (view as Partial<ForeignSessionView>).source === 'string';
}
