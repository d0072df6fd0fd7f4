// A Claude Code transcript as the engine's read model (ForeignSessionView), plus what only Claude Code has: prompt ids
// for hook snapshots, its own file checkpoints, and which entries a fork copied from its origin.
import { ForeignSessionBase } from '../foreign-session';
import type { ForeignSessionView, ForkOrigin, OriginCheckpoint, SessionViewLoadReport, SubagentView } from '../session-view';
import type { FileHistory, FileHistoryFile } from './file-history';
import type { NormalizedTree, UserPrompt } from './normalize';

export interface ClaudeSessionParts {
  sessionId: string;
  sessionRef: string;
  cwd: string;
  title: string;
  createdAt: string;
  tree: NormalizedTree;
  report: SessionViewLoadReport;
  subagents: Map<string, SubagentView[]>;
  fileHistory: FileHistory;
  forkedFrom?: ForkOrigin;
  /** Entry ids copied from the origin by a fork. */
  inherited: Set<string>;
}

export class ClaudeSession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'claude' as const;
  private readonly tree: NormalizedTree;
  private readonly promptByEntry: Map<string, UserPrompt>;

  /** Any line uuid works as an entry id, including every line of a multi-line assistant message (the tree's alias). */
  constructor(private readonly parts: ClaudeSessionParts) {
    super(parts, parts.tree);
    this.tree = parts.tree;
    this.promptByEntry = new Map(parts.tree.prompts.map((p) => [p.entryId, p]));
  }

  subagentsOf(toolCallId: string): readonly SubagentView[] {
    return this.parts.subagents.get(toolCallId) ?? [];
  }

  checkpointKeysOf(userEntryId: string): readonly string[] {
    const id = this.getEntry(userEntryId)?.id ?? '';
    const p = this.promptByEntry.get(id);
    const matched = this.matchedKeys.get(id);
    return [...(p?.promptId ? [p.promptId] : []), ...(matched && matched !== p?.promptId ? [matched] : [])];
  }

  /** Set by the source once it has read the origin (claude-source.ts): copied prompt's entry id → where it came from. */
  private originKeys: ReadonlyMap<string, readonly OriginCheckpoint[]> = new Map();
  useOriginKeys(keys: ReadonlyMap<string, readonly OriginCheckpoint[]>): void {
    this.originKeys = keys;
  }

  originCheckpointsOf(userEntryId: string): readonly OriginCheckpoint[] {
    const id = this.getEntry(userEntryId)?.id;
    return (id !== undefined && this.originKeys.get(id)) || [];
  }

  /** Hook snapshots tied to prompts by the hook's records (prompt-records.ts), for lines that carry no promptId
   *  (Claude Code before 2.1.196) or whose promptId a fork rewrote: entry id → snapshot key. */
  private matchedKeys: ReadonlyMap<string, string> = new Map();
  useMatchedKeys(keys: ReadonlyMap<string, string>): void {
    this.matchedKeys = keys;
  }

  /** The promptId of the line an entry came from (prompts, and in 2.1.330 the tool results of that turn). */
  promptIdOf(entryId: string): string | undefined {
    const id = this.getEntry(entryId)?.id;
    return id === undefined ? undefined : this.tree.promptIds.get(id.replace(/#\d+$/, ''));
  }

  /** Every typed prompt in file order, with where its line starts in the file (to match hook snapshots). */
  userPrompts(): readonly UserPrompt[] {
    return this.tree.prompts;
  }

  /** Whether the entry was copied from the session this one was forked from. */
  isInherited(entryId: string): boolean {
    const id = this.getEntry(entryId)?.id;
    return id !== undefined && this.parts.inherited.has(id);
  }

  ownFileCheckpointAt(userEntryId: string): { files: { path: string; source: string | null }[]; coverage: string } | undefined {
    const history = this.fileHistoryAt(userEntryId);
    if (!history || history.files.length === 0) return undefined;
    return {
      files: history.files.map((f) => ({ path: f.path, source: f.backupFile })),
      coverage:
        "From Claude Code's own checkpoint: it covers only the files Claude's edit tools (Write, Edit) changed, not changes made through Bash or by hand. Set up Claude Code checkpoints for exact snapshots of every prompt.",
    };
  }

  /** Claude Code's own checkpoint for a prompt: each file it tracked from then on, as it was when the prompt was sent. */
  fileHistoryAt(userEntryId: string): { files: FileHistoryFile[] } | undefined {
    const id = this.getEntry(userEntryId)?.id;
    const line = id === undefined ? undefined : this.tree.promptLines.get(id);
    if (id === undefined || line === undefined) return undefined;
    return this.parts.fileHistory.at(id, line, this.cwd);
  }
}
