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
// shell command line. Ours is recognised by ending in `hook codex`, so installing twice changes nothing and
// uninstalling removes only ours. Everything else in both files is kept; files are replaced atomically (temp file +
// rename); a hooks.json that is not a JSON object, or a config.toml we cannot edit safely, is refused and left as is.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { codexHome } from './discovery';

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
  /** Events our handler was added to / was already in / was removed from. */
  added: string[];
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

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isOurCodexHandler(h: unknown): boolean {
  return isObject(h) && h.type === 'command' && typeof h.command === 'string' && /(^|\s)'?hook'?\s+'?codex'?\s*$/.test(h.command);
}

/**
 * Adds our handler for UserPromptSubmit and Stop. `command` is the handler's argv without the trailing
 * `hook codex` (e.g. `[process.execPath, '/abs/dist/cli.js']`), which is appended.
 */
export function installCodexHooks(loc: CodexHooksLocation, command: readonly string[]): CodexHooksChange {
  if (command.length === 0) throw new CodexSettingsError('the hook command is empty');
  const { hooksFile, configFile } = codexHooksFiles(loc);
  const hooks = loadHooks(hooksFile);
  const config = loadText(configFile);
  const featured = withFeature(config.text ?? '', configFile); // checked before anything is written
  const handler = { type: 'command', command: shellCommand([...command, ...CODEX_HOOK_ARGS]) };
  const change: CodexHooksChange = { hooksFile, configFile, added: [], alreadyPresent: [], removed: [], featureChanged: false };
  for (const event of CODEX_HOOK_EVENTS) {
    const groups = eventGroups(hooks.value, hooksFile, event, true)!;
    const ours = groups.flatMap((g) => (isObject(g) && Array.isArray(g.hooks) ? g.hooks.filter(isOurCodexHandler) : []));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(handler)) {
      change.alreadyPresent.push(event);
      continue;
    }
    dropOurs(groups);
    groups.push({ hooks: [handler] });
    change.added.push(event);
  }
  if (change.added.length) writeAtomic(hooksFile, JSON.stringify(hooks.value, null, 2) + '\n');
  if (featured !== (config.text ?? '')) {
    writeAtomic(configFile, featured);
    change.featureChanged = true;
  }
  return change;
}

/** Removes our handlers (only ours), and the feature line we added once no hook is left in that hooks.json. */
export function uninstallCodexHooks(loc: CodexHooksLocation): CodexHooksChange {
  const { hooksFile, configFile } = codexHooksFiles(loc);
  const change: CodexHooksChange = { hooksFile, configFile, added: [], alreadyPresent: [], removed: [], featureChanged: false };
  const hooks = loadHooks(hooksFile);
  if (hooks.exists) {
    for (const event of CODEX_HOOK_EVENTS) {
      const groups = eventGroups(hooks.value, hooksFile, event, false);
      if (groups && dropOurs(groups)) {
        change.removed.push(event);
        if (groups.length === 0) delete (hooks.value.hooks as JsonObject)[event];
      }
    }
    if (isObject(hooks.value.hooks) && Object.keys(hooks.value.hooks).length === 0) delete hooks.value.hooks;
    if (change.removed.length) writeAtomic(hooksFile, JSON.stringify(hooks.value, null, 2) + '\n');
  }
  const left = isObject(hooks.value.hooks) && Object.keys(hooks.value.hooks).length > 0;
  const config = loadText(configFile);
  if (!left && config.text?.includes(FEATURE_MARK)) {
    const text = config.text
      .split('\n')
      .filter((l) => !(l.includes(FEATURE_MARK) && /^\s*hooks\s*=/.test(l)))
      .join('\n');
    writeAtomic(configFile, text);
    change.featureChanged = true;
  }
  return change;
}

/** Which events have our handler (for a status line). */
export function codexHooksInstalled(loc: CodexHooksLocation): CodexHookEvent[] {
  const { hooksFile } = codexHooksFiles(loc);
  try {
    const hooks = loadHooks(hooksFile);
    return CODEX_HOOK_EVENTS.filter((e) =>
      (eventGroups(hooks.value, hooksFile, e, false) ?? []).some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isOurCodexHandler)),
    );
  } catch {
    return [];
  }
}

function dropOurs(groups: unknown[]): boolean {
  let dropped = false;
  for (let i = groups.length - 1; i >= 0; i--) {
    const g = groups[i];
    if (!isObject(g) || !Array.isArray(g.hooks)) continue;
    const kept = g.hooks.filter((h) => !isOurCodexHandler(h));
    if (kept.length === g.hooks.length) continue;
    dropped = true;
    if (kept.length === 0) groups.splice(i, 1);
    else g.hooks = kept;
  }
  return dropped;
}

function eventGroups(value: JsonObject, file: string, event: string, create: boolean): unknown[] | undefined {
  if (value.hooks === undefined) {
    if (!create) return undefined;
    value.hooks = {};
  }
  if (!isObject(value.hooks)) throw new CodexSettingsError(`${file}: "hooks" is not an object; it was left as it is`);
  const h = value.hooks;
  if (h[event] === undefined) {
    if (!create) return undefined;
    h[event] = [];
  }
  if (!Array.isArray(h[event])) throw new CodexSettingsError(`${file}: "hooks.${event}" is not a list; it was left as it is`);
  return h[event] as unknown[];
}

function loadText(file: string): { text: string | undefined } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { text: undefined };
    throw new CodexSettingsError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function loadHooks(file: string): { exists: boolean; value: JsonObject } {
  const { text } = loadText(file);
  if (text === undefined || text.trim() === '') return { exists: text !== undefined, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (err) {
    throw new CodexSettingsError(`${file} is not valid JSON (${(err as Error).message}); fix or remove it, it was left as it is`);
  }
  if (!isObject(parsed)) throw new CodexSettingsError(`${file} does not hold a JSON object; it was left as it is`);
  return { exists: true, value: parsed };
}

/**
 * config.toml with `hooks = true` in its `[features]` table (added after the header, or a new table at the end).
 * There is no TOML parser here, so only shapes we can edit line by line are touched; others are refused: an inline
 * `features = {…}`, a `[features]` header twice, an open multi-line string.
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
      lines[i] = `hooks = true ${FEATURE_MARK}`;
      return lines.join('\n');
    }
    lines.splice(start + 1, 0, `hooks = true ${FEATURE_MARK}`);
    return lines.join('\n');
  }
  const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return `${text}${sep}[features]\nhooks = true ${FEATURE_MARK}\n`;
}

/** Temp file + rename beside the target; a symlinked file is written through to its target (the link is kept). */
function writeAtomic(named: string, text: string): void {
  let file = named;
  try {
    if (lstatSync(named).isSymbolicLink()) file = realpathSync(named);
  } catch {
    /* missing: created */
  }
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    /* new file */
  }
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.agent-rewind.tmp`);
  writeFileSync(tmp, text, { flag: 'wx', mode });
  try {
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
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
  const text = loadText(userConfig).text ?? '';
  return CODEX_HOOK_EVENTS.filter((e) => text.includes(`[hooks.state.${JSON.stringify(`${hooksFile}:${EVENT_KEYS[e]}:`).slice(0, -1)}`));
}
