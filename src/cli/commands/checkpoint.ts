// `agent-rewind checkpoint <session> <name>`: a named pointer to the active branch's head (reusing a name moves it).
import type { Command } from '../command';
import { conversationOf, requirePositional, withCliSession } from './branches';

export const checkpointCommand: Command = {
  name: 'checkpoint',
  summary: "name the active branch's head message as a checkpoint to restore later",
  usage: 'checkpoint <session> <name> [--json]',
  async run(ctx) {
    const name = requirePositional(ctx, 1, '<name>');
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const info = await conversationOf(session).checkpoint(name);
      ctx.out(info, () => `checkpoint ${info.name} → message ${info.messageId}`);
    });
  },
};
