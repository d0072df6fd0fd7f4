// Registers agent-rewind's hooks in Claude Code's settings (and removes them again), so that Claude Code runs
// `agent-rewind hook claude` when a prompt is submitted (the snapshot of the workspace for that prompt) and when a
// turn ends (the turn-end snapshot that tells later hand edits apart).
//
// Where: the workspace's `.claude/settings.local.json` (per project, not committed), or with scope 'user' the user's
// settings: `$CLAUDE_CONFIG_DIR/settings.json` (its first entry when comma-separated), else `~/.claude/settings.json`.
// Shape (Claude Code hooks, exec form: no shell, absolute paths): event → matcher group `{hooks:[handler]}` →
// `{type:"command", command, args:[…, "hook", "claude"], timeout, installedBy: "agent-rewind"}`.
//
// Everything else in the file is kept byte for byte (hooks-json.ts edits only where our handler goes): other
// settings, other hooks, other handlers in the same group. Our handler is recognised by its mark (isOurHandler), so
// installing twice changes nothing and uninstalling removes only ours. The file is read and replaced safely
// (settings-file.ts: regular files only, no symlink in a project, owner and mode kept, a concurrent change noticed
// and the edit applied again); a file that is not valid JSON is refused and left as it is.
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { HANDLER_MARK, installHandlers, removeHandlers, type HooksJsonEdit } from '../hooks-json';
import { editHooksFile, hooksFileEvents, hooksSettingsRef, type HooksFileChange, type HooksFileScope } from '../hooks-settings-file';

/** The events our hook is registered for. UserPromptSubmit: the snapshot for each prompt; Stop: the turn-end one. */
export const CLAUDE_HOOK_EVENTS = ['UserPromptSubmit', 'Stop'] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/** The arguments that end every command line of ours (and identify our handlers). */
export const HOOK_ARGS = ['hook', 'claude'] as const;
/** Seconds Claude Code waits for the hook (its own default for UserPromptSubmit is 30 s too). */
export const HOOK_TIMEOUT_SECONDS = 30;

export type HooksScope = HooksFileScope;

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

/** What an install or uninstall did to the settings file. */
export type HooksChange = HooksFileChange;

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const LAUNCHER_NAMES = new Set(['agent-rewind', 'agent-rewind.cmd']);

/**
 * A handler of ours: the one we write carries HANDLER_MARK. Handlers written by versions before the mark are ours
 * only when they are exactly what those versions wrote: `{type, command, args, timeout: 30}` and nothing else, with
 * `args` `[hook, claude]` after an agent-rewind launcher, or `[<…/cli.js>, hook, claude]` after a runtime, all paths
 * absolute. Another program's handler whose command merely ends in `hook claude` is not ours.
 */
export function isOurHandler(h: unknown): boolean {
  if (!isObject(h) || h.type !== 'command') return false;
  if (h[HANDLER_MARK.key] === HANDLER_MARK.value) return true;
  const keys = Object.keys(h).sort().join(',');
  if (keys !== 'args,command,timeout,type' || h.timeout !== HOOK_TIMEOUT_SECONDS) return false;
  const { command, args } = h;
  if (typeof command !== 'string' || !isAbsolute(command) || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) return false;
  if (args.length === 2) return args[0] === HOOK_ARGS[0] && args[1] === HOOK_ARGS[1] && LAUNCHER_NAMES.has(basename(command));
  const [script, hook, agent] = args as string[];
  return args.length === 3 && isAbsolute(script!) && basename(script!) === 'cli.js' && hook === HOOK_ARGS[0] && agent === HOOK_ARGS[1];
}

export function ourHandler(launcher: HookLauncher): Record<string, unknown> {
  if (!launcher.command) throw new ClaudeSettingsError('the hook launcher needs a command');
  return {
    type: 'command',
    command: launcher.command,
    args: [...(launcher.args ?? []), ...HOOK_ARGS],
    timeout: HOOK_TIMEOUT_SECONDS,
    [HANDLER_MARK.key]: HANDLER_MARK.value,
  };
}

const fail = (message: string) => new ClaudeSettingsError(message);

function edit(loc: HooksLocation, apply: (text: string, file: string) => HooksJsonEdit): HooksChange {
  return editHooksFile(hooksSettingsRef(claudeSettingsFile(loc), loc, fail), loc.scope, apply, fail);
}

/** Adds our handler to each event (UserPromptSubmit, Stop) of the scope's settings file. */
export function installClaudeHooks(loc: HooksLocation, launcher: HookLauncher): HooksChange {
  const wanted = ourHandler(launcher);
  return edit(loc, (text, file) => installHandlers(text, file, CLAUDE_HOOK_EVENTS, wanted, isOurHandler, fail));
}

/** Removes every handler of ours (and only ours) from every event of the scope's settings file. */
export function uninstallClaudeHooks(loc: HooksLocation): HooksChange {
  return edit(loc, (text, file) => removeHandlers(text, file, isOurHandler, fail));
}

/** What the scope's settings file says about our hooks, without changing it. */
export function claudeHooksStatus(loc: HooksLocation): { file: string; events: string[] } {
  const ref = hooksSettingsRef(claudeSettingsFile(loc), loc, fail);
  return { file: ref.file, events: hooksFileEvents(ref, isOurHandler, fail) };
}
