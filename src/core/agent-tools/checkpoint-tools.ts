// The agent's own checkpoint/rewind tools (docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools, oh-my-pi's behaviour): `checkpoint` marks where an exploration
// starts, `rewind` captures a report, and the host applies the rewind when the turn ends, never inside the call,
// so the tool result that requested it is still answered normally.
import type { Warn } from '../branches/records';
import type { SessionLike } from '../branches/session-like';
import { createCustomMessage, type CustomAgentMessage } from '../session/messages';
import type { AgentMessage } from '../session/types';
import { checkpointInput, rewindInput } from './tool-schemas';

export const REWIND_REPORT_TYPE = 'rewind-report';

/** A refusal the host reports to the model as the tool's error result, verbatim. */
export class ToolError extends Error {}

export interface ToolResult<D> {
  text: string;
  details: D;
}

export interface ActiveCheckpoint {
  goal: string;
  startedAt: string;
  /** The session entry the rewind branches from (null: the root). */
  checkpointEntryId: string | null;
  /** In-memory messages to keep on rewind (those up to and including the checkpoint's tool result). */
  messageCount: number;
}

export interface AgentCheckpointToolsOptions {
  /** Subagent sessions get neither tool. */
  isSubagent?: boolean;
  warn?: Warn;
  now?: () => Date;
}

export interface CheckpointContext {
  /** The agent's in-memory message count to return to. */
  messageCount: number;
  /** The entry to branch from on rewind; default: the session's leaf now. */
  entryId?: string | null;
}

/** The host's in-memory message count, floored. Not a ToolError: a bad count is the host's bug, not the model's. */
function checkedMessageCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`messageCount must be a whole number of at least 0, not ${String(value)}`);
  }
  return Math.floor(value);
}

export class AgentCheckpointTools {
  readonly #isSubagent: boolean;
  readonly #warn: Warn;
  readonly #now: () => Date;
  #active: ActiveCheckpoint | undefined;
  #pendingReport: string | undefined;

  constructor(
    readonly session: SessionLike,
    opts: AgentCheckpointToolsOptions = {},
  ) {
    this.#isSubagent = opts.isSubagent ?? false;
    this.#warn = opts.warn ?? ((m) => console.warn(`agent-rewind: ${m}`));
    this.#now = opts.now ?? (() => new Date());
  }

  /**
   * After a reload: finds an unfinished checkpoint on the active path (a successful `checkpoint` tool result with no
   * `rewind-report` after it) and makes it active again, so the agent can still rewind to it. Returns it, if any.
   */
  rehydrate(): ActiveCheckpoint | undefined {
    this.#active = undefined;
    this.#pendingReport = undefined;
    const byId = new Map(this.session.getEntries().map((e) => [e.id, e]));
    for (let entry = byId.get(this.session.getLeafId() ?? ''); entry; entry = entry.parentId ? byId.get(entry.parentId) : undefined) {
      if (entry.type === 'custom_message' && entry.customType === REWIND_REPORT_TYPE) return undefined;
      const message = entry.type === 'message' ? (entry.message as { role?: unknown; toolName?: unknown; isError?: unknown; details?: unknown }) : undefined;
      if (message?.role !== 'toolResult' || message.toolName !== 'checkpoint' || message.isError === true) continue;
      const details = (message.details ?? {}) as { goal?: unknown; startedAt?: unknown };
      this.#active = {
        goal: typeof details.goal === 'string' ? details.goal : '',
        startedAt: typeof details.startedAt === 'string' ? details.startedAt : entry.timestamp,
        checkpointEntryId: entry.id,
        messageCount: this.session.buildSessionContext(entry.id).messages.length,
      };
      return this.#active;
    }
    return undefined;
  }

  get active(): ActiveCheckpoint | undefined {
    return this.#active;
  }

  get pendingReport(): string | undefined {
    return this.#pendingReport;
  }

  checkpoint(input: unknown, context: CheckpointContext): ToolResult<{ goal: string; startedAt: string }> {
    if (this.#isSubagent) throw new ToolError('Checkpoint not available in subagents.');
    const messageCount = checkedMessageCount(context?.messageCount);
    const parsed = checkpointInput.safeParse(input ?? {});
    if (!parsed.success) throw new ToolError(`Invalid checkpoint input: ${parsed.error.issues[0]?.message ?? 'expected { goal?: string }'}`);
    if (this.#active) throw new ToolError('Checkpoint already active.');
    const goal = parsed.data.goal?.trim() ?? '';
    const startedAt = this.#now().toISOString();
    this.#active = {
      goal,
      startedAt,
      checkpointEntryId: context.entryId === undefined ? this.session.getLeafId() : context.entryId,
      messageCount,
    };
    return { text: `${goal ? `Checkpoint: ${goal}` : 'Checkpoint set.'}\nFinish exploration and formulate findings.`, details: { goal, startedAt } };
  }

  /** Once the host has stored the checkpoint's tool result: rewind keeps it, so branch from its entry. */
  recordCheckpointResult(entryId: string, messageCount: number): void {
    const count = checkedMessageCount(messageCount);
    if (!this.#active) return;
    this.#active = { ...this.#active, checkpointEntryId: entryId, messageCount: count };
  }

  rewind(input: unknown): ToolResult<{ report: string; rewound: true }> {
    if (this.#isSubagent) throw new ToolError('Checkpoint not available in subagents.');
    if (!this.#active) throw new ToolError('No active checkpoint.');
    const parsed = rewindInput.safeParse(input);
    if (!parsed.success) throw new ToolError(`Invalid rewind input: ${parsed.error.issues[0]?.message ?? 'expected { report: string }'}`);
    const report = parsed.data.report.trim();
    if (report.length === 0) throw new ToolError('Report cannot be empty.');
    this.#pendingReport = report;
    return { text: 'Rewind requested.\nReport captured for context replacement.', details: { report, rewound: true } };
  }

  /**
   * Call when the turn ends. With a rewind pending: returns the in-memory messages cut to the checkpoint's count
   * plus a hidden `rewind-report` message, and records the rewind in the session (a branch_summary carrying the
   * report from the checkpoint entry, then the hidden custom_message). Without one: undefined, nothing changes.
   */
  async applyAtTurnEnd(messages: readonly AgentMessage[]): Promise<AgentMessage[] | undefined> {
    const active = this.#active;
    const report = this.#pendingReport;
    if (!active || report === undefined) return undefined;
    const rewoundAt = this.#now().toISOString();
    const details = { startedAt: active.startedAt, rewoundAt };
    await this.session.transaction(() => {
      let from = active.checkpointEntryId;
      if (from !== null && !this.session.getEntry(from)) {
        this.#warn('Rewind branch checkpoint missing, falling back to root');
        from = null;
      }
      this.session.branchWithSummary(from, report, { startedAt: active.startedAt });
      this.session.appendCustomMessageEntry(REWIND_REPORT_TYPE, report, false, details);
    });
    this.#active = undefined;
    this.#pendingReport = undefined;
    const kept = messages.slice(0, Math.min(Math.max(active.messageCount, 0), messages.length));
    const hidden: CustomAgentMessage = createCustomMessage(REWIND_REPORT_TYPE, report, false, details, rewoundAt);
    return [...kept, hidden];
  }
}
