// A Gemini CLI session as the engine's read model (ForeignSessionView), plus what only Gemini has: the typed prompts
// with where their records start in the file (Gemini's hooks give no prompt id: a hook snapshot is tied to its prompt
// by the hook's record of the file's size and the prompt's text), the model, and the lines a fork copies.
import { ForeignSessionBase } from '../foreign-session';
import type { ForeignSessionView, ForkOrigin, OriginCheckpoint, SessionViewLoadReport, SubagentView } from '../session-view';
import type { GeminiPrompt, GeminiTree } from './convert';
import type { GeminiReplay } from './replay';

export interface GeminiSessionParts {
  sessionId: string;
  sessionRef: string;
  cwd: string;
  title: string;
  createdAt: string;
  tree: GeminiTree;
  replay: GeminiReplay;
  report: SessionViewLoadReport;
  /** The old layout: one JSON document, not a log of lines. */
  legacyJson: boolean;
  forkedFrom?: ForkOrigin;
}

export class GeminiSession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'gemini' as const;
  readonly model: string | undefined;
  private readonly promptByEntry: Map<string, GeminiPrompt>;
  /** Set by the source from the hooks' prompt records: entry id → the snapshot's anchor. */
  private matchedKeys: ReadonlyMap<string, string> = new Map();

  constructor(private readonly parts: GeminiSessionParts) {
    super(parts, parts.tree);
    this.model = parts.tree.model;
    this.promptByEntry = new Map(parts.tree.prompts.map((p) => [p.entryId, p]));
  }

  subagentsOf(): readonly SubagentView[] {
    return [];
  }

  checkpointKeysOf(userEntryId: string): readonly string[] {
    const key = this.matchedKeys.get(userEntryId);
    return key ? [key] : [];
  }

  useMatchedKeys(keys: ReadonlyMap<string, string>): void {
    this.matchedKeys = keys;
  }

  /** Set by the source once it has read the origins of a fork: copied prompt's entry id → where its snapshot is. */
  private originKeys: ReadonlyMap<string, readonly OriginCheckpoint[]> = new Map();
  useOriginKeys(keys: ReadonlyMap<string, readonly OriginCheckpoint[]>): void {
    this.originKeys = keys;
  }

  originCheckpointsOf(userEntryId: string): readonly OriginCheckpoint[] {
    return this.originKeys.get(userEntryId) ?? [];
  }

  isInherited(entryId: string): boolean {
    return this.originKeys.has(entryId);
  }

  /** Every typed prompt in the order recorded (rewound-away ones included). */
  userPrompts(): readonly GeminiPrompt[] {
    return this.parts.tree.prompts;
  }

  promptOf(entryId: string): GeminiPrompt | undefined {
    return this.promptByEntry.get(entryId);
  }

  /** The replayed records (the fork writer copies the history before a prompt from them). */
  replay(): GeminiReplay {
    return this.parts.replay;
  }

  get legacyJson(): boolean {
    return this.parts.legacyJson;
  }
}
