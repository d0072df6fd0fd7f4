// A Codex rollout as the engine's read model (ForeignSessionView), plus what only Codex has: the turn id of each
// prompt (what its hooks are given, so hook snapshots are keyed by it) and where each prompt's line is (for forks).
import { ForeignSessionBase } from '../foreign-session';
import type { ForeignSessionView, ForkOrigin, OriginCheckpoint, SessionViewLoadReport, SubagentView } from '../session-view';
import type { CodexPrompt, ReplayResult } from './replay';

export interface CodexSessionParts {
  sessionId: string;
  sessionRef: string;
  cwd: string;
  title: string;
  createdAt: string;
  tree: ReplayResult;
  report: SessionViewLoadReport;
  forkedFrom?: ForkOrigin;
  /** Earlier segments of the thread (TUI backtracks): oldest first, each continued from up to `cutByte`; detached
   *  ones are not continued by this file at all. Entries from them have ids prefixed `seg…:` / `old…:`. */
  segments?: CodexSegment[];
  /** The threads the inherited turns came from, nearest first (forked_from_id, rollout_reference parents). */
  originIds?: string[];
}

export interface CodexSegment {
  prefix: string;
  file: string;
  cutByte?: number;
  detached?: boolean;
}

export class CodexSession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'codex' as const;
  private readonly tree: ReplayResult;
  private readonly promptByEntry: Map<string, CodexPrompt>;

  constructor(private readonly parts: CodexSessionParts) {
    super(parts, parts.tree);
    this.tree = parts.tree;
    this.promptByEntry = new Map(parts.tree.prompts.map((p) => [p.entryId, p]));
  }

  subagentsOf(): readonly SubagentView[] {
    return [];
  }

  /** The turn id of the prompt's turn: what Codex's UserPromptSubmit / Stop hooks are given as `turn_id`. */
  checkpointKeysOf(userEntryId: string): readonly string[] {
    const t = this.promptByEntry.get(userEntryId)?.turnId;
    return t ? [t] : [];
  }

  /** A copied prompt keeps its turn id, which the origin's hook snapshotted it under, in the origin's thread. */
  originCheckpointsOf(userEntryId: string): readonly OriginCheckpoint[] {
    const turn = this.isInherited(userEntryId) ? this.promptByEntry.get(userEntryId)?.turnId : undefined;
    if (!turn) return [];
    return (this.parts.originIds ?? []).filter((id) => id !== this.sessionId).map((sessionId) => ({ sessionId, keys: [turn] }));
  }

  /** The turn an entry was recorded in. */
  turnIdOf(entryId: string): string | undefined {
    return this.tree.turnOf.get(entryId);
  }

  /** Every typed prompt in replay order (rolled-back ones included). */
  userPrompts(): readonly CodexPrompt[] {
    return this.tree.prompts;
  }

  promptOf(entryId: string): CodexPrompt | undefined {
    return this.promptByEntry.get(entryId);
  }

  /** The thread's earlier segment files this view reads (see CodexSessionParts.segments). */
  segments(): readonly CodexSegment[] {
    return this.parts.segments ?? [];
  }

  isInherited(entryId: string): boolean {
    return this.tree.inherited.has(entryId);
  }
}
