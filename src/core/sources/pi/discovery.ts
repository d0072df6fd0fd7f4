// Finding sessions on disk: ours (<home>/sessions), pi's (~/.pi/agent/sessions) and oh-my-pi's (~/.omp/agent/sessions),
// all laid out as <root>/--<encoded cwd>--/<timestamp>_<id>.jsonl. Metadata comes from the first 4 KiB of each file
// plus stat; the entry count is exact, counted by newlines in a chunked read.
import { parseBoundedJson } from '../../json-depth';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveHome } from '../../home';
import { sessionDirFor, sessionsRoot } from '../../session/paths';
import { FileSessionStorage, type SessionStorage } from '../../session/storage';
import type { SessionSource } from '../../session/types';

export interface SessionSummary {
  id: string;
  file: string;
  title?: string;
  /** The header's timestamp (ISO), else the file's birth time. */
  created: string;
  /** The file's mtime (ISO). */
  modified: string;
  /** Lines after the header (and title line), counted by newlines: unusable lines are included. */
  entryCount?: number;
  cwd: string;
  source: SessionSource;
  /** Set when the first 4 KiB hold no valid header; the file is listed so nothing goes unnoticed. */
  problem?: string;
}

export interface DiscoveryOptions {
  /** agent-rewind home; default resolveHome(). */
  home?: string;
  /** pi's sessions root; default ~/.pi/agent/sessions. */
  piRoot?: string;
  /** oh-my-pi's sessions root; default ~/.omp/agent/sessions. */
  ompRoot?: string;
  /** Which tools to look at; default all three. */
  sources?: SessionSource[];
  storage?: SessionStorage;
  /** Count entries (reads each whole file in chunks). Default true. */
  countEntries?: boolean;
  /** Told about a folder that could not be read (permissions, a symlink loop); it is skipped, the rest still listed. */
  warn?: (message: string) => void;
}

const PREFIX_BYTES = 4096;
const SESSION_FILE_RE = /^(.+)_([^_]+)\.jsonl$/;

export function sessionRoots(opts: DiscoveryOptions = {}): { source: SessionSource; root: string }[] {
  const all: { source: SessionSource; root: string }[] = [
    { source: 'agent-rewind', root: sessionsRoot(opts.home ?? resolveHome()) },
    { source: 'pi', root: opts.piRoot ?? join(homedir(), '.pi', 'agent', 'sessions') },
    { source: 'omp', root: opts.ompRoot ?? join(homedir(), '.omp', 'agent', 'sessions') },
  ];
  return opts.sources ? all.filter((r) => opts.sources!.includes(r.source)) : all;
}

function firstRecords(prefix: string, wholeFile: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const lines = prefix.replace(/^\uFEFF/, '').split('\n');
  if (!wholeFile) lines.pop(); // the last line may be cut by the 4 KiB limit
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const v = parseBoundedJson(line);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a bad line in the prefix: metadata just comes from the others
    }
  }
  return out;
}

/** Summary of one session file, from its first 4 KiB and stat; undefined when it is not a readable file. */
export async function readSessionSummary(file: string, source: SessionSource, opts: DiscoveryOptions = {}): Promise<SessionSummary | undefined> {
  const storage = opts.storage ?? new FileSessionStorage();
  const st = await storage.stat(file);
  if (!st || !st.isFile) return undefined;
  const prefix = await storage.readTextPrefix(file, PREFIX_BYTES);
  const records = firstRecords(prefix, st.size <= PREFIX_BYTES);
  const titleLine = records[0]?.type === 'title' ? records.shift() : undefined;
  const header = records[0]?.type === 'session' && typeof records[0].id === 'string' ? records[0] : undefined;
  const baseName = file.split(/[\\/]/).pop() ?? file;
  const nameMatch = SESSION_FILE_RE.exec(baseName);
  const info = records.filter((r) => r.type === 'session_info' && typeof r.name === 'string').pop();
  const title = [header?.title, titleLine?.title, info?.name].find((t): t is string => typeof t === 'string' && t !== '');
  const summary: SessionSummary = {
    id: (header?.id as string | undefined) ?? nameMatch?.[2] ?? baseName.replace(/\.jsonl$/, ''),
    file,
    created: typeof header?.timestamp === 'string' ? header.timestamp : new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
    modified: new Date(st.mtimeMs).toISOString(),
    cwd: typeof header?.cwd === 'string' ? header.cwd : '',
    source,
  };
  if (title !== undefined) summary.title = title;
  if (!header) summary.problem = st.size === 0 ? 'empty file' : 'no valid session header in the first 4 KiB';
  if (opts.countEntries !== false) {
    const newlines = await storage.countNewlines(file);
    const unterminated = st.size > 0 && (await storage.readBytesFrom(file, st.size - 1))[0] !== 0x0a ? 1 : 0;
    summary.entryCount = Math.max(0, newlines + unterminated - (header ? 1 : 0) - (titleLine ? 1 : 0));
  }
  return summary;
}

