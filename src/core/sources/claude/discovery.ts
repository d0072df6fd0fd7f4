// Finding Claude Code sessions for a workspace. Transcripts sit in <configDir>/projects/<encoded cwd>/<id>.jsonl, but
// the folder name is a lossy encoding of the cwd (paths differing only in `_`, `-` or `.` share it), so a session is
// attributed by the `cwd` its lines carry, never by decoding the folder name. Listing reads a bounded prefix (cwd,
// first prompt) and a bounded tail (titles are appended later) of each file, so a 100 MB transcript costs 128 KiB.
import { openRegularFile } from '../../agent-files';
import { listDir, parseComplete } from '../listing-reads';
import { forkTitle } from '../fork-title';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { isInside } from '../workspace-paths';
import { oneLine } from '../../transcript/transcript';

export { isInside };
import { classifyLine, contentString, promptContent } from './classify';
import { obj, str, type ClaudeRecord } from './lines';
import { TitleCollector } from './title';

export interface ClaudeSessionListing {
  sessionRef: string;
  sessionId: string;
  cwd: string;
  title: string;
  /** ISO time of the first line of its own (a fork's copied lines keep the origin's times). */
  createdAt: string;
  modifiedMs: number;
  fork?: { originSessionId: string; firstOwnPrompt?: string };
}

const PREFIX_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;
const PARALLEL_READS = 16;

/** $CLAUDE_CONFIG_DIR (a comma-separated list is allowed), else whichever of ~/.claude and ~/.config/claude exist. */
export function claudeConfigDirs(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): string[] {
  const fromEnv = env.CLAUDE_CONFIG_DIR;
  const expand = (p: string) => (p === '~' ? userHome : p.startsWith('~/') ? join(userHome, p.slice(2)) : p);
  if (fromEnv && fromEnv.trim()) {
    return [
      ...new Set(
        fromEnv
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)
          .map((p) => resolve(expand(p))),
      ),
    ];
  }
  return [join(userHome, '.claude'), join(userHome, '.config', 'claude')].filter((d) => existsSync(d));
}

/** Whether `cwd` is the workspace folder or inside it (whole path segments, so /a/b does not own /a/bc). */

/** Sessions whose cwd is one of the workspace roots or inside one (every session when `workspaceRoots` is empty). */
export async function discoverClaudeSessions(opts: { workspaceRoots: readonly string[]; configDirs?: readonly string[] }): Promise<ClaudeSessionListing[]> {
  const files: string[] = [];
  for (const configDir of opts.configDirs ?? claudeConfigDirs()) {
    const projects = join(configDir, 'projects');
    for (const project of await listDir(projects)) {
      for (const name of await listDir(join(projects, project))) {
        if (name.endsWith('.jsonl') && !name.startsWith('agent-')) files.push(join(projects, project, name));
      }
    }
  }
  const out: ClaudeSessionListing[] = [];
  for (let i = 0; i < files.length; i += PARALLEL_READS) {
    const batch = await Promise.all(files.slice(i, i + PARALLEL_READS).map((f) => listOne(f).catch(() => undefined)));
    for (const l of batch) {
      if (l && (opts.workspaceRoots.length === 0 || opts.workspaceRoots.some((r) => isInside(l.cwd, r)))) out.push(l);
    }
  }
  return out.sort((a, b) => b.modifiedMs - a.modifiedMs);
}

