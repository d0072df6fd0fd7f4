// `agent-rewind sessions [--cwd DIR] [--all]`: our, pi and oh-my-pi sessions of a folder (or of every folder).
import { resolve } from 'node:path';
import type { Command } from '../command';
import { listAllSessions, listSessions, type SessionSummary } from '../../core/session/discovery';

function table(list: SessionSummary[]): string {
  if (list.length === 0) return '(no sessions)';
  return list
    .map((s) => `${s.created.slice(0, 19).replace('T', ' ')}  ${s.source.padEnd(12)}  ${String(s.entryCount ?? '?').padStart(6)}  ${s.id}  ${s.title ?? ''}${s.problem ? `  [${s.problem}]` : ''}\n    ${s.file}`)
    .join('\n');
}

export const sessionsCommand: Command = {
  name: 'sessions',
  summary: 'list the sessions of a folder (agent-rewind, pi and oh-my-pi)',
  usage: 'sessions [--cwd DIR] [--all] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, all: { type: 'boolean' } },
  async run(ctx) {
    const cwd = typeof ctx.values.cwd === 'string' ? resolve(ctx.cwd, ctx.values.cwd) : ctx.cwd;
    const list = ctx.values.all === true ? await listAllSessions({ home: ctx.home }) : await listSessions(cwd, { home: ctx.home });
    ctx.out(list, () => table(list));
  },
};
