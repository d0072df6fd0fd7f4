// An OpenCode session as the engine's read model (ForeignSessionView), plus what only OpenCode has: each prompt is a
// user message whose id is what the plugin's `chat.message` hook is given (so snapshots are keyed by it), and
// session.revert's hidden messages.
import { ForeignSessionBase } from '../foreign-session';
import type { ForeignSessionView, ForkOrigin, SessionViewLoadReport, SubagentView } from '../session-view';
import type { OcPrompt, OcTree } from './convert';
import type { OcSessionInfo } from './rows';

export interface OpenCodeSessionParts {
  info: OcSessionInfo;
  sessionRef: string;
  tree: OcTree;
  report: SessionViewLoadReport;
  /** The session it was forked from when we know it otherwise than by its parent_id (our record of the fork). */
  forkedFrom?: ForkOrigin;
}

export class OpenCodeSession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'opencode' as const;
  readonly info: OcSessionInfo;
  readonly model: string | undefined;
  private readonly tree: OcTree;
  private readonly promptByEntry: Map<string, OcPrompt>;

  constructor(parts: OpenCodeSessionParts) {
    const first = parts.tree.prompts[0]?.text.split('\n')[0]?.trim() ?? '';
    const forkedFrom: ForkOrigin | undefined = parts.forkedFrom ?? (parts.info.parentId ? { sessionId: parts.info.parentId } : undefined);
    super(
      {
        sessionId: parts.info.id,
        sessionRef: parts.sessionRef,
        cwd: parts.info.directory,
        title: parts.info.title.trim() || first.slice(0, 200) || parts.info.id,
        createdAt: new Date(parts.info.createdMs).toISOString(),
        report: parts.report,
        ...(forkedFrom ? { forkedFrom } : {}),
      },
      parts.tree,
    );
    this.info = parts.info;
    this.tree = parts.tree;
    this.model = parts.tree.model ?? parts.info.model;
    this.promptByEntry = new Map(parts.tree.prompts.map((p) => [p.entryId, p]));
  }

  subagentsOf(): readonly SubagentView[] {
    return [];
  }

  /** The user message's own id: what the plugin's chat.message hook snapshots under. */
  checkpointKeysOf(userEntryId: string): readonly string[] {
    return this.promptByEntry.has(userEntryId) ? [userEntryId] : [];
  }

  /** Every prompt in order (reverted ones included). */
  userPrompts(): readonly OcPrompt[] {
    return this.tree.prompts;
  }

  promptOf(entryId: string): OcPrompt | undefined {
    return this.promptByEntry.get(entryId);
  }

  /** Hidden by OpenCode's pending undo (session.revert). */
  isReverted(entryId: string): boolean {
    return this.tree.reverted.has(entryId);
  }
}
