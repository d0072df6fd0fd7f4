// Named branches and checkpoints over one session file (docs/ARCHITECTURE.md, branches and checkpoints), with the branches and checkpoints contract's pending messages: set() queues,
// save() writes. Every mutation runs in session.transaction(), so it sees what other processes appended first and
// two processes moving heads never lose an update.
import { v7 as uuidv7 } from 'uuid';
import type { AgentMessage, SessionEntry } from '../session/types';
import { EntryIndex } from './entry-index';
import { nextBranchName } from './naming';
import { toBranchInfo, type BranchesSnapshot, type BranchInfo, type CheckpointInfo } from './derive';
import {
  BranchNotFoundError,
  CheckpointNotFoundError,
  CheckpointTargetMissingError,
  MessageInOtherChatError,
  MessageNotFoundError,
  NotAMessageError,
} from './errors';
import { appendBranchMove, newBranchMove, snapshotOf, switchMove } from './moves';
import { findMessageInSiblingSessions } from './other-chats';
import { CHECKPOINT_RECORD, onceWarn, type Warn } from './records';
import type { SessionLike } from './session-like';

export interface ConversationOptions {
  /** Whether an id unknown here belongs to another session (its id). Default: scan the sibling session files. */
  findInOtherSessions?: (messageId: string) => Promise<string | undefined>;
  warn?: Warn;
  now?: () => number;
}

export interface RewindPreview {
  currentBranch: string;
  newBranchName: string;
  messagesLeftOnOldBranch: SessionEntry[];
}

export interface PendingMessage {
  message: AgentMessage;
  /** A caller-chosen id. Saving an id that already exists is an edit (see save()). */
  id?: string;
}

export class Conversation<S extends SessionLike = SessionLike> {
  readonly #warn: Warn;
  readonly #now: () => number;
  readonly #findElsewhere: (messageId: string) => Promise<string | undefined>;
  #pending: PendingMessage[] = [];

  constructor(
    readonly session: S,
    opts: ConversationOptions = {},
  ) {
    this.#warn = opts.warn ?? onceWarn();
    this.#now = opts.now ?? Date.now;
    this.#findElsewhere = opts.findInOtherSessions ?? (async (id) => (session.sessionFile ? findMessageInSiblingSessions(session.sessionFile, id) : undefined));
  }

