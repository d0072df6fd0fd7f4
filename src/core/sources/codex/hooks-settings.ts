// Registers agent-rewind's hooks with the Codex CLI (and removes them again), so that Codex runs our handler when a
// prompt is submitted (the workspace snapshot for that turn) and when the turn ends (the turn-end snapshot).
//
// Where Codex 0.169 reads hooks: `$CODEX_HOME/hooks.json` (scope 'user') or `<project>/.codex/hooks.json` (scope
// 'project'; Codex reads project config only for a trusted project). Hooks only run with the feature switch
// `[features] hooks = true` (0.169 calls the older `codex_hooks` deprecated) in the same scope's config.toml, and only
// once the person has trusted them (Codex asks at startup in the TUI; `codex exec` skips untrusted hooks silently
// unless run with `--dangerously-bypass-hook-trust`).
//
// hooks.json has Claude Code's shape: `{hooks: {Event: [{hooks: [{type: "command", command}]}]}}`; `command` is a
// shell command line. Ours carries the mark `installedBy: "agent-rewind"` (isOurCodexHandler), so installing twice
// changes nothing and uninstalling removes only ours. Everything else in both files keeps its bytes (hooks-json.ts
// edits only where our handler goes; config.toml is edited line by line). Both files are read and replaced safely
// and together (settings-file.ts: regular files only, no symlink in a project, owner and mode kept, a concurrent
// change noticed and the edit applied again, both written or neither); a hooks.json that is not a JSON object, or a
// config.toml we cannot edit safely, is refused and left as is.
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { codexHome } from './discovery';
import { eventsWithHandler, HANDLER_MARK, installHandlers, removeHandlers } from '../hooks-json';
import { requireFolder } from '../hooks-settings-file';
import { editSettingsFiles, readSettingsFile, refuseLinkedFolder, type SettingsFileRef } from '../settings-file';

/** UserPromptSubmit: the snapshot for each prompt (fires in `codex exec` too); Stop: the turn-end one. */
export const CODEX_HOOK_EVENTS = ['UserPromptSubmit', 'Stop'] as const;
export type CodexHookEvent = (typeof CODEX_HOOK_EVENTS)[number];
export const CODEX_HOOK_ARGS = ['hook', 'codex'] as const;
const FEATURE_MARK = '# added by agent-rewind';

export type CodexHooksScope = 'project' | 'user';

export interface CodexHooksLocation {
  scope: CodexHooksScope;
  /** The project folder (scope 'project'). */
  projectDir?: string;
  /** CODEX_HOME for scope 'user' (default $CODEX_HOME, else ~/.codex). */
  codexHome?: string;
}

export interface CodexHooksChange {
  hooksFile: string;
  configFile: string;
  /** Events our handler was added to / was rewritten in (another launcher, an older install, duplicates) / was
   *  already in / was removed from. */
  added: string[];
  updated: string[];
  alreadyPresent: string[];
  removed: string[];
  /** Whether `[features] hooks = true` was added (install) or our line removed (uninstall). */
  featureChanged: boolean;
}

export class CodexSettingsError extends Error {}

export function codexHooksFiles(loc: CodexHooksLocation): { hooksFile: string; configFile: string } {
  let dir: string;
  if (loc.scope === 'project') {
    if (!loc.projectDir) throw new CodexSettingsError('a project folder is needed for project hooks');
    dir = join(resolve(loc.projectDir), '.codex');
  } else dir = resolve(loc.codexHome ?? codexHome());
  return { hooksFile: join(dir, 'hooks.json'), configFile: join(dir, 'config.toml') };
}

/** A POSIX shell command line from argv (each word quoted only when it needs it). */
export function shellCommand(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const LAUNCHER_NAMES = new Set(['agent-rewind', 'agent-rewind.cmd']);

/** The words of a command line as shellCommand writes it (bare words and single-quoted ones), else undefined. */
function shellWords(line: string): string[] | undefined {
  const words = [...line.matchAll(/(?:[A-Za-z0-9_@%+=:,./-]+|'(?:[^']|'\\'')*')(?= |$)/g)].map((m) => m[0]);
  const argv = words.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w));
  return shellCommand(argv) === line ? argv : undefined;
}

/**
 * A handler of ours: the one we write carries HANDLER_MARK. Handlers written by versions before the mark are ours
 * only when they are exactly what those versions wrote: `{type, command}` and nothing else, the command being
 * shellCommand of an agent-rewind launcher, or of a runtime and a `…/cli.js`, followed by `hook codex`. Another
 * program's handler whose command merely ends in `hook codex` is not ours.
 */
