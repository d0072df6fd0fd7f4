// `agent-rewind new [--cwd DIR] [--title T]`: creates a session file (header written at once) and prints its id and path.
import { cwdOption, type Command } from '../command';
import { withEngineIn } from '../engine-arg';

export const newCommand: Command = {
  usage: 'new [--cwd DIR] [--title T] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, title: { type: 'string' } },
  positionals: [],
  async run(ctx) {
    const cwd = cwdOption(ctx);
    const title = typeof ctx.values.title === 'string' ? ctx.values.title : undefined;
    const { id, file } = await withEngineIn(ctx, cwd, (engine) => engine.newSession(cwd, title ? { title } : {}));
    ctx.out({ id, file }, () => `${id}\n${file}`);
  },
};
