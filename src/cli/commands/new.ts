// `agent-rewind new [--cwd DIR] [--title T]`: creates a session file (header written at once) and prints its id and path.
import { cwdOption, type Command } from '../command';
import { SessionManager } from '../../core/session';

export const newCommand: Command = {
  usage: 'new [--cwd DIR] [--title T] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, title: { type: 'string' } },
  positionals: [],
  async run(ctx) {
    const cwd = cwdOption(ctx);
    const title = typeof ctx.values.title === 'string' ? ctx.values.title : undefined;
    const session = SessionManager.create(cwd, { home: ctx.home, title, deferUntilAssistant: false });
    await session.close();
    ctx.out({ id: session.sessionId, file: session.sessionFile }, () => `${session.sessionId}\n${session.sessionFile}`);
  },
};
