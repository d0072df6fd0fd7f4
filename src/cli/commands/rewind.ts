// `agent-rewind rewind <session> <messageId>`: Branch from a message: a new active branch <current>-vN whose head is that message.
import type { Command } from '../command';
import { branchLine, conversationOf, requirePositional, withCliSession } from './branches';

export const rewindCommand: Command = {
  name: 'rewind',
  summary: 'branch from a message: a new active branch <current>-vN whose head is that message',
  usage: 'rewind <session> <messageId> [--json]',
  async run(ctx) {
    const id = requirePositional(ctx, 1, '<messageId>');
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const info = await conversationOf(session).rewind(id);
      ctx.out(info, () => branchLine(info));
    });
  },
};
