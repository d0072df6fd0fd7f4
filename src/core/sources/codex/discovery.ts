// Finding Codex rollouts for a workspace. They are not grouped by folder: `$CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<time>-<thread id>.jsonl` (plus `archived_sessions/` with the same layout and legacy flat
// `sessions/rollout-*.jsonl`), so a rollout belongs to a workspace by the `cwd` its `session_meta` / `turn_context`
// names (the folder or inside it). Listing reads a bounded prefix and tail of each file, never the whole rollout.
import { openRegularFile } from '../../agent-files';
import { forkTitle } from '../fork-title';
import { listDir, parseComplete } from '../listing-reads';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { oneLine } from '../../transcript/transcript';
import { isInside } from '../workspace-paths';
import { classifyItem, messageText } from './classify';
import { obj, payloadOf, str, type CodexRecord } from './lines';

export interface CodexSessionListing {
  sessionRef: string;
  sessionId: string;
  cwd: string;
  title: string;
  createdAt: string;
  modifiedMs: number;
  forkedFromId?: string;
}

const PREFIX_BYTES = 128 * 1024;
const PEEK_BYTES = 4 * 1024;
const TAIL_BYTES = 64 * 1024;
const PARALLEL_READS = 16;
const TITLE_LENGTH = 200;

/** $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): string {
  const fromEnv = env.CODEX_HOME?.trim();
  return resolve(fromEnv ? fromEnv : join(userHome, '.codex'));
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const NAME = new RegExp(`(${UUID})(?:_(${UUID}))?\\.jsonl$`, 'i');

/**
 * A rollout's name: `rollout-<UTC time>-<thread id>.jsonl`, legacy `rollout-<thread id>.jsonl`, and since 0.16x a
 * later segment of the same thread `rollout-<time>-<thread id>_<segment id>.jsonl` (what a TUI backtrack writes: a new
 * file whose session_meta.history_base names the segment and byte offset its history continues from).
 */
export function parseRolloutName(file: string): { threadId: string; segmentId?: string } | undefined {
  const m = NAME.exec(basename(file));
  if (!m) return undefined;
  return { threadId: m[1]!.toLowerCase(), ...(m[2] ? { segmentId: m[2].toLowerCase() } : {}) };
}

/** The thread id a rollout's name carries (the same for every segment of a thread). */
export function threadIdFromName(file: string): string | undefined {
  return parseRolloutName(file)?.threadId;
}

/** The newest segment of each thread (what `codex resume <id>` continues): later name time, then later mtime. */
export function newestSegments<T extends { file: string; mtimeMs: number }>(items: readonly T[]): T[] {
  const best = new Map<string, T>();
  const rest: T[] = [];
  for (const it of items) {
    const t = threadIdFromName(it.file);
    if (!t) {
      rest.push(it);
      continue;
    }
    const cur = best.get(t);
    if (!cur || segmentOrder(it) > segmentOrder(cur)) best.set(t, it);
  }
  return [...best.values(), ...rest];
}

function segmentOrder(it: { file: string; mtimeMs: number }): string {
  const name = basename(it.file);
  const time = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})/.exec(name)?.[1] ?? '';
  return `${time}|${String(Math.floor(it.mtimeMs)).padStart(16, '0')}`;
}

export function isRolloutName(name: string): boolean {
  return name.startsWith('rollout-') && name.endsWith('.jsonl');
}

/** Every rollout file under the home: sessions/ first, then archived_sessions/ (a path in both: sessions/ wins). */
export async function listRolloutFiles(home: string): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const top of ['sessions', 'archived_sessions']) {
    const root = join(home, top);
    for (const name of await listDir(root)) {
      if (isRolloutName(name)) add(join(root, name), name);
      else if (/^\d{4}$/.test(name)) {
        for (const mm of await listDir(join(root, name))) {
          if (!/^\d{2}$/.test(mm)) continue;
          for (const dd of await listDir(join(root, name, mm))) {
            if (!/^\d{2}$/.test(dd)) continue;
            for (const f of await listDir(join(root, name, mm, dd))) if (isRolloutName(f)) add(join(root, name, mm, dd, f), `${name}/${mm}/${dd}/${f}`);
          }
        }
      }
    }
  }
  return out;
  function add(path: string, rel: string): void {
    if (seen.has(rel)) return;
    seen.add(rel);
    out.push(path);
  }
}

/** The newest name of each thread in `session_index.jsonl` (append-only: the last line for an id wins). */
export async function readSessionIndex(home: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  let text: string;
  try {
    const fh = await openRegularFile(join(home, 'session_index.jsonl'));
    try {
      if ((await fh.stat()).size > 32 * 1024 * 1024) return names;
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return names;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = obj(JSON.parse(line));
      const id = str(r?.id);
      const name = str(r?.thread_name);
      if (id && name?.trim()) names.set(id, name.trim());
    } catch {
      // a damaged line
    }
  }
  return names;
}

export async function discoverCodexSessions(opts: { workspaceRoots: readonly string[]; home?: string }): Promise<CodexSessionListing[]> {
  const home = opts.home ?? codexHome();
  const files = await listRolloutFiles(home);
  const index = await readSessionIndex(home);
  let out: CodexSessionListing[] = [];
  for (let i = 0; i < files.length; i += PARALLEL_READS) {
    const batch = await Promise.all(files.slice(i, i + PARALLEL_READS).map((f) => listOne(f, index, opts.workspaceRoots).catch(() => undefined)));
    for (const l of batch) {
      if (l && (opts.workspaceRoots.length === 0 || opts.workspaceRoots.some((r) => isInside(l.cwd, r)))) out.push(l);
    }
  }
  // a backtracked thread has several segment files: it is listed once, by the segment Codex continues
  out = newestSegments(out.map((l) => ({ ...l, file: l.sessionRef, mtimeMs: l.modifiedMs }))).map(({ file: _f, mtimeMs: _m, ...l }) => l);
  return out.sort((a, b) => b.modifiedMs - a.modifiedMs);
}

