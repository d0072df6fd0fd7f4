// `agent-rewind rewind <session> <messageId> [--files] [--workspace DIR]`: rewind the conversation to a message.
// Ours, pi's, oh-my-pi's: a new active branch <current>-vN whose head is that message (seed 001). Another agent's
// session (Claude Code, Codex) is never written: a new session file of that agent holds the conversation up to just
// before the message, and its resume command is printed. --files also puts the workspace files back as they were
// when the message was sent (undo-rewind puts them back again).
import { resolve } from 'node:path';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { foreignAdaptersFor, resolveSessionArg, withViewArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { branchLine, conversationOf } from './branches';
import { RewindEngine } from '../../core/engine/engine';
import { parseSettings } from '../../core/engine/settings';
import { foreignOwner, foreignSources } from '../../core/sources/foreign';
import { readFirstLine } from '../../core/sources/session-sources';
import type { RewindOutcome } from '../../shared/view-models';
import { withSessionArg } from '../session-arg';

function outcomeText(o: RewindOutcome): string {
  const lines: string[] = [];
  if (o.fork) {
    lines.push(`new ${o.fork.agent} session ${o.fork.sessionId} holds the conversation up to just before that message`);
    lines.push(`  file:     ${o.fork.sessionFile}`);
    lines.push(`  continue: ${o.fork.resumeCommand.join(' ')}`);
    if (o.fork.promptText) lines.push(`  the message, to send again: ${o.fork.promptText}`);
  } else if (o.branch) {
    lines.push(`now on branch ${o.branch.name} (head ${o.branch.headMessageId})`);
  }
  if (o.mode !== 'conversation') lines.push(`files: ${o.filesChanged.length} changed${o.undoAvailable ? ' (undo-rewind puts them back)' : ''}`);
  return lines.map((l) => forTerminal(l, { oneLine: true })).join('\n');
}

async function rewindThroughEngine(ctx: CommandContext, file: string, messageId: string, withFiles: boolean): Promise<RewindOutcome> {
  const settings = parseSettings(() => undefined, { ...process.env, AGENT_REWIND_HOME: ctx.home });
  const cwd = await withViewArg(ctx, file, async (v) => v.cwd);
  const root = typeof ctx.values.workspace === 'string' ? resolve(ctx.cwd, ctx.values.workspace) : cwd;
  const engine = new RewindEngine({ settings, workspaceRoots: [root], foreignSources, warn: (m) => process.stderr.write(`agent-rewind: warning: ${forTerminal(m)}\n`) });
  try {
    return await engine.applyRewind(file, messageId, withFiles ? 'all' : 'conversation');
  } catch (err) {
    throw new CliError((err as Error).message);
  } finally {
    await engine.dispose();
  }
}

export const rewindCommand: Command = {
  usage: 'rewind <session> <messageId> [--files] [--workspace DIR] [--json] [--home DIR]',
  options: { files: { type: 'boolean' }, workspace: { type: 'string' } },
  positionals: ['<session>', '<messageId>'],
  async run(ctx) {
    const [sessionArg, messageId] = ctx.positionals as [string, string];
    if (!messageId) throw new UsageError('missing <messageId>');
    const file = await resolveSessionArg(ctx, sessionArg);
    const foreign = foreignOwner(foreignAdaptersFor(ctx), file, await readFirstLine(file)) !== undefined;
    const withFiles = ctx.values.files === true;
    if (!foreign && !withFiles) {
      const branch = await withSessionArg(ctx, file, (session) => conversationOf(session).rewind(messageId));
      ctx.out(branch, () => branchLine(branch));
      return;
    }
    const outcome = await rewindThroughEngine(ctx, file, messageId, withFiles);
    ctx.out(outcome.fork ? { ...outcome.fork, mode: outcome.mode, filesChanged: outcome.filesChanged, undoAvailable: outcome.undoAvailable } : outcome, () => outcomeText(outcome));
  },
};
