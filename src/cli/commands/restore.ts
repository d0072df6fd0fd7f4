// `agent-rewind restore <session> <name>`: Rewind to a named checkpoint (a new active branch whose head is its message).
import type { Command } from '../command';
import { branchLine, conversationOf, requirePositional, withCliSession } from './branches';

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'rewind to a named checkpoint (a new active branch whose head is its message)',
  usage: 'restore <session> <name> [--json]',
  async run(ctx) {
    const id = requirePositional(ctx, 1, '<name>');
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const info = await conversationOf(session).restore(id);
      ctx.out(info, () => branchLine(info));
    });
  },
};