async function listOne(file: string, index: ReadonlyMap<string, string>, roots: readonly string[]): Promise<CodexSessionListing | undefined> {
  const st = await stat(file);
  if (!st.isFile()) return undefined;
  // rollouts of every folder share one tree: the cwd at the start of session_meta rules most of them out for 4 KiB
  if (roots.length) {
    const early = metaFromText(await readHead(file, PEEK_BYTES)).cwd;
    if (early !== undefined && !roots.some((r) => isInside(early, r))) return undefined;
  }
  const { head, tail, headText } = await readEnds(file, st.size);
  let cwd: string | undefined;
  let id: string | undefined;
  let createdAt: string | undefined;
  let forkedFromId: string | undefined;
  let firstPrompt: string | undefined;
  let threadName: string | undefined;
  for (const rec of head) {
    const p = payloadOf(rec);
    if (rec.type === 'session_meta') {
      id ??= str(p.id);
      cwd ??= str(p.cwd);
      createdAt ??= str(p.timestamp) ?? str(rec.timestamp);
      forkedFromId ??= str(p.forked_from_id);
    } else if (rec.type === 'turn_context') cwd ??= str(p.cwd);
    else if (rec.type === 'response_item' && firstPrompt === undefined && classifyItem(p) === 'prompt') firstPrompt = messageText(p.content);
  }
  if (!cwd || !id) {
    // a session_meta line longer than the prefix (base_instructions is ~21 KB, but can grow): its leading fields
    const m = metaFromText(headText);
    cwd ??= m.cwd;
    id ??= m.id;
    createdAt ??= m.timestamp;
  }
  for (const rec of [...head, ...tail]) {
    if (rec.type === 'event_msg') {
      const p = payloadOf(rec);
      if (p.type === 'thread_name_updated') threadName = str(p.thread_name)?.trim() || threadName;
    }
  }
  id ??= threadIdFromName(file);
  if (!cwd || !id) return undefined;
  // a fork's first prompt is its origin's: named as the fork it is, unless it was given a name of its own
  const title =
    threadName ?? index.get(id) ?? (firstPrompt !== undefined ? forkTitle(oneLine(firstPrompt, TITLE_LENGTH), forkedFromId !== undefined) : 'Codex session');
  return {
    sessionRef: file,
    sessionId: id,
    cwd,
    title,
    createdAt: createdAt ?? new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
    modifiedMs: st.mtimeMs,
    ...(forkedFromId ? { forkedFromId } : {}),
  };
}

function metaFromText(text: string): { cwd?: string; id?: string; timestamp?: string } {
  const first = text.split('\n', 1)[0] ?? '';
  const pick = (key: string) => {
    const m = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(first);
    if (!m) return undefined;
    try {
      return JSON.parse(m[1]!) as string;
    } catch {
      return undefined;
    }
  };
  if (!first.includes('"session_meta"')) return {};
  const out: { cwd?: string; id?: string; timestamp?: string } = {};
  const cwd = pick('cwd');
  const id = pick('id');
  const timestamp = pick('timestamp');
  if (cwd) out.cwd = cwd;
  if (id) out.id = id;
  if (timestamp) out.timestamp = timestamp;
  return out;
}

async function readHead(file: string, len: number): Promise<string> {
  const fh = await openRegularFile(file);
  try {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, 0);
    return buf.toString('utf8', 0, bytesRead);
  } finally {
    await fh.close();
  }
}

async function readEnds(file: string, size: number): Promise<{ head: CodexRecord[]; tail: CodexRecord[]; headText: string }> {
  const fh = await openRegularFile(file);
  try {
    const read = async (pos: number, len: number) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      return buf.subarray(0, bytesRead);
    };
    if (size <= PREFIX_BYTES + TAIL_BYTES) {
      const all = await read(0, size);
      return { head: parseComplete(all, true, true), tail: [], headText: all.toString('utf8') };
    }
    const head = await read(0, PREFIX_BYTES);
    return {
      head: parseComplete(head, true, false),
      tail: parseComplete(await read(size - TAIL_BYTES, TAIL_BYTES), false, true),
      headText: head.toString('utf8'),
    };
  } finally {
    await fh.close();
  }
}

/** Whether the first lines of a file are a Codex rollout (`{timestamp, type: session_meta, payload}`). */
export function looksLikeCodexRollout(firstLine: string | undefined): boolean {
  if (!firstLine) return false;
  if (!firstLine.includes('"session_meta"')) return false;
  try {
    const r = obj(JSON.parse(firstLine));
    return r?.type === 'session_meta' && obj(r.payload) !== undefined;
  } catch {
    // a first line cut short (session_meta carries ~21 KB of instructions): its envelope, `ordinal` allowed
    return /^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*(?:"ordinal"\s*:\s*\d+\s*,\s*)?"type"\s*:\s*"session_meta"/.test(firstLine);
  }
}

export function homeHasSessions(home: string): boolean {
  return existsSync(join(home, 'sessions')) || existsSync(join(home, 'archived_sessions'));
}
