// `agent-rewind undo-rewind <session> [--workspace DIR]`: put the files back as they were before the last rewind.
import { CliError, type Command } from '../command';
import { withViewArg } from '../session-arg';
import { checkpointerFor } from './snapshot';
import { describeRewind } from './rewind-files';

export const undoRewindCommand: Command = {
  usage: 'undo-rewind <session> [--workspace DIR]',
  options: { workspace: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    await withViewArg(ctx, ctx.positionals[0], async (session) => {
      const fc = checkpointerFor(ctx, session);
      try {
        let result;
        try {
          result = await fc.undoLastRewind(session.sessionId);
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        ctx.out(result, () => describeRewind(result, false).replace(/^changed/, 'put back'));
      } finally {
        await fc.dispose();
      }
    });
  },
};
