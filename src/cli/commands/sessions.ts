// `agent-rewind sessions [--cwd DIR] [--all]`: our, pi and oh-my-pi sessions of a folder (or of every folder).
import { cwdOption, type Command } from '../command';
import { cliSettings, warnOnStderr } from '../session-arg';
import { foreignSources } from '../../core/sources';
import { forTerminal } from '../terminal-text';
import { listAllSessions, listSessions, type SessionSummary } from '../../core/sources';

function table(list: SessionSummary[]): string {
  if (list.length === 0) return '(no sessions)';
  // entries are counted where the listing knows them without reading the session whole (ours, pi's); "–" elsewhere
  const header = `${'STARTED'.padEnd(19)}  ${'AGENT'.padEnd(12)}  ${'ENTRIES'.padStart(7)}  ${'ID'.padEnd(36)}  TITLE\n${''.padEnd(4)}FILE`;
  const rows = list.map(
    (s) =>
      forTerminal(
        `${s.created.slice(0, 19).replace('T', ' ')}  ${s.source.padEnd(12)}  ${String(s.entryCount ?? '–').padStart(7)}  ${s.id.padEnd(36)}  ${s.title ?? ''}${s.problem ? `  [${s.problem}]` : ''}`,
        { oneLine: true },
      ) + `\n    ${forTerminal(s.file, { oneLine: true })}`,
  );
  return [header, ...rows].join('\n');
}

export const sessionsCommand: Command = {
  usage: 'sessions [--cwd DIR] [--all] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, all: { type: 'boolean' } },
  positionals: [],
  async run(ctx) {
    const cwd = cwdOption(ctx);
    const opts = { home: ctx.home, warn: warnOnStderr };
    const all = ctx.values.all === true;
    const list = all ? await listAllSessions(opts) : await listSessions(cwd, opts);
    // Other agents' sessions of this folder (--all: of every folder), read in place.
    const settings = cliSettings(ctx);
    for (const adapter of foreignSources(settings)) {
      const listings = await adapter.list({ settings, workspaceRoots: [all ? '/' : cwd], warn: warnOnStderr }).catch((error: unknown) => {
        warnOnStderr(`cannot list ${adapter.kinds[0]} sessions: ${(error as Error).message}`);
        return [];
      });
      for (const l of listings) {
        list.push({
          id: l.sessionId,
          file: l.sessionRef,
          title: l.title,
          created: l.createdAt ?? new Date(l.modifiedMs).toISOString(),
          modified: new Date(l.modifiedMs).toISOString(),
          cwd: l.cwd ?? '',
          source: l.source,
        });
      }
    }
    list.sort((a, b) => b.modified.localeCompare(a.modified) || b.created.localeCompare(a.created));
    ctx.out(list, () => table(list));
  },
};