export function isOurCodexHandler(h: unknown): boolean {
  if (!isObject(h) || h.type !== 'command' || typeof h.command !== 'string') return false;
  if (h[HANDLER_MARK.key] === HANDLER_MARK.value) return true;
  if (Object.keys(h).sort().join(',') !== 'command,type') return false;
  const argv = shellWords(h.command);
  if (!argv || argv.length < 3 || argv[argv.length - 2] !== CODEX_HOOK_ARGS[0] || argv[argv.length - 1] !== CODEX_HOOK_ARGS[1]) return false;
  const launcher = argv.slice(0, -2);
  if (launcher.length === 1) return isAbsolute(launcher[0]!) && LAUNCHER_NAMES.has(basename(launcher[0]!));
  return launcher.length === 2 && isAbsolute(launcher[0]!) && isAbsolute(launcher[1]!) && basename(launcher[1]!) === 'cli.js';
}

const fail = (message: string) => new CodexSettingsError(message);

/** Both files as references: in a project neither may be a symlink nor sit under a linked `.codex` folder; in
 *  CODEX_HOME (the user's own) a link is written through. */
function refs(loc: CodexHooksLocation): { hooks: SettingsFileRef; config: SettingsFileRef } {
  const { hooksFile, configFile } = codexHooksFiles(loc);
  if (loc.scope === 'project') {
    requireFolder(resolve(loc.projectDir!), 'project folder', fail);
    refuseLinkedFolder(dirname(hooksFile), fail);
  }
  const followLink = loc.scope === 'user';
  return { hooks: { file: hooksFile, followLink }, config: { file: configFile, followLink } };
}

const emptyChange = (hooksFile: string, configFile: string): CodexHooksChange => ({
  hooksFile,
  configFile,
  added: [],
  updated: [],
  alreadyPresent: [],
  removed: [],
  featureChanged: false,
});

/**
 * Adds our handler for UserPromptSubmit and Stop. `command` is the handler's argv without the trailing
 * `hook codex` (e.g. `[process.execPath, '/abs/dist/cli.js']`), which is appended. hooks.json and config.toml are
 * written together or not at all.
 */
export function installCodexHooks(loc: CodexHooksLocation, command: readonly string[]): CodexHooksChange {
  if (command.length === 0) throw new CodexSettingsError('the hook command is empty');
  const r = refs(loc);
  const handler = { type: 'command', command: shellCommand([...command, ...CODEX_HOOK_ARGS]), [HANDLER_MARK.key]: HANDLER_MARK.value };
  const { result } = editSettingsFiles(
    [r.hooks, r.config],
    ([hooks, config]) => {
      const featured = withFeature(config!.text, r.config.file); // refused before anything is written
      const e = installHandlers(hooks!.text, r.hooks.file, CODEX_HOOK_EVENTS, handler, isOurCodexHandler, fail);
      const change = { ...emptyChange(r.hooks.file, r.config.file), added: e.added, updated: e.updated, alreadyPresent: e.alreadyPresent };
      change.featureChanged = featured !== config!.text;
      return { texts: [e.text, featured], result: change };
    },
    fail,
  );
  return result;
}

/** Removes our handlers (only ours), and the feature line we added once no hook is left in that hooks.json. */
export function uninstallCodexHooks(loc: CodexHooksLocation): CodexHooksChange {
  const r = refs(loc);
  const { result } = editSettingsFiles(
    [r.hooks, r.config],
    ([hooks, config]) => {
      const e = removeHandlers(hooks!.text, r.hooks.file, isOurCodexHandler, fail);
      const change = { ...emptyChange(r.hooks.file, r.config.file), removed: e.removed };
      const left = e.text.trim() === '' ? undefined : (JSON.parse(e.text.replace(/^\ufeff/, '')) as { hooks?: unknown }).hooks;
      const anyLeft = isObject(left) && Object.keys(left).length > 0;
      const unfeatured = anyLeft ? config!.text : withoutFeature(config!.text);
      change.featureChanged = unfeatured !== config!.text;
      return { texts: [e.text, unfeatured], result: change };
    },
    fail,
  );
  return result;
}

/** Which events have our handler (for a status line). */
export function codexHooksInstalled(loc: CodexHooksLocation): CodexHookEvent[] {
  try {
    const r = refs(loc);
    const events = eventsWithHandler(readSettingsFile(r.hooks, fail).text, r.hooks.file, isOurCodexHandler, fail);
    return CODEX_HOOK_EVENTS.filter((e) => events.includes(e));
  } catch {
    return [];
  }
}

