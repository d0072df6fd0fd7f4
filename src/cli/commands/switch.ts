// `agent-rewind switch <session> <branch>`: Make another branch of a session active.
import type { Command } from '../command';
import { branchLine, conversationOf, requirePositional, withCliSession } from './branches';

export const switchCommand: Command = {
  name: 'switch',
  summary: 'make another branch of a session active',
  usage: 'switch <session> <branch> [--json]',
  async run(ctx) {
    const id = requirePositional(ctx, 1, '<branch>');
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const info = await conversationOf(session).switchBranch(id);
      ctx.out(info, () => branchLine(info));
    });
  },
};
