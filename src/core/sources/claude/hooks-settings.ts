// Registers agent-rewind's hooks in Claude Code's settings (and removes them again), so that Claude Code runs
// `agent-rewind hook claude` when a prompt is submitted (the snapshot of the workspace for that prompt) and when a
// turn ends (the turn-end snapshot that tells later hand edits apart).
//
// Where: the workspace's `.claude/settings.local.json` (per project, not committed), or with scope 'user' the user's
// settings: `$CLAUDE_CONFIG_DIR/settings.json` (its first entry when comma-separated), else `~/.claude/settings.json`.
// Shape (Claude Code hooks, exec form: no shell, absolute paths): event → matcher group `{hooks:[handler]}` →
// `{type:"command", command, args:[…, "hook", "claude"], timeout}`.
//
// Everything else in the file is kept: other settings, other hooks, other handlers in the same group. Our handler
// is recognised by its trailing `hook claude` arguments (or, in the shell form, a command ending in `hook claude`),
// so installing twice changes nothing and uninstalling removes only ours. The file is replaced atomically (temp file +
// rename, through a symlink to its target); a file that is not valid JSON is refused and left as it is.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The events our hook is registered for. UserPromptSubmit: the snapshot for each prompt; Stop: the turn-end one. */
export const CLAUDE_HOOK_EVENTS = ['UserPromptSubmit', 'Stop'] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/** The arguments that end every command line of ours (and identify our handlers). */
export const HOOK_ARGS = ['hook', 'claude'] as const;
/** Seconds Claude Code waits for the hook (its own default for UserPromptSubmit is 30 s too). */
export const HOOK_TIMEOUT_SECONDS = 30;

export type HooksScope = 'workspace' | 'user';

/** How Claude Code should start agent-rewind: an executable and the arguments before `hook claude`. */
export interface HookLauncher {
  /** An absolute path (e.g. process.execPath, or the extension's own launcher). */
  command: string;
  /** e.g. [the absolute path of dist/cli.js]; `hook`, `claude` are appended. */
  args?: readonly string[];
}

export interface HooksLocation {
  scope: HooksScope;
  /** The workspace folder (scope 'workspace'). */
  workspace?: string;
  /** Defaults to process.env (CLAUDE_CONFIG_DIR). */
  env?: NodeJS.ProcessEnv;
  /** Defaults to os.homedir(). */
  homeDir?: string;
}

export interface HooksChange {
  /** The settings file (as named; a symlink is written through). */
  file: string;
  scope: HooksScope;
  /** Whether the file was written (false: it already said what we wanted, or did not exist and had nothing of ours). */
  written: boolean;
  /** The file did not exist and was created. */
  created: boolean;
  /** Events our handler was added to. */
  added: string[];
  /** Events that already had our handler exactly as wanted. */
  alreadyPresent: string[];
  /** Events whose handler of ours was rewritten (another launcher path, timeout, or duplicates dropped). */
  updated: string[];
  /** Events our handler was removed from. */
  removed: string[];
}

export class ClaudeSettingsError extends Error {}

/** The settings file of a scope. */
export function claudeSettingsFile(loc: HooksLocation): string {
  if (loc.scope === 'workspace') {
    if (!loc.workspace) throw new ClaudeSettingsError('a workspace folder is needed for workspace hooks');
    return join(resolve(loc.workspace), '.claude', 'settings.local.json');
  }
  const env = loc.env ?? process.env;
  const configured = (env.CLAUDE_CONFIG_DIR ?? '').split(',')[0]!.trim();
  if (configured) return join(resolve(configured), 'settings.json');
  return join(loc.homeDir ?? homedir(), '.claude', 'settings.json');
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A handler of ours: exec form whose args end with `hook claude`, or shell form whose command ends with it. */
export function isOurHandler(h: unknown): boolean {
  if (!isObject(h) || h.type !== 'command') return false;
  if (Array.isArray(h.args)) {
    const a = h.args;
    return a.length >= 2 && a[a.length - 2] === HOOK_ARGS[0] && a[a.length - 1] === HOOK_ARGS[1];
  }
  return typeof h.command === 'string' && /(^|\s)hook\s+claude\s*$/.test(h.command);
}

export function ourHandler(launcher: HookLauncher): JsonObject {
  if (!launcher.command) throw new ClaudeSettingsError('the hook launcher needs a command');
  return { type: 'command', command: launcher.command, args: [...(launcher.args ?? []), ...HOOK_ARGS], timeout: HOOK_TIMEOUT_SECONDS };
}

const sameJson = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b);

