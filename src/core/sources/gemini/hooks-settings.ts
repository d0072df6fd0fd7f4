// Registers agent-rewind's hooks in Gemini CLI's settings (and removes them again), so that Gemini runs
// `agent-rewind hook gemini` before each prompt is worked on (BeforeAgent: the snapshot of the workspace for that
// prompt) and when a turn ends (AfterAgent: the turn-end snapshot that tells later hand edits apart).
//
// Where: the project's `.gemini/settings.json` (Gemini loads it only in a trusted folder), or with scope 'user'
// `<gemini home>/settings.json` (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`). Shape (Gemini CLI 0.61 hooks): event →
// group `{hooks:[handler]}` → `{type:"command", name, command, timeout}`; the command is one shell line (Gemini runs
// it with `bash -c` in the project folder), so the launcher's path and arguments are single-quoted, and the timeout is
// in milliseconds. Our handler is the one named `agent-rewind` whose command ends in `hook gemini`: installing twice
// changes nothing and uninstalling removes only ours. Everything else in the file keeps its bytes (hooks-json.ts); a
// file that is not strict JSON (Gemini also accepts comments) is refused and left as it is.
import { isAbsolute, join, resolve } from 'node:path';
import type { HookCommand } from '../agent';
import { installHandlers, removeHandlers, type HooksJsonEdit } from '../hooks-json';
import { editHooksFile, hooksFileEvents, hooksSettingsRef, type HooksFileChange, type HooksFileScope } from '../hooks-settings-file';
import { geminiHome } from './home';

/** BeforeAgent: the snapshot for each prompt; AfterAgent: the turn-end one. */
export const GEMINI_HOOK_EVENTS = ['BeforeAgent', 'AfterAgent'] as const;
export const HANDLER_NAME = 'agent-rewind';
const HOOK_ARGS = ['hook', 'gemini'] as const;
/** Milliseconds Gemini waits for the hook. */
export const HOOK_TIMEOUT_MS = 30_000;

export interface GeminiHooksLocation {
  scope: HooksFileScope;
  workspace?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

export type GeminiHooksChange = HooksFileChange;

export class GeminiSettingsError extends Error {}
const fail = (message: string) => new GeminiSettingsError(message);

export function geminiSettingsFile(loc: GeminiHooksLocation): string {
  if (loc.scope === 'workspace') {
    if (!loc.workspace) throw new GeminiSettingsError('a workspace folder is needed for workspace hooks');
    return join(resolve(loc.workspace), '.gemini', 'settings.json');
  }
  return join(geminiHome(loc.env ?? process.env, loc.homeDir), 'settings.json');
}

/** One shell word: single-quoted unless it is plainly safe. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function ourHandler(launcher: HookCommand): Record<string, unknown> {
  if (!launcher.command || !isAbsolute(launcher.command)) throw new GeminiSettingsError('the hook launcher needs an absolute command');
  return {
    type: 'command',
    name: HANDLER_NAME,
    command: [launcher.command, ...(launcher.args ?? []), ...HOOK_ARGS].map(shellWord).join(' '),
    timeout: HOOK_TIMEOUT_MS,
  };
}

export function isOurHandler(h: unknown): boolean {
  if (h === null || typeof h !== 'object' || Array.isArray(h)) return false;
  const r = h as Record<string, unknown>;
  return r.type === 'command' && r.name === HANDLER_NAME && typeof r.command === 'string' && r.command.endsWith(` ${HOOK_ARGS.join(' ')}`);
}

function edit(loc: GeminiHooksLocation, apply: (text: string, file: string) => HooksJsonEdit): GeminiHooksChange {
  return editHooksFile(hooksSettingsRef(geminiSettingsFile(loc), loc, fail), loc.scope, apply, fail);
}

export function installGeminiHooks(loc: GeminiHooksLocation, launcher: HookCommand): GeminiHooksChange {
  const wanted = ourHandler(launcher);
  return edit(loc, (text, file) => installHandlers(text, file, GEMINI_HOOK_EVENTS, wanted, isOurHandler, fail));
}

export function uninstallGeminiHooks(loc: GeminiHooksLocation): GeminiHooksChange {
  return edit(loc, (text, file) => removeHandlers(text, file, isOurHandler, fail));
}

export function geminiHooksInstalled(loc: GeminiHooksLocation): string[] {
  return hooksFileEvents(hooksSettingsRef(geminiSettingsFile(loc), loc, fail), isOurHandler, fail);
}
