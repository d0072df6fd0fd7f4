// `agent-rewind context <session> [--leaf ID]`: what would be sent to the model from that leaf (buildSessionContext).
import { CliError, type Command } from '../command';
import { withViewArg } from '../session-arg';

export const contextCommand: Command = {
  usage: 'context <session> [--leaf ID] [--json] [--home DIR]',
  options: { leaf: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const leaf = typeof ctx.values.leaf === 'string' ? ctx.values.leaf : undefined;
    const context = await withViewArg(ctx, ctx.positionals[0], async (session) => {
      if (leaf !== undefined && !session.getEntry(leaf)) throw new CliError(`no entry "${leaf}" in session ${session.sessionId}`);
      return session.buildSessionContext(leaf ?? session.getLeafId());
    });
    ctx.out(context);
  },
};
