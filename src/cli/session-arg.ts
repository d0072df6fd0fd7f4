// `<session>` on the command line: a path to a session file, a session's ref as `sessions --json` prints it (another
// agent's, e.g. a row of its database), or a session id (or a unique prefix of one) looked up in <home>/sessions/*/
// and then through the other agents' adapters. The CLI never turns a file without a valid header into a new session:
// it refuses instead.
import { resolve } from 'node:path';
import { CliError, UsageError, type CommandContext } from './command';
import { forTerminal } from './terminal-text';
import { loadCliSettings } from './cli-settings';
import { sessionsRoot, InvalidSessionFileError, SessionManager, FileSessionStorage } from '../core/session';
import { findSessionFilesById } from '../core/sources';
import type { EngineSettings } from '../core/engine';
// the source layer's modules themselves, not its index (which also brings the agents' hook installers)
import { agentName, foreignOwner, foreignSources } from '../core/sources/registry';
import { readFirstLine } from '../core/sources/session-sources';
import { ReadOnlySessionError } from '../core/sources/source-adapter';
import { isForeignView } from '../core/sources/session-view';
import type { SessionView, SourceAdapter } from '../core/sources';

const AMBIGUOUS_SHOWN = 10;

function looksLikePath(arg: string): boolean {
  return arg.endsWith('.jsonl') || arg.includes('/') || arg.includes('\\');
}

/** The session (its ref) `arg` names. Throws a UsageError when it is missing, a CliError when nothing matches. */
export async function resolveSessionArg(ctx: CommandContext, arg: string | undefined): Promise<string> {
  if (arg === undefined || arg === '') throw new UsageError('missing <session> (a session id or a path to a .jsonl file)');
  if (looksLikePath(arg)) {
    const file = resolve(ctx.cwd, arg);
    const st = new FileSessionStorage().statSync(file);
    if (st?.isFile) return file;
    // not a file: another agent's ref (a row of its database) when its adapter knows the session
    const owner = st ? undefined : foreignAdaptersFor(ctx).find((a) => a.owns(file, undefined));
    if (owner && (await (owner.stamp?.(file) ?? Promise.resolve(undefined))) !== undefined) return file;
    if (!st) throw new CliError(`session file not found: ${file}`);
    throw new CliError(`not a file: ${file}`);
  }
  let files = findSessionFilesById(arg, { home: ctx.home, warn: warnOnStderr });
  if (files.length === 0) {
    // Another agent's session named by its id (Claude Code's and Codex's ids are uuids).
    const settings = cliSettings(ctx);
    for (const adapter of foreignSources(settings)) {
      files.push(...((await adapter.findById?.(arg, { settings, workspaceRoots: [], warn: warnOnStderr })) ?? []));
    }
    files = [...new Set(files)];
  }
  if (files.length === 0) throw new CliError(`no session with id "${arg}" in ${sessionsRoot(ctx.home)} or another agent's sessions`);
  if (files.length > 1) {
    const shown = files.slice(0, AMBIGUOUS_SHOWN);
    const more = files.length > shown.length ? `\n  …and ${files.length - shown.length} more; type more of the id` : '';
    throw new CliError(`session id "${arg}" is ambiguous (${files.length} sessions):\n  ${shown.join('\n  ')}${more}`);
  }
  return files[0]!;
}

/** The settings a CLI call works with (its home included): the extension's agentRewind.* keys, from the file
 *  cli-settings.ts finds (<home>/config.json or VS Code's settings.json), else the same defaults. */
export function cliSettings(ctx: CommandContext): EngineSettings {
  return loadCliSettings(ctx.home).settings;
}

/** The readers of other agents' sessions, for this call's home. */
export function foreignAdaptersFor(ctx: CommandContext): SourceAdapter[] {
  return foreignSources(cliSettings(ctx));
}

