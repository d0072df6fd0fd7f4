// What every foreign session view (Claude Code, Codex) answers the same way, over the pi-shaped tree its reader built:
// the header, entries, the active leaf, paths and the model context. Each agent's class adds what only it has.
import { buildSessionContext, pathToLeaf } from '../session/context';
import type { SessionContext, SessionEntry, SessionHeader } from '../session/types';
import type { ForkOrigin, SessionViewLoadReport } from './session-view';

export interface ForeignTree {
  /** In file order; a parent always comes before its children. */
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  leafId: string | null;
  /** Other ids an entry answers to (Claude Code: every line of a multi-line assistant message). */
  alias?: Map<string, string>;
}

export interface ForeignSessionFacts {
  sessionId: string;
  sessionRef: string;
  cwd: string;
  title: string;
  createdAt: string;
  forkedFrom?: ForkOrigin;
  report: SessionViewLoadReport;
}

export abstract class ForeignSessionBase {
  readonly sessionId: string;
  readonly sessionRef: string;
  readonly cwd: string;
  readonly title: string;
  readonly createdAt: string;
  readonly forkedFrom?: ForkOrigin;
  readonly #report: SessionViewLoadReport;

  constructor(
    facts: ForeignSessionFacts,
    protected readonly base: ForeignTree,
  ) {
    this.sessionId = facts.sessionId;
    this.sessionRef = facts.sessionRef;
    this.cwd = facts.cwd;
    this.title = facts.title;
    this.createdAt = facts.createdAt;
    if (facts.forkedFrom) this.forkedFrom = facts.forkedFrom;
    this.#report = facts.report;
  }

  getHeader(): SessionHeader {
    return { type: 'session', version: 3, id: this.sessionId, timestamp: this.createdAt, cwd: this.cwd, title: this.title };
  }

  getEntries(): readonly SessionEntry[] {
    return this.base.entries;
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.base.byId.get(id) ?? this.base.byId.get(this.base.alias?.get(id) ?? '');
  }

  getLeafId(): string | null {
    return this.base.leafId;
  }

  getPath(leafId?: string | null): SessionEntry[] {
    if (leafId === null) return [];
    const leaf = this.getEntry(leafId ?? this.base.leafId ?? '');
    return leaf ? pathToLeaf(leaf, this.base.byId) : [];
  }

  /** What the agent would send from there (after a compaction: its summary and what follows). */
  buildSessionContext(leafId?: string | null): SessionContext {
    if (leafId === null) return buildSessionContext([], null);
    const id = this.getEntry(leafId ?? this.base.leafId ?? '')?.id ?? null;
    return buildSessionContext(this.base.entries, id, this.base.byId);
  }

  getLabel(_entryId?: string): string | undefined {
    return undefined; // neither agent labels messages
  }

  getLoadReport(): SessionViewLoadReport {
    return this.#report;
  }
}
