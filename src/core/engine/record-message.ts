// Recording a message and the file snapshot it takes: the one policy the engine (the extension, the API) and the
// CLI's `append` and `snapshot` share. The CLI calls it without the engine's facade so that those commands load only
// the session and the checkpointer (test/unit/cli/lazy-commands.test.ts): the policy is here once, not copied.
import type { FileCheckpoints, SnapshotKind, SnapshotSummary } from '../files/types';
import type { SessionManager } from '../session/session-manager';
import type { AgentMessage } from '../session/types';

/** The snapshot a message takes: a user message the one its rewinds go back to (before the agent acts on it), an
 *  assistant message the turn-end one that later tells the user's own edits apart; other roles none. */
export function snapshotKindOf(role: AgentMessage['role']): SnapshotKind | undefined {
  return role === 'user' ? 'user-message' : role === 'assistant' ? 'turn-end' : undefined;
}

export interface RecordOptions {
  /** The entry id to use (else one is made). */
  id?: string;
  /** Whether file snapshots are taken at all (the setting, or the CLI's --no-snapshot). */
  checkpointing: boolean;
  /** The folder's checkpoints, or why the folder's files cannot be snapshotted here. Asked only when a snapshot is due. */
  checkpoints(): FileCheckpoints | { unavailable: Error };
  /** Runs before a user message is appended (the engine applies a rewind the agent requested during the last turn). */
  beforeUserMessage?(): Promise<void>;
}

export interface RecordedMessage {
  entryId: string;
  snapshot?: SnapshotSummary;
  /** The snapshot failed: the message is kept all the same (a script must not append it a second time). */
  snapshotError?: Error;
}

/** Appends a message on the active branch (inside a cross-process transaction), then takes the snapshot it is due. */
export async function recordMessage(session: SessionManager, message: AgentMessage, opts: RecordOptions): Promise<RecordedMessage> {
  if (message.role === 'user') await opts.beforeUserMessage?.();
  const entryId = await session.transaction((s) => s.appendMessage(message, opts.id === undefined ? {} : { id: opts.id }));
  const kind = snapshotKindOf(message.role);
  if (!kind || !opts.checkpointing) return { entryId };
  try {
    return { entryId, snapshot: await snapshotAt(session, entryId, kind, opts.checkpoints()) };
  } catch (error) {
    return { entryId, snapshotError: error as Error };
  }
}

/** Snapshots the workspace under a message of the session (`snapshot --anchor`, and recordMessage). */
export async function snapshotAt(
  session: { sessionId: string },
  entryId: string,
  kind: SnapshotKind,
  checkpoints: FileCheckpoints | { unavailable: Error },
): Promise<SnapshotSummary> {
  if ('unavailable' in checkpoints) throw checkpoints.unavailable;
  return checkpoints.snapshot(session.sessionId, entryId, kind);
}
