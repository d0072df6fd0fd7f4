// Our hooks where VS Code's agent reads them: `<workspace>/.github/hooks/*.json` (with `chat.useHooks`), in a file of
// our own, `.github/hooks/agent-rewind.json`: `{hooks: {Event: [{type: "command", command, timeout}]}}`. Installing
// again changes nothing, uninstalling removes only our handlers (a handler someone added to the file stays, and so does
// the file then); the file goes when nothing but ours was in it. Written as other programs' settings are
// (settings-file.ts: regular files only, no symlink on the way in a project, a concurrent change noticed).
import { existsSync, lstatSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { HANDLER_MARK } from '../hooks-json';
import { editSettingsFiles, readSettingsFile, refuseLinkedFolder, type SettingsFileRef } from '../settings-file';

export const VSCODE_HOOK_EVENTS = ['UserPromptSubmit', 'Stop'] as const;
export const HOOK_ARGS = ['hook', 'vscode-chat'] as const;
export const HOOK_TIMEOUT_SECONDS = 30;
const EMPTY = '{}\n';

export class VsHooksSettingsError extends Error {}
const fail = (message: string) => new VsHooksSettingsError(message);

export interface VsHooksChange {
  file: string;
  written: boolean;
  created: boolean;
  removedFile: boolean;
  added: string[];
  updated: string[];
  alreadyPresent: string[];
  removed: string[];
}

export function vscodeHooksFile(workspace: string): string {
  return join(resolve(workspace), '.github', 'hooks', 'agent-rewind.json');
}

/** A shell word (VS Code runs a hook's command through the shell). */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function ourHandler(launcher: { command: string; args?: readonly string[] }): Record<string, unknown> {
  if (!isAbsolute(launcher.command)) throw fail(`the hook launcher ${launcher.command} is not an absolute path`);
  return {
    type: 'command',
    command: [launcher.command, ...(launcher.args ?? []), ...HOOK_ARGS].map(shellWord).join(' '),
    timeout: HOOK_TIMEOUT_SECONDS,
    [HANDLER_MARK.key]: HANDLER_MARK.value,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isOurHandler = (h: unknown): boolean => isObject(h) && h[HANDLER_MARK.key] === HANDLER_MARK.value;

function ref(workspace: string): SettingsFileRef {
  const ws = resolve(workspace);
  let ok = false;
  try {
    ok = statSync(ws).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw fail(`workspace folder ${ws} does not exist or is not a folder`);
  const file = vscodeHooksFile(ws);
  refuseLinkedFolder(join(ws, '.github'), fail);
  refuseLinkedFolder(dirname(file), fail);
  return { file, followLink: false };
}

function parse(text: string, file: string): Record<string, unknown> {
  if (text.replace(/^\uFEFF/, '').trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw fail(`${file} is not valid JSON (${(err as Error).message}); fix or remove it, it was left as it is`);
  }
  if (!isObject(v)) throw fail(`${file} does not hold a JSON object; it was left as it is`);
  if (v.hooks !== undefined && !isObject(v.hooks)) throw fail(`${file}: "hooks" is not an object; it was left as it is`);
  return v;
}

function edit(workspace: string, apply: (doc: Record<string, unknown>, c: VsHooksChange) => void): VsHooksChange {
  const r = ref(workspace);
  const { result, reads, written } = editSettingsFiles(
    [r],
    ([read]) => {
      const c: VsHooksChange = { file: r.file, written: false, created: false, removedFile: false, added: [], updated: [], alreadyPresent: [], removed: [] };
      const doc = parse(read!.text, r.file);
      apply(doc, c);
      const changed = c.added.length + c.updated.length + c.removed.length > 0;
      return { texts: [changed ? JSON.stringify(doc, null, 2) + '\n' : undefined], result: c };
    },
    fail,
  );
  result.written = written[0]!;
  result.created = result.written && !reads[0]!.exists;
  // nothing but ours was there: the file goes (only while it still holds exactly what we left)
  if (result.written && result.removed.length) {
    try {
      if (lstatSync(r.file).isFile() && readFileSync(r.file, 'utf8') === EMPTY) {
        unlinkSync(r.file);
        result.removedFile = true;
      }
    } catch {
      // gone or changed meanwhile: left as it is
    }
  }
  return result;
}

export function installVscodeHooks(workspace: string, launcher: { command: string; args?: readonly string[] }): VsHooksChange {
  const wanted = ourHandler(launcher);
  return edit(workspace, (doc, c) => {
    const hooks = (doc.hooks ??= {}) as Record<string, unknown>;
    for (const event of VSCODE_HOOK_EVENTS) {
      const list = hooks[event];
      if (list !== undefined && !Array.isArray(list)) throw fail(`${vscodeHooksFile(workspace)}: "hooks.${event}" is not a list; it was left as it is`);
      const items = (list ?? []) as unknown[];
      const mine = items.filter(isOurHandler);
      if (mine.length === 1 && JSON.stringify(mine[0]) === JSON.stringify(wanted)) {
        c.alreadyPresent.push(event);
        continue;
      }
      const at = items.findIndex(isOurHandler);
      const rest = items.filter((h) => !isOurHandler(h));
      if (at < 0) rest.push(wanted);
      else rest.splice(Math.min(at, rest.length), 0, wanted);
      hooks[event] = rest;
      (at < 0 ? c.added : c.updated).push(event);
    }
  });
}

export function uninstallVscodeHooks(workspace: string): VsHooksChange {
  if (!existsSync(vscodeHooksFile(workspace)))
    return { file: vscodeHooksFile(workspace), written: false, created: false, removedFile: false, added: [], updated: [], alreadyPresent: [], removed: [] };
  return edit(workspace, (doc, c) => {
    const hooks = doc.hooks as Record<string, unknown> | undefined;
    if (!hooks) return;
    for (const [event, list] of Object.entries(hooks)) {
      if (!Array.isArray(list) || !list.some(isOurHandler)) continue;
      const rest = list.filter((h) => !isOurHandler(h));
      if (rest.length) hooks[event] = rest;
      else delete hooks[event];
      c.removed.push(event);
    }
    if (c.removed.length && Object.keys(hooks).length === 0) delete doc.hooks;
  });
}

export function vscodeHooksInstalled(workspace: string): string[] {
  const r = ref(workspace);
  const doc = parse(readSettingsFile(r, fail).text, r.file);
  const hooks = isObject(doc.hooks) ? doc.hooks : {};
  return Object.entries(hooks)
    .filter(([, list]) => Array.isArray(list) && list.some(isOurHandler))
    .map(([e]) => e);
}
