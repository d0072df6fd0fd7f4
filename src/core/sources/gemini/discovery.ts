// Finding Gemini CLI sessions for a workspace: `<home>/tmp/<project>/chats/session-*.jsonl` (older `.json`), where a
// project folder stands for the root path Gemini ran in (its `.project_root`, projects.json, or the root's sha256 as
// the folder's name in the older layout). A session belongs to a workspace when that root is the workspace folder or
// inside it. Listing reads a bounded head and tail of each file. A resume in a new minute leaves a stray file of two
// lines with the same session id beside the real one: a session is listed once, by the file holding its prompts.
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { openRegularFile } from '../../agent-files';
import { parseBoundedJson } from '../../json-depth';
import { forkTitle } from '../fork-title';
import { listDir, parseComplete } from '../listing-reads';
import { oneLine } from '../../transcript/transcript';
import { isInside } from '../workspace-paths';
import { obj, str, type JsonRecord } from '../jsonl-lines';
import { projectHash, projectRootsOf, readProjects } from './home';
import { folderList } from './reader';

export interface GeminiSessionListing {
  sessionFile: string;
  sessionId: string;
  cwd: string;
  title: string;
  createdAt: string;
  modifiedMs: number;
  hasPrompt: boolean;
  forkedFromId?: string;
}

const HEAD_BYTES = 128 * 1024;
const TAIL_BYTES = 64 * 1024;
const PARALLEL_READS = 16;
const TITLE_LENGTH = 200;

export function isSessionName(name: string): boolean {
  return name.startsWith('session-') && (name.endsWith('.jsonl') || name.endsWith('.json'));
}

/** Every session file under `<home>/tmp/*\/chats/`, with its project folder. */
export async function listSessionFiles(home: string): Promise<{ file: string; project: string }[]> {
  const out: { file: string; project: string }[] = [];
  const tmp = join(home, 'tmp');
  for (const name of await listDir(tmp)) {
    const project = join(tmp, name);
    for (const f of await listDir(join(project, 'chats'))) if (isSessionName(f)) out.push({ file: join(project, 'chats', f), project });
  }
  return out;
}

export async function discoverGeminiSessions(opts: { workspaceRoots: readonly string[]; home: string }): Promise<GeminiSessionListing[]> {
  const projects = await readProjects(opts.home);
  const files = await listSessionFiles(opts.home);
  const rootsByProject = new Map<string, string[]>();
  for (const { project } of files) if (!rootsByProject.has(project)) rootsByProject.set(project, await projectRootsOf(project, projects));
  // the older layout names a project's folder by the sha256 of its root: a workspace folder of that hash is its root
  const hashes = new Map(opts.workspaceRoots.map((r) => [projectHash(r), r]));
  const byHash = (project: string) => {
    const root = hashes.get(basename(project));
    return root ? [root] : [];
  };
  const found: GeminiSessionListing[] = [];
  for (let i = 0; i < files.length; i += PARALLEL_READS) {
    const batch = await Promise.all(
      files.slice(i, i + PARALLEL_READS).map((f) => listOne(f.file, [...(rootsByProject.get(f.project) ?? []), ...byHash(f.project)]).catch(() => undefined)),
    );
    for (const l of batch) if (l && (opts.workspaceRoots.length === 0 || opts.workspaceRoots.some((r) => isInside(l.cwd, r)))) found.push(l);
  }
  return onePerSession(found).sort((a, b) => b.modifiedMs - a.modifiedMs);
}

/** A session id's file with prompts (the newest such), else its newest file. */
export function onePerSession<T extends { sessionId: string; hasPrompt: boolean; modifiedMs: number }>(items: readonly T[]): T[] {
  const best = new Map<string, T>();
  for (const it of items) {
    const cur = best.get(it.sessionId);
    if (!cur || (it.hasPrompt && !cur.hasPrompt) || (it.hasPrompt === cur.hasPrompt && it.modifiedMs > cur.modifiedMs)) best.set(it.sessionId, it);
  }
  return [...best.values()];
}