/** A folder listing; a folder that cannot be read is reported and taken as empty, so one bad folder (often another
 *  tool's) never hides the sessions in the others. */
function listOrSkip(list: () => string[], dir: string, opts: DiscoveryOptions): string[] {
  try {
    return list();
  } catch (err) {
    opts.warn?.(`could not read ${dir}: ${(err as Error).message}`);
    return [];
  }
}

async function summariesIn(dir: string, source: SessionSource, opts: DiscoveryOptions): Promise<SessionSummary[]> {
  const storage = opts.storage ?? new FileSessionStorage();
  const out: SessionSummary[] = [];
  for (const name of listOrSkip(() => storage.listFilesSync(dir), dir, opts)) {
    if (!name.endsWith('.jsonl')) continue;
    try {
      const s = await readSessionSummary(join(dir, name), source, opts);
      if (s) out.push(s);
    } catch {
      // unreadable (permissions, vanished meanwhile): not a session we can offer
    }
  }
  return out;
}

const newestFirst = (a: SessionSummary, b: SessionSummary) => b.modified.localeCompare(a.modified) || b.created.localeCompare(a.created);

/** Sessions of one working folder from every source, newest first. */
export async function listSessions(cwd: string, opts: DiscoveryOptions = {}): Promise<SessionSummary[]> {
  const all: SessionSummary[] = [];
  for (const { source, root } of sessionRoots(opts)) all.push(...(await summariesIn(sessionDirFor(root, cwd), source, opts)));
  return all.sort(newestFirst);
}

/** Sessions of every working folder from every source, newest first. */
export async function listAllSessions(opts: DiscoveryOptions = {}): Promise<SessionSummary[]> {
  const storage = opts.storage ?? new FileSessionStorage();
  const all: SessionSummary[] = [];
  for (const { source, root } of sessionRoots(opts)) {
    for (const folder of listOrSkip(() => storage.listDirsSync(root), root, opts)) {
      if (folder.startsWith('--') && folder.endsWith('--')) all.push(...(await summariesIn(join(root, folder), source, opts)));
    }
  }
  return all.sort(newestFirst);
}

/** The most recently modified session of a working folder, or undefined. */
export async function findMostRecentSession(cwd: string, opts: DiscoveryOptions = {}): Promise<SessionSummary | undefined> {
  return (await listSessions(cwd, { ...opts, countEntries: false }))[0];
}

/** Files under <home>/sessions/*\/ whose session id (from the file name) equals id, or starts with it when no
 *  file matches exactly. Symlinks are not followed, so the search never leaves the home. */
export function findSessionFilesById(id: string, opts: DiscoveryOptions = {}): string[] {
  const storage = opts.storage ?? new FileSessionStorage();
  const root = sessionsRoot(opts.home ?? resolveHome());
  const exact: string[] = [];
  const prefixed: string[] = [];
  for (const folder of listOrSkip(() => storage.listDirsSync(root), root, opts)) {
    for (const name of listOrSkip(() => storage.listFilesSync(join(root, folder)), join(root, folder), opts)) {
      const m = SESSION_FILE_RE.exec(name);
      if (!m) continue;
      if (m[2] === id) exact.push(join(root, folder, name));
      else if (m[2]!.startsWith(id)) prefixed.push(join(root, folder, name));
    }
  }
  return exact.length ? exact : prefixed;
}
