// `agent-rewind sessions [--cwd DIR] [--all]`: our, pi and oh-my-pi sessions of a folder (or of every folder).
import { cwdOption, type Command } from '../command';
import { cliSettings, warnOnStderr } from '../session-arg';
import { foreignSources } from '../../core/sources';
import { forTerminal } from '../terminal-text';
import { listAllSessions, listSessions, type SessionSummary } from '../../core/sources';

/** A listed session: `ref` names it to the other commands (a file per session: its path); `file` is the file that
 *  holds it (another agent's database for a row of it). */
type ListedSession = SessionSummary & { ref: string };

function table(list: ListedSession[]): string {
  if (list.length === 0) return '(no sessions)';
  // entries are counted where the listing knows them without reading the session whole (ours, pi's); "–" elsewhere
  const header = `${'STARTED'.padEnd(19)}  ${'AGENT'.padEnd(12)}  ${'ENTRIES'.padStart(7)}  ${'ID'.padEnd(36)}  TITLE\n${''.padEnd(4)}SESSION`;
  const rows = list.map(
    (s) =>
      forTerminal(
        `${s.created.slice(0, 19).replace('T', ' ')}  ${s.source.padEnd(12)}  ${String(s.entryCount ?? '–').padStart(7)}  ${s.id.padEnd(36)}  ${s.title ?? ''}${s.problem ? `  [${s.problem}]` : ''}`,
        { oneLine: true },
      ) + `\n    ${forTerminal(s.ref, { oneLine: true })}`,
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
    const list: ListedSession[] = (all ? await listAllSessions(opts) : await listSessions(cwd, opts)).map((s) => ({ ...s, ref: s.file }));
    // Other agents' sessions of this folder (--all: of every folder), read in place.
    const settings = cliSettings(ctx);
    for (const adapter of foreignSources(settings)) {
      const fileOf = (ref: string) => (adapter.fileOf ? (adapter.fileOf(ref) ?? ref) : ref);
      const listings = await adapter.list({ settings, workspaceRoots: [all ? '/' : cwd], warn: warnOnStderr }).catch((error: unknown) => {
        warnOnStderr(`cannot list ${adapter.kinds[0]} sessions: ${(error as Error).message}`);
        return [];
      });
      for (const l of listings) {
        list.push({
          id: l.sessionId,
          ref: l.sessionRef,
          file: fileOf(l.sessionRef),
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