/**
 * config.toml with `hooks = true` in its `[features]` table (added after the header, or a new table at the end).
 * There is no TOML parser here, so only shapes we can edit line by line are touched; others are refused: an inline
 * `features = {…}`, a `[features]` header twice, an open multi-line string. Every line written carries FEATURE_MARK
 * (a `hooks = …` line it replaces is kept in the mark), so that withoutFeature can give the file back as it was.
 */
export function withFeature(text: string, file = 'config.toml'): string {
  const lines = text.split('\n');
  if ((text.match(/"""/g)?.length ?? 0) % 2 === 1 || (text.match(/'''/g)?.length ?? 0) % 2 === 1) {
    throw new CodexSettingsError(`${file} has an unterminated multi-line string; it was left as it is`);
  }
  const header = (l: string) => /^\s*\[\s*features\s*\]\s*(#.*)?$/.test(l);
  const headers = lines.map((l, i) => (header(l) ? i : -1)).filter((i) => i >= 0);
  if (headers.length > 1) throw new CodexSettingsError(`${file} declares [features] twice; it was left as it is`);
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const root = firstTable < 0 ? lines : lines.slice(0, firstTable);
  if (root.some((l) => /^\s*features\s*=/.test(l)))
    throw new CodexSettingsError(`${file} sets features inline; add \`hooks = true\` to it by hand (it was left as it is)`);
  if (root.some((l) => /^\s*features\.hooks\s*=\s*true\b/.test(l))) return text;
  const cr = text.includes('\r\n') ? '\r' : '';
  if (headers.length === 1) {
    const start = headers[0]!;
    let end = lines.length;
    for (let i = start + 1; i < lines.length; i++)
      if (/^\s*\[/.test(lines[i]!)) {
        end = i;
        break;
      }
    for (let i = start + 1; i < end; i++) {
      const m = /^(\s*hooks\s*=\s*)(\w+)(.*)$/.exec(lines[i]!);
      if (!m) continue;
      if (m[2] === 'true') return text;
      const was = lines[i]!.replace(/\r$/, '');
      lines[i] = `hooks = true ${FEATURE_MARK} (was: ${was})${lines[i]!.endsWith('\r') ? '\r' : ''}`;
      return lines.join('\n');
    }
    lines.splice(start + 1, 0, `hooks = true ${FEATURE_MARK}${cr}`);
    return lines.join('\n');
  }
  const nl = `${cr}\n`;
  const sep = text === '' || text.endsWith('\n') ? '' : nl;
  return `${text}${sep}[features] ${FEATURE_MARK}${nl}hooks = true ${FEATURE_MARK}${nl}`;
}

/** config.toml without what withFeature wrote: its lines removed, a `hooks = …` line it replaced put back, and a
 *  `[features]` table it added removed once nothing else is in it. */
export function withoutFeature(text: string): string {
  const ours = new RegExp(`^hooks = true ${FEATURE_MARK}(?: \\(was: (.*)\\))?(\r?)$`);
  const ourTable = new RegExp(`^\\[features\\] ${FEATURE_MARK}\r?$`);
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const m = ours.exec(line);
    if (!m) lines.push(line);
    else if (m[1] !== undefined) lines.push(`${m[1]}${m[2]}`);
  }
  const at = lines.findIndex((l) => ourTable.test(l));
  if (at >= 0 && lines.slice(at + 1).every((l) => l.trim() === '')) return lines.slice(0, at).join('\n') + (at > 0 ? '\n' : '');
  return lines.join('\n');
}

const EVENT_KEYS: Record<CodexHookEvent, string> = { UserPromptSubmit: 'user_prompt_submit', Stop: 'stop' };

/**
 * Events whose hooks in this scope's hooks.json Codex has a trust record for. Codex 0.169 runs a hook only once the
 * person trusted it (the TUI asks at startup: "Hooks need review"), and records that in the USER config.toml
 * (`$CODEX_HOME/config.toml`, for both scopes) as `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
 * trusted_hash = "sha256:…"`. The hash covers the handler, so a changed command needs trusting again; a record here
 * may therefore be stale. agent-rewind never writes these records: trusting is the person's decision.
 */
export function codexHooksTrustRecorded(loc: CodexHooksLocation): CodexHookEvent[] {
  const { hooksFile } = codexHooksFiles(loc);
  const userConfig = join(resolve(loc.codexHome ?? codexHome()), 'config.toml');
  let text: string;
  try {
    text = readSettingsFile({ file: userConfig, followLink: true }, fail).text;
  } catch {
    return []; // a hint after installing: a config.toml that cannot be read (a FIFO, too large) has no trust record we can see
  }
  return CODEX_HOOK_EVENTS.filter((e) => text.includes(`[hooks.state.${JSON.stringify(`${hooksFile}:${EVENT_KEYS[e]}:`).slice(0, -1)}`));
}
