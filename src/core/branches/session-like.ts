// The part of SessionManager (src/core/session/session-manager.ts) that branches, state and the agent tools use.
// Kept as a structural type so these modules depend on the contract, not on the class.
import type { AgentMessage, ContentBlock, SessionContext, SessionEntry, SessionHeader } from '../session/types';

export interface SessionLike {
  readonly sessionId: string;
  readonly sessionFile: string | undefined;
  getHeader(): SessionHeader;
  getEntries(): readonly SessionEntry[];
  getEntry(id: string): SessionEntry | undefined;
  getLeafId(): string | null;
  appendMessage(message: AgentMessage, opts?: { id?: string }): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: string | ContentBlock[], display: boolean, details?: unknown): string;
  branch(entryId: string): void;
  resetLeaf(): void;
  branchWithSummary(fromId: string | null, summary: string, details?: unknown, fromExtension?: boolean): string;
  buildSessionContext(leafId?: string | null): SessionContext;
  /** Lock, read what other processes appended, run fn, write + fsync, unlock. */
  transaction<T>(fn: () => T | Promise<T>): Promise<T>;
  syncFromDisk(): Promise<number>;
}

export function sessionCreatedAt(session: SessionLike): number {
  const t = Date.parse(session.getHeader().timestamp);
  return Number.isFinite(t) ? t : 0;
}