/** Another agent's session, read-only, when `file` is one (undefined: one of ours, pi's or oh-my-pi's). */
async function openForeignFile(ctx: CommandContext, file: string): Promise<SessionView | undefined> {
  const owner = foreignOwner(foreignAdaptersFor(ctx), file, await readFirstLine(file));
  if (!owner) return undefined;
  try {
    const view = await owner.open(file);
    for (const s of view.getLoadReport().skipped) warnOnStderr(`${file}:${s.line}: skipped (${s.reason})`);
    return view;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** Runs fn on `<session>` read-only, whichever agent wrote it (ours, pi, oh-my-pi, Claude Code, Codex). */
export async function withViewArg<T>(ctx: CommandContext, arg: string | undefined, fn: (view: SessionView) => Promise<T>): Promise<T> {
  const file = await resolveSessionArg(ctx, arg);
  const foreign = await openForeignFile(ctx, file);
  if (foreign) return fn(foreign);
  return withSessionArg(ctx, file, fn);
}

/** Opens `<session>` for a CLI call: nothing deferred, problems reported on stderr. Close it when done. Another
 *  agent's session is refused with a clear error: it is only ever read (withViewArg). */
export async function openSessionArg(ctx: CommandContext, arg: string | undefined): Promise<SessionManager> {
  const file = await resolveSessionArg(ctx, arg);
  const owner = foreignOwner(foreignAdaptersFor(ctx), file, await readFirstLine(file));
  if (owner) throw new CliError(new ReadOnlySessionError(agentName(owner.kinds[0]!), 'Changing this session').message);
  let session: SessionManager;
  try {
    session = await SessionManager.open(file, { home: ctx.home, deferUntilAssistant: false, onInvalidHeader: 'throw' });
  } catch (err) {
    if (err instanceof InvalidSessionFileError) throw new CliError(err.message);
    throw err;
  }
  const report = session.getLoadReport();
  for (const s of report.skipped) warnOnStderr(`${file}:${s.line}: skipped (${s.reason})`);
  // reading never changes the file: an old format is read as v3, and the file is upgraded by the first write
  if (report.migratedFrom !== undefined)
    noteOnStderr(
      `${file} is in format v${report.migratedFrom}; it is read as v3, and upgraded (after a backup of its bytes) only when something is written to it`,
    );
  if (report.backupFile) noteOnStderr(`the previous bytes were saved to ${report.backupFile}`);
  for (const h of report.missingBlobs ?? []) warnOnStderr(`image blob ${h} is missing from the blob store`);
  warnAboutOrphans(session);
  return session;
}

/** The one way CLI code reports a problem it works around (stdout stays for the result). */
export function warnOnStderr(message: string): void {
  process.stderr.write(`agent-rewind: warning: ${forTerminal(message)}\n`);
}

function noteOnStderr(message: string): void {
  process.stderr.write(`agent-rewind: note: ${forTerminal(message)}\n`);
}

const ORPHANS_NAMED = 5;

/** Entries whose parent is not in the file (its line was removed or is unreadable): the context built through them
 *  silently starts there, so say so. */
function warnAboutOrphans(session: SessionManager): void {
  const orphans = session.getEntries().filter((e) => e.parentId !== null && !session.getEntry(e.parentId));
  for (const e of orphans.slice(0, ORPHANS_NAMED))
    warnOnStderr(`entry ${e.id} names a parent ${e.parentId} that is not in the file; the path to it starts there`);
  if (orphans.length > ORPHANS_NAMED) warnOnStderr(`…and ${orphans.length - ORPHANS_NAMED} more entries whose parent is not in the file`);
}

export { isForeignView };

/** Runs fn on the opened session and always closes (flushes) it afterwards. */
export async function withSessionArg<T>(ctx: CommandContext, arg: string | undefined, fn: (session: SessionManager) => Promise<T>): Promise<T> {
  const session = await openSessionArg(ctx, arg);
  const backupBefore = session.getLoadReport().backupFile;
  try {
    return await fn(session);
  } finally {
    await session.close();
    // a write upgraded an old-format file: say where its original bytes are
    const { backupFile, migratedFrom } = session.getLoadReport();
    if (backupFile && backupFile !== backupBefore)
      noteOnStderr(`${session.sessionRef} was upgraded from format v${migratedFrom ?? '?'} to v3; the previous bytes were saved to ${backupFile}`);
  }
}