interface Loaded {
  /** The file written (the symlink's target when the settings file is a symlink). */
  target: string;
  exists: boolean;
  raw: string;
  settings: JsonObject;
  indent: string | number;
  trailingNewline: boolean;
  mode?: number;
}

function load(file: string): Loaded {
  let target = file;
  try {
    if (lstatSync(file).isSymbolicLink()) target = realpathSync(file);
  } catch {
    /* missing: created below */
  }
  let raw: string;
  try {
    raw = readFileSync(target, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { target, exists: false, raw: '', settings: {}, indent: 2, trailingNewline: true };
    throw new ClaudeSettingsError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const mode = statSync(target).mode & 0o7777;
  // an empty file holds no settings to lose: treated as {}
  if (raw.trim() === '') return { target, exists: true, raw, settings: {}, indent: 2, trailingNewline: true, mode };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
  } catch (err) {
    throw new ClaudeSettingsError(`${file} is not valid JSON (${(err as Error).message}); fix or remove it, it was left as it is`);
  }
  if (!isObject(parsed)) throw new ClaudeSettingsError(`${file} does not hold a JSON object; it was left as it is`);
  const indentMatch = /^[{[]\r?\n([ \t]+)\S/.exec(raw.replace(/^\ufeff/, ''));
  const indent = indentMatch ? (indentMatch[1]!.includes('\t') ? '\t' : indentMatch[1]!.length) : raw.includes('\n') ? 2 : 0;
  return { target, exists: true, raw, settings: parsed, indent, trailingNewline: raw.endsWith('\n'), mode };
}

/** The `hooks` object and the group list of an event, checked (a shape we do not know is refused, not rewritten). */
function eventGroups(settings: JsonObject, file: string, event: string, create: boolean): Json[] | undefined {
  let hooks = settings.hooks;
  if (hooks === undefined) {
    if (!create) return undefined;
    hooks = settings.hooks = {};
  }
  if (!isObject(hooks)) throw new ClaudeSettingsError(`${file}: "hooks" is not an object; it was left as it is`);
  let groups = hooks[event];
  if (groups === undefined) {
    if (!create) return undefined;
    groups = hooks[event] = [];
  }
  if (!Array.isArray(groups)) throw new ClaudeSettingsError(`${file}: "hooks.${event}" is not a list; it was left as it is`);
  return groups;
}

interface Found {
  group: JsonObject;
  index: number;
}

function findOurs(groups: Json[]): Found[] {
  const out: Found[] = [];
  for (const g of groups) {
    if (!isObject(g) || !Array.isArray(g.hooks)) continue;
    g.hooks.forEach((h, index) => {
      if (isOurHandler(h)) out.push({ group: g, index });
    });
  }
  return out;
}

/** Removes handlers (indexes per group, highest first), then groups left with no handler, then an empty event. */
function removeHandlers(settings: JsonObject, event: string, groups: Json[], found: Found[]): void {
  const byGroup = new Map<JsonObject, number[]>();
  for (const f of found) byGroup.set(f.group, [...(byGroup.get(f.group) ?? []), f.index]);
  for (const [g, idx] of byGroup) {
    const list = g.hooks as Json[];
    for (const i of idx.sort((a, b) => b - a)) list.splice(i, 1);
    if (list.length === 0) groups.splice(groups.indexOf(g), 1);
  }
  const hooks = settings.hooks as JsonObject;
  if (groups.length === 0) delete hooks[event];
}

function serialize(l: Loaded): string {
  const text = JSON.stringify(l.settings, null, l.indent);
  return l.trailingNewline ? text + '\n' : text;
}

/** Temp file + rename next to the target; the old file's mode is kept. Refuses when someone else changed the file
 *  since it was read (Claude Code itself writes settings.local.json): the caller reads again and retries. */
function writeAtomic(l: Loaded, text: string): boolean {
  const dir = dirname(l.target);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.agent-rewind.tmp`);
  writeFileSync(tmp, text, { flag: 'wx', mode: l.mode ?? 0o644 });
  try {
    let now: string | undefined;
    try {
      now = readFileSync(l.target, 'utf8');
    } catch {
      now = undefined;
    }
    if ((now ?? '') !== l.raw || (now !== undefined) !== l.exists) {
      unlinkSync(tmp);
      return false;
    }
    renameSync(tmp, l.target);
    return true;
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already renamed or gone */
    }
    throw err;
  }
}

function change(file: string, scope: HooksScope): HooksChange {
  return { file, scope, written: false, created: false, added: [], alreadyPresent: [], updated: [], removed: [] };
}

function edit(loc: HooksLocation, apply: (l: Loaded, file: string, c: HooksChange) => void): HooksChange {
  const file = claudeSettingsFile(loc);
  if (loc.scope === 'workspace') {
    const ws = resolve(loc.workspace!);
    let ok = false;
    try {
      ok = statSync(ws).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new ClaudeSettingsError(`workspace folder ${ws} does not exist or is not a folder`);
  }
  if (!isAbsolute(file)) throw new ClaudeSettingsError(`settings path ${file} is not absolute`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const l = load(file);
    const c = change(file, loc.scope);
    apply(l, file, c);
    if (c.added.length + c.updated.length + c.removed.length === 0) return c;
    if (writeAtomic(l, serialize(l))) {
      c.written = true;
      c.created = !l.exists;
      return c;
    }
  }
  throw new ClaudeSettingsError(`${file} kept changing while it was being updated; try again`);
}

/** Adds our handler to each event (UserPromptSubmit, Stop) of the scope's settings file. */
export function installClaudeHooks(loc: HooksLocation, launcher: HookLauncher): HooksChange {
  const wanted = ourHandler(launcher);
  return edit(loc, (l, file, c) => {
    for (const event of CLAUDE_HOOK_EVENTS) {
      const groups = eventGroups(l.settings, file, event, true)!;
      const found = findOurs(groups);
      if (found.length === 0) {
        groups.push({ hooks: [wanted] });
        c.added.push(event);
        continue;
      }
      const [first, ...extra] = found;
      const list = first!.group.hooks as Json[];
      if (extra.length === 0 && sameJson(list[first!.index]!, wanted)) {
        c.alreadyPresent.push(event);
        continue;
      }
      list[first!.index] = wanted;
      if (extra.length) removeHandlers(l.settings, event, groups, extra);
      c.updated.push(event);
    }
  });
}

/** Removes every handler of ours (and only ours) from every event of the scope's settings file. */
export function uninstallClaudeHooks(loc: HooksLocation): HooksChange {
  return edit(loc, (l, file, c) => {
    if (!l.exists) return;
    const hooks = l.settings.hooks;
    if (hooks === undefined) return;
    if (!isObject(hooks)) throw new ClaudeSettingsError(`${file}: "hooks" is not an object; it was left as it is`);
    for (const event of Object.keys(hooks)) {
      const groups = hooks[event];
      if (!Array.isArray(groups)) continue;
      const found = findOurs(groups);
      if (found.length === 0) continue;
      removeHandlers(l.settings, event, groups, found);
      c.removed.push(event);
    }
    if (c.removed.length && Object.keys(hooks).length === 0) delete l.settings.hooks;
  });
}

/** What the scope's settings file says about our hooks, without changing it. */
export function claudeHooksStatus(loc: HooksLocation): { file: string; events: string[] } {
  const file = claudeSettingsFile(loc);
  const l = load(file);
  const hooks = l.settings.hooks;
  if (!isObject(hooks)) return { file, events: [] };
  return { file, events: Object.keys(hooks).filter((e) => Array.isArray(hooks[e]) && findOurs(hooks[e] as Json[]).length > 0) };
}
