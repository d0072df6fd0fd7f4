// `agent-rewind search <query> [--cwd DIR] [--all] [--limit N] [--per-session N]`: full-text search over the
// messages of a folder's sessions (ours, pi's, oh-my-pi's) through the catalog, which is refreshed first.
import { join, resolve } from 'node:path';
import { CliError, UsageError, type Command } from '../command';
import { Catalog, type CatalogFolder, type SearchHit } from '../../core/catalog';
import { sessionDirFor, FileSessionStorage } from '../../core/session';
import { sessionRoots } from '../../core/sources';
import { BOLD_OFF, BOLD_ON, field, forTerminal, unmarked } from '../terminal-text';
import { foreignSources, SessionSources } from '../../core/sources';
import { cliSettings, warnOnStderr } from '../session-arg';

function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number of at least 1, not "${String(value)}"`);
  return n;
}

/** The session folders of one working folder, or every folder of every tool with --all. */
function foldersOf(home: string, cwd: string | undefined): CatalogFolder[] {
  const storage = new FileSessionStorage();
  const out: CatalogFolder[] = [];
  for (const { source, root } of sessionRoots({ home })) {
    if (cwd !== undefined) out.push({ path: sessionDirFor(root, cwd), source });
    else for (const d of storage.listDirsSync(root)) if (d.startsWith('--') && d.endsWith('--')) out.push({ path: join(root, d), source });
  }
  return out;
}

/** Hits for a person: every piece of session text is one line with no controls; matches are marked bold (shown as
 *  bold on a terminal only, see forPerson). */
function human(hits: SearchHit[], query: string): string {
  if (hits.length === 0) return `No message matches "${field(query)}".`;
  const text = (t: string) => field(unmarked(t));
  const mark = (h: SearchHit) => {
    let out = '';
    let at = 0;
    for (const [s, e] of h.highlights) {
      out += `${text(h.snippet.slice(at, s))}${BOLD_ON}${text(h.snippet.slice(s, e))}${BOLD_OFF}`;
      at = e;
    }
    return out + text(h.snippet.slice(at));
  };
  const lines: string[] = [];
  let ref: string | undefined;
  for (const h of hits) {
    if (h.ref !== ref) {
      ref = h.ref;
      lines.push(`${lines.length ? '\n' : ''}${text(h.title)}  (${text(h.source)}, ${text(h.sessionId)})`, `  ${text(h.ref)}`);
    }
    lines.push(`  ${text(h.entryId)}  ${text(h.kind)}${h.branch ? ` on ${text(h.branch)}` : ''}: ${mark(h)}`);
  }
  return lines.join('\n');
}

export const searchCommand: Command = {
  usage: 'search <query> [--cwd DIR | --all] [--limit N] [--per-session N] [--json] [--home DIR]',
  options: { cwd: { type: 'string' }, all: { type: 'boolean' }, limit: { type: 'string' }, 'per-session': { type: 'string' } },
  async run(ctx) {
    const query = ctx.positionals.join(' ').trim();
    if (!query) throw new UsageError('what should be searched for? e.g. agent-rewind search "date parser"');
    if (ctx.values.all === true && ctx.values.cwd !== undefined) throw new UsageError('--cwd and --all do not go together');
    const limit = positiveInt(ctx.values.limit, 'limit', 20);
    const perSession = positiveInt(ctx.values['per-session'], 'per-session', 5);
    const cwd = ctx.values.all === true ? undefined : typeof ctx.values.cwd === 'string' ? resolve(ctx.cwd, ctx.values.cwd) : ctx.cwd;
    const warnings: string[] = [];
    let catalog: Catalog;
    const settings = cliSettings(ctx);
    const foreign = foreignSources(settings);
    // another agent's session is read, and its version told, by the adapter that listed it
    const foreignSessions = foreign.length ? new SessionSources(foreign) : undefined;
    const openForeign = async (ref: string) => foreignSessions?.open(ref).catch(() => undefined);
    const stampOf = async (ref: string) => foreignSessions?.stamp(ref).catch(() => undefined);
    try {
      catalog = await Catalog.open({ home: ctx.home, warn: (m) => warnings.push(m), openForeign, stampOf });
    } catch (error) {
      throw new CliError(`the session catalog cannot be opened: ${(error as Error).message}`);
    }
    try {
      const folders = foldersOf(ctx.home, cwd);
      await catalog.refresh(folders);
      // Other agents' sessions of this folder (or every folder), by file: their folders hold other folders' sessions.
      const listed = (await foreignSessions?.list({ settings, workspaceRoots: [cwd ?? '/'], warn: warnOnStderr })) ?? [];
      const refs = listed.map((l) => ({ ref: l.sessionRef, source: l.source, modifiedMs: l.modifiedMs }));
      if (refs.length) await catalog.refresh(refs);
      const hits = catalog.search(query, { limit, perSession, folders: folders.map((f) => f.path), refs: refs.map((r) => r.ref) });
      for (const w of warnings) process.stderr.write(`agent-rewind search: ${forTerminal(w)}\n`);
      ctx.out(hits, () => human(hits, query));
    } finally {
      await catalog.close();
    }
  },
};
