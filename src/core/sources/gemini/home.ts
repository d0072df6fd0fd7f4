// Where Gemini CLI keeps its sessions: `$GEMINI_CLI_HOME/.gemini` (the variable replaces the home directory), else
// `~/.gemini`. Each project has a folder `tmp/<project>/` (a short name since 0.5x, the sha256 of the project's path
// before) holding `chats/session-*.jsonl` (older: `.json`) and `.project_root`, the project's path; `projects.json`
// maps project paths to those names. Only regular files inside that folder are read, never written.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { openRegularFile } from '../../agent-files';
import { obj, str } from '../jsonl-lines';

/** The `.gemini` folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiHome(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): string {
  const fromEnv = env.GEMINI_CLI_HOME?.trim();
  return resolve(fromEnv ? fromEnv : userHome, '.gemini');
}

/** What Gemini CLI names a project's hash: the sha256 (hex) of its root path. */
export function projectHash(root: string): string {
  return createHash('sha256').update(root).digest('hex');
}

const SMALL_FILE = 1024 * 1024;

/** A small regular file's text; undefined when missing, not a regular file, too big or unreadable. */
export async function readSmallText(path: string, max = SMALL_FILE): Promise<string | undefined> {
  try {
    const fh = await openRegularFile(path);
    try {
      if ((await fh.stat()).size > max) return undefined;
      return await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

/** `projects.json`: project path → folder name (absolute paths and plain names only). */
export async function readProjects(home: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = await readSmallText(join(home, 'projects.json'));
  if (text === undefined) return out;
  let projects: Record<string, unknown> | undefined;
  try {
    projects = obj(obj(JSON.parse(text))?.projects);
  } catch {
    return out;
  }
  for (const [path, name] of Object.entries(projects ?? {})) {
    const n = str(name);
    if (n && isAbsolute(path) && isPlainName(n)) out.set(path, n);
  }
  return out;
}

/** A folder name under tmp/: no path parts. */
export function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[\\/\u0000]/.test(name);
}

/** The project folder (`<home>/tmp/<name>`) of a session file in its `chats/` folder, else undefined. */
export function projectFolderOf(file: string, home: string): string | undefined {
  const chats = dirname(resolve(file));
  const project = dirname(chats);
  if (basename(chats) !== 'chats' || dirname(project) !== join(home, 'tmp')) return undefined;
  return project;
}

/**
 * The root paths a project folder may stand for, most trusted first: its `.project_root`, the paths projects.json
 * gives its name, and (for the older layout, named by hash) none. The caller checks them against the session's
 * projectHash. Read as text only: a path named here is never opened.
 */
export async function projectRootsOf(projectFolder: string, projects: ReadonlyMap<string, string>): Promise<string[]> {
  const out: string[] = [];
  const marker = (await readSmallText(join(projectFolder, '.project_root'), 64 * 1024))?.trim();
  if (marker && isAbsolute(marker) && !marker.includes('\n')) out.push(marker);
  const name = basename(projectFolder);
  for (const [path, n] of projects) if (n === name && !out.includes(path)) out.push(path);
  return out;
}

/** The root among `candidates` whose hash is `hash`, else the first candidate. */
export function pickRoot(candidates: readonly string[], hash: string | undefined): string | undefined {
  if (hash) {
    const matching = candidates.find((c) => projectHash(c) === hash);
    if (matching) return matching;
  }
  return candidates[0];
}