async function listOne(file: string): Promise<ClaudeSessionListing | undefined> {
  const st = await stat(file);
  if (!st.isFile()) return undefined;
  const { head, tail } = await readEnds(file, st.size);
  let cwd: string | undefined;
  let createdAt: string | undefined;
  let firstPrompt: string | undefined;
  let origin: string | undefined;
  let firstOwnPrompt: string | undefined;
  const titles = new TitleCollector();
  const uuids = new Set<string>();
  for (const rec of head) {
    if (rec.isSidechain === true) continue;
    cwd ??= str(rec.cwd);
    const copiedFrom = str(obj(rec.forkedFrom)?.sessionId);
    origin ??= copiedFrom;
    // a fork's copied lines keep the origin's times and prompts: its own start and first prompt are its own lines'
    if (copiedFrom === undefined) createdAt ??= str(rec.timestamp);
    const prompt = classifyLine(rec) === 'prompt' ? contentString(promptContent(rec)) : undefined;
    if (prompt === undefined) continue;
    firstPrompt ??= prompt;
    if (copiedFrom === undefined && origin !== undefined) firstOwnPrompt ??= prompt;
  }
  // a long copied history: the fork's own first prompt may be past the head, and the tail holds its latest ones
  if (origin !== undefined && firstOwnPrompt === undefined) {
    for (const rec of tail) {
      if (rec.isSidechain !== true && obj(rec.forkedFrom) === undefined && classifyLine(rec) === 'prompt') {
        firstOwnPrompt = contentString(promptContent(rec));
        break;
      }
    }
  }
  for (const rec of [...head, ...tail]) {
    const u = str(rec.uuid);
    if (u) uuids.add(u);
    titles.add(rec);
  }
  if (!cwd) return undefined; // nothing says where it ran: it cannot be attributed to a workspace
  return {
    sessionRef: file,
    sessionId: basename(file, '.jsonl'),
    cwd,
    title: forkTitle(
      titles.title((u) => uuids.has(u), firstPrompt === undefined ? undefined : oneLine(firstPrompt, 200)),
      origin !== undefined,
    ),
    createdAt: createdAt ?? new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
    modifiedMs: st.mtimeMs,
    ...(origin !== undefined
      ? { fork: { originSessionId: origin, ...(firstOwnPrompt !== undefined ? { firstOwnPrompt: oneLine(firstOwnPrompt, 200) } : {}) } }
      : {}),
  };
}

/** Complete lines of the first and last bytes of a file (the whole file once when it is small). */
async function readEnds(file: string, size: number): Promise<{ head: ClaudeRecord[]; tail: ClaudeRecord[] }> {
  const fh = await openRegularFile(file);
  try {
    const read = async (pos: number, len: number) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      return buf.subarray(0, bytesRead);
    };
    if (size <= PREFIX_BYTES + TAIL_BYTES) return { head: parseComplete(await read(0, size), true, true), tail: [] };
    return { head: parseComplete(await read(0, PREFIX_BYTES), true, false), tail: parseComplete(await read(size - TAIL_BYTES, TAIL_BYTES), false, true) };
  } finally {
    await fh.close();
  }
}

// line types that carry the sessionId; a fork written by 2.1.330 starts with mode / atis-latch / tools-used lines
const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'queue-operation',
  'summary',
  'file-history-snapshot',
  'file-history-delta',
  'attachment',
  'progress',
  'last-prompt',
  'custom-title',
  'ai-title',
  'agent-name',
  'mode',
  'permission-mode',
  'atis-latch',
  'tools-used',
  'cost-state',
  'pr-link',
]);

/** Whether the first lines of a file are a Claude Code transcript (a pi/agent-rewind file starts with a session header). */
export function looksLikeClaudeTranscript(firstLines: readonly string[]): boolean {
  for (const line of firstLines) {
    if (!line.trim()) continue;
    let rec: ClaudeRecord | undefined;
    try {
      rec = obj(JSON.parse(line));
    } catch {
      continue;
    }
    if (!rec) continue;
    if (rec.type === 'session') return false;
    const type = str(rec.type);
    if (type === 'summary' && typeof rec.leafUuid === 'string') return true;
    if (typeof rec.sessionId === 'string' && (typeof rec.uuid === 'string' || (type !== undefined && CLAUDE_TYPES.has(type)))) return true;
  }
  return false;
}

export async function isClaudeTranscriptFile(file: string): Promise<boolean> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return false;
    const { head } = await readEnds(file, Math.min(st.size, PREFIX_BYTES));
    return looksLikeClaudeTranscript(head.slice(0, 20).map((r) => JSON.stringify(r)));
  } catch {
    return false;
  }
}
