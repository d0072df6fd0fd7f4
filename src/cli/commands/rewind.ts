// `agent-rewind rewind <session> <messageId> [--files] [--workspace DIR]`: rewind the conversation to a message.
// Ours, pi's, oh-my-pi's: a new active branch <current>-vN whose head is that message (docs/ARCHITECTURE.md, branches and checkpoints). Another agent's
// session (Claude Code, Codex) is never written: a new session file of that agent holds the conversation up to just
// before the message, and its resume command is printed. --files also puts the workspace files back as they were
// when the message was sent (undo-rewind puts them back again).
import { UsageError, type Command } from '../command';
import { withEngine } from '../engine-arg';
import { foreignAdaptersFor, resolveSessionArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { countOf } from './rewind-files';
import { foreignOwner, readFirstLine } from '../../core/sources';
import type { RewindOutcome } from '../../shared/view-models';

function outcomeText(o: RewindOutcome): string {
  const lines: string[] = [];
  if (o.fork) {
    lines.push(`new ${o.fork.agent} session ${o.fork.sessionId} holds the conversation up to just before that message`);
    lines.push(`  file:     ${o.fork.sessionRef}`);
    lines.push(`  continue: ${o.fork.resumeCommand.join(' ')}`);
    if (o.fork.promptText) lines.push(`  the message, to send again: ${o.fork.promptText}`);
  } else if (o.branch) {
    lines.push(`now on branch ${o.branch.name} (head ${o.branch.headMessageId})`);
  }
  if (o.mode !== 'conversation')
    lines.push(`files: ${countOf(o.filesChanged.length, 'file')} rewound${o.undoAvailable ? ' (undo-rewind puts them back)' : ''}`);
  else lines.push('the files are as they were: add --files to rewind them too');
  return lines.map((l) => forTerminal(l, { oneLine: true })).join('\n');
}

export const rewindCommand: Command = {
  usage: 'rewind <session> <messageId> [--files [--overwrite-user-modified] [--include-other-sessions]] [--workspace DIR] [--json] [--home DIR]',
  options: {
    files: { type: 'boolean' },
    'overwrite-user-modified': { type: 'boolean' },
    'include-other-sessions': { type: 'boolean' },
    workspace: { type: 'string' },
  },
  positionals: ['<session>', '<messageId>'],
  async run(ctx) {
    const [sessionArg, messageId] = ctx.positionals as [string, string];
    if (!messageId) throw new UsageError('missing <messageId>');
    const file = await resolveSessionArg(ctx, sessionArg);
    const foreign = foreignOwner(foreignAdaptersFor(ctx), file, await readFirstLine(file)) !== undefined;
    const withFiles = ctx.values.files === true;
    if (!foreign && !withFiles) {
      // a conversation rewind of ours: a new branch, logged like every rewind so undo-rewind takes it in its turn
      const branch = await withEngine(ctx, file, (engine) => engine.fork(file, messageId));
      ctx.out(branch, () =>
        [
          `now on branch ${forTerminal(branch.name, { oneLine: true })} (head ${branch.headMessageId}); the branch you left stays`,
          'the files are as they were: add --files to rewind them too (undo-rewind undoes this rewind)',
        ].join('\n'),
      );
      return;
    }
    const outcome = await withEngine(ctx, file, (engine) =>
      engine.applyRewind(file, messageId, withFiles ? 'all' : 'conversation', {
        overwriteUserModified: ctx.values['overwrite-user-modified'] === true,
        includeOtherSessions: ctx.values['include-other-sessions'] === true,
      }),
    );
    ctx.out(outcome.fork ? { ...outcome.fork, mode: outcome.mode, filesChanged: outcome.filesChanged, undoAvailable: outcome.undoAvailable } : outcome, () =>
      outcomeText(outcome),
    );
  },
};