async function listOne(file: string, roots: readonly string[]): Promise<GeminiSessionListing | undefined> {
  const st = await stat(file);
  if (!st.isFile()) return undefined;
  const records = file.endsWith('.json') ? await readJsonRecords(file, st.size) : await readEnds(file, st.size);
  if (!records) return undefined;
  let sessionId: string | undefined;
  let hash: string | undefined;
  let startTime: string | undefined;
  let summary: string | undefined;
  let forkedFromId: string | undefined;
  let firstPrompt: string | undefined;
  let context: string | undefined;
  const see = (m: JsonRecord) => {
    if (m.type !== 'user') return;
    const text = Array.isArray(m.content) ? m.content.map((p) => str(obj(p)?.text) ?? '').join('\n') : (str(m.content) ?? '');
    if (text.trimStart().startsWith('<session_context>')) context ??= text;
    else if (text.trim() && !(Array.isArray(m.content) && m.content.some((p) => obj(p)?.functionResponse))) firstPrompt ??= text;
  };
  for (const rec of records) {
    const set = obj(rec.$set);
    if (set) {
      summary = str(set.summary)?.trim() || summary;
      for (const m of Array.isArray(set.messages) ? set.messages : []) if (obj(m)) see(obj(m)!);
    } else if (typeof rec.id === 'string' && typeof rec.type === 'string') see(rec);
    else if (typeof rec.sessionId === 'string') {
      sessionId ??= rec.sessionId;
      hash ??= str(rec.projectHash);
      startTime ??= str(rec.startTime);
      forkedFromId ??= str(rec.forkedFrom);
      summary = str(rec.summary)?.trim() || summary;
      for (const m of Array.isArray(rec.messages) ? rec.messages : []) if (obj(m)) see(obj(m)!);
    }
  }
  if (!sessionId) return undefined;
  const candidates = [...roots, ...(context ? folderList(context) : [])];
  const cwd = (hash && candidates.find((c) => projectHash(c) === hash)) || candidates[0];
  if (!cwd) return undefined;
  const title = summary ?? (firstPrompt !== undefined ? forkTitle(oneLine(firstPrompt, TITLE_LENGTH), forkedFromId !== undefined) : 'Gemini CLI session');
  return {
    sessionFile: file,
    sessionId,
    cwd,
    title,
    createdAt: startTime ?? new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
    modifiedMs: st.mtimeMs,
    hasPrompt: firstPrompt !== undefined,
    ...(forkedFromId ? { forkedFromId } : {}),
  };
}

async function readEnds(file: string, size: number): Promise<JsonRecord[]> {
  const fh = await openRegularFile(file);
  try {
    const read = async (pos: number, len: number) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      return buf.subarray(0, bytesRead);
    };
    if (size <= HEAD_BYTES + TAIL_BYTES) return parseComplete(await read(0, size), true, true);
    return [...parseComplete(await read(0, HEAD_BYTES), true, false), ...parseComplete(await read(size - TAIL_BYTES, TAIL_BYTES), false, true)];
  } finally {
    await fh.close();
  }
}

/** The old layout is one document: read whole, up to a bound. */
async function readJsonRecords(file: string, size: number): Promise<JsonRecord[] | undefined> {
  if (size > 64 * 1024 * 1024) return undefined;
  const fh = await openRegularFile(file);
  try {
    const doc = obj(parseBoundedJson(await fh.readFile('utf8')));
    return doc ? [doc] : undefined;
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}

/** Whether a first line is Gemini CLI's session metadata (`{sessionId, projectHash, startTime, …}`). */
export function looksLikeGeminiSession(firstLine: string | undefined): boolean {
  if (!firstLine || !firstLine.includes('"projectHash"')) return false;
  try {
    const r = obj(JSON.parse(firstLine));
    return typeof r?.sessionId === 'string' && typeof r.projectHash === 'string' && r.type === undefined;
  } catch {
    return false;
  }
}