  /** Branches and checkpoints as of what this process has read (no I/O). */
  snapshot(): BranchesSnapshot {
    return snapshotOf(this.session, this.#warn);
  }

  /** Reads what other processes appended, then derives. */
  async refresh(): Promise<BranchesSnapshot> {
    await this.session.syncFromDisk();
    return this.snapshot();
  }

  async branches(): Promise<BranchInfo[]> {
    return (await this.refresh()).branches.map(toBranchInfo);
  }

  async activeBranch(): Promise<BranchInfo> {
    return toBranchInfo((await this.refresh()).active);
  }

  async checkpoints(): Promise<CheckpointInfo[]> {
    return (await this.refresh()).checkpoints;
  }

  /** What rewind(messageId) would do, without writing: the new branch's name and the messages that stay behind on
   *  the current branch (on its path but not on the new one). Throws the same errors as rewind(). */
  async previewRewind(messageId: string): Promise<RewindPreview> {
    await this.session.syncFromDisk();
    await this.#requireMessage(messageId);
    const snap = this.snapshot();
    const index = new EntryIndex(this.session.getEntries());
    const kept = new Set(index.pathTo(messageId).map((e) => e.id));
    return {
      currentBranch: snap.active.name,
      newBranchName: nextBranchName(snap.active.name, new Set(snap.branches.map((b) => b.name))),
      messagesLeftOnOldBranch: index.pathTo(snap.active.leafId).filter((e) => e.type === 'message' && !kept.has(e.id)),
    };
  }

  /** A new branch `<active>-vN` whose head is messageId, made active; the old branch keeps all its messages.
   *  Pending (unsaved) messages are cleared. */
  async rewind(messageId: string): Promise<BranchInfo> {
    const info = await this.session.transaction(async () => {
      await this.#requireMessage(messageId);
      return this.#branchAt(messageId);
    });
    this.#pending = [];
    return info;
  }

  async switchBranch(name: string): Promise<BranchInfo> {
    return this.session.transaction(() => {
      const snap = this.snapshot();
      const target = snap.branches.find((b) => b.name === name);
      if (!target) throw new BranchNotFoundError(name);
      if (target.isActive) return toBranchInfo(target);
      appendBranchMove(this.session, target.leafId, switchMove(this.session, snap, target, this.#now()));
      return toBranchInfo(this.snapshot().active);
    });
  }

  /** A named pointer to the active branch's head. Names are unique per session: reusing one moves it. */
  async checkpoint(name: string): Promise<CheckpointInfo> {
    if (!name.trim()) throw new Error('Checkpoint name cannot be empty');
    // names are printed in lists and terminals; a control character there hides or rewrites what the user sees
    if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw new Error(`Checkpoint name cannot contain control characters: ${JSON.stringify(name)}`);
    return this.session.transaction(() => {
      const head = this.snapshot().active.headMessageId;
      if (head === null) throw new Error(`Cannot checkpoint "${name}": the active branch has no message yet`);
      const info: CheckpointInfo = { id: uuidv7(), name, messageId: head, createdAt: this.#now() };
      this.session.appendCustomEntry(CHECKPOINT_RECORD, { op: 'set', name, checkpointId: info.id, messageId: head, createdAt: info.createdAt });
      return info;
    });
  }

  async deleteCheckpoint(name: string): Promise<void> {
    await this.session.transaction(() => {
      if (!this.snapshot().checkpoints.some((c) => c.name === name)) throw new CheckpointNotFoundError(name);
      this.session.appendCustomEntry(CHECKPOINT_RECORD, { op: 'delete', name });
    });
  }

  /** rewind() to a named checkpoint's message. */
  async restore(name: string): Promise<BranchInfo> {
    const info = await this.session.transaction(async () => {
      const checkpoint = this.snapshot().checkpoints.find((c) => c.name === name);
      if (!checkpoint) throw new CheckpointNotFoundError(name);
      // not #requireMessage: its "not found" / "different chat" would blame the user for a line that went missing
      if (!this.session.getEntry(checkpoint.messageId)) throw new CheckpointTargetMissingError(name, checkpoint.messageId);
      await this.#requireMessage(checkpoint.messageId);
      return this.#branchAt(checkpoint.messageId);
    });
    this.#pending = [];
    return info;
  }

  /** Queues a message; a queued message with the same id is replaced. Nothing is written until save(). */
  set(message: AgentMessage, opts: { id?: string } = {}): this {
    const at = opts.id === undefined ? -1 : this.#pending.findIndex((p) => p.id === opts.id);
    const pending: PendingMessage = opts.id === undefined ? { message } : { message, id: opts.id };
    if (at >= 0) this.#pending[at] = pending;
    else this.#pending.push(pending);
    return this;
  }

  get pending(): readonly PendingMessage[] {
    return this.#pending;
  }

  /**
   * Writes the pending messages on the active branch; returns their entry ids. A message whose id already exists
   * is an edit: a new branch starts at the original's parent and the message is saved there under a new id, so the
   * original stays on its old branch.
   */
  async save(): Promise<string[]> {
    if (this.#pending.length === 0) return [];
    return this.session.transaction(() => {
      const ids: string[] = [];
      while (this.#pending.length > 0) {
        const { message, id } = this.#pending[0]!;
        const original = id === undefined ? undefined : this.session.getEntry(id);
        if (original) {
          const snap = this.snapshot();
          appendBranchMove(this.session, original.parentId, newBranchMove(this.session, snap, original.parentId, this.#now()));
          ids.push(this.session.appendMessage(message));
        } else {
          ids.push(this.session.appendMessage(message, id === undefined ? {} : { id }));
        }
        this.#pending.shift();
      }
      return ids;
    });
  }

  #branchAt(messageId: string): BranchInfo {
    const move = newBranchMove(this.session, this.snapshot(), messageId, this.#now());
    appendBranchMove(this.session, messageId, move);
    return toBranchInfo(this.snapshot().active);
  }

  async #requireMessage(messageId: string): Promise<void> {
    const entry = this.session.getEntry(messageId);
    if (entry) {
      if (entry.type !== 'message') throw new NotAMessageError(messageId, entry.type);
      return;
    }
    const other = await this.#findElsewhere(messageId);
    if (other !== undefined) throw new MessageInOtherChatError(messageId, other);
    throw new MessageNotFoundError(messageId);
  }
}
