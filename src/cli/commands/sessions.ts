// `agent-rewind sessions [--cwd DIR] [--all]`: our, pi and oh-my-pi sessions of a folder (or of every folder).
import { cwdOption, type Command } from '../command';
import { warnOnStderr } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { listAllSessions, listSessions, type SessionSummary } from '../../core/session/discovery';

function table(list: SessionSummary[]): string {
  if (list.length === 0) return '(no sessions)';
  return list
    .map((s) => forTerminal(`${s.created.slice(0, 19).replace('T', ' ')}  ${s.source.padEnd(12)}  ${String(s.entryCount ?? '?').padStart(6)}  ${s.id}  ${s.title ?? ''}${s.problem ? `  [${s.problem}]` : ''}`, { oneLine: true }) + `\n    ${forTerminal(s.file, { oneLine: true })}`)
    .join('\n');
}

export const sessionsCommand: Command = {
  usage: 'sessions [--cwd DIR] [--all] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, all: { type: 'boolean' } },
  positionals: [],
  async run(ctx) {
    const cwd = cwdOption(ctx);
    const opts = { home: ctx.home, warn: warnOnStderr };
    const list = ctx.values.all === true ? await listAllSessions(opts) : await listSessions(cwd, opts);
    ctx.out(list, () => table(list));
  },
};
