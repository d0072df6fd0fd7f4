// Where VS Code keeps chat sessions: `<user data>/User/workspaceStorage/<window id>/chatSessions/<session id>.jsonl`
// (`.json` before 1.109), beside `chatEditingSessions/<session id>/` (its editing state) and `workspace.json` (the
// folder the window had open; recent versions may write only `meta.json`). The user-data folders are the desktop's
// (`Code`, `Code - Insiders`, VSCodium… under the platform's config folder), VS Code Server's, code-server's, the ones
// named by $AGENT_REWIND_VSCODE_USER_DATA (a `--user-data-dir`, path-delimiter separated), and the window's own
// storage folder when the extension runs inside it (EngineSettings.editorStorage).
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { isFolder } from '../stat-checks';

export const SESSIONS_DIR = 'chatSessions';
export const EDITING_DIR = 'chatEditingSessions';

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The user-data folders of every VS Code this machine may have (those that exist). */
export function userDataFolders(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string[] {
  const out: string[] = [];
  const fromEnv = env.AGENT_REWIND_VSCODE_USER_DATA;
  if (fromEnv) out.push(...fromEnv.split(delimiter).filter((p) => p.trim() !== ''));
  const configRoots = [env.XDG_CONFIG_HOME || join(home, '.config'), join(home, 'Library', 'Application Support'), ...(env.APPDATA ? [env.APPDATA] : [])];
  for (const root of configRoots) for (const name of namesIn(root)) if (/^(Code|VSCodium|Cursor)\b/.test(name)) out.push(join(root, name));
  out.push(join(home, '.vscode-server', 'data'), join(home, '.vscode-server-insiders', 'data'));
  out.push(join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'code-server'));
  return [...new Set(out.map((p) => resolve(p)))].filter(isFolder);
}

/** Every window storage folder (`…/workspaceStorage/<id>`) that holds chat sessions, the window's own first, and
 *  that one also before it holds any: VS Code makes its chatSessions folder at the window's first request, and the
 *  extension, active since before, watches the folders it was given (without it, a workspace's first chat was never
 *  seen until a reload, so the no-hooks fallback took no snapshot of it). */
export function storageFolders(opts: { editorStorage?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): string[] {
  const own = opts.editorStorage ? resolve(opts.editorStorage) : undefined;
  const out: string[] = [];
  for (const data of userDataFolders(opts.env, opts.home)) {
    const ws = join(data, 'User', 'workspaceStorage');
    for (const id of namesIn(ws)) out.push(join(ws, id));
  }
  const withSessions = out.filter((d) => d !== own && isFolder(join(d, SESSIONS_DIR)));
  // the own folder even while it does not exist: a watcher checks again for a missing folder
  return [...new Set([...(own ? [own] : []), ...withSessions])];
}

/** The window storage folder a session file lives in, when it lives in one. */
export function storageFolderOf(sessionFile: string): string | undefined {
  const dir = dirname(resolve(sessionFile));
  return basename(dir) === SESSIONS_DIR ? dirname(dir) : undefined;
}

/** The session files of a storage folder: `<id>.jsonl`, and an older `<id>.json` where no `.jsonl` of that id is. */
export function sessionFilesIn(storage: string): string[] {
  const dir = join(storage, SESSIONS_DIR);
  const names = namesIn(dir);
  const logs = new Set(names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -6)));
  return names.filter((n) => n.endsWith('.jsonl') || (n.endsWith('.json') && !logs.has(n.slice(0, -5)))).map((n) => join(dir, n));
}

/** The session id a session file's name carries. */
export function sessionIdOfFile(file: string): string {
  return basename(file).replace(/\.jsonl?$/, '');
}

/** Its editing-state folder, when there is one. */
export function editingFolderOf(sessionFile: string): string | undefined {
  const storage = storageFolderOf(sessionFile);
  if (!storage) return undefined;
  const dir = join(storage, EDITING_DIR, sessionIdOfFile(sessionFile));
  return isFolder(dir) ? dir : undefined;
}
