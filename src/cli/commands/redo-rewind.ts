// `agent-rewind redo-rewind <session> [--workspace DIR]`: apply the last undone rewind again (its branch active again,
// the files back at its message).
import type { Command } from '../command';
import { withEngine } from '../engine-arg';
import { resolveSessionArg } from '../session-arg';
import { describeUndo } from './undo-rewind';

export const redoRewindCommand: Command = {
  usage: 'redo-rewind <session> [--workspace DIR] [--json] [--home DIR]',
  options: { workspace: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    const result = await withEngine(ctx, file, (engine) => engine.redoRewind(file));
    ctx.out(result, () => describeUndo(result, 'rewound'));
  },
};
