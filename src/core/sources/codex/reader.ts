// readCodexSession: one read of the rollout (plus, for a `rollout_reference`, the referenced parents, followed in a
// loop up to their max_depth), one replay pass, never a write.
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { codexHome, listRolloutFiles, readSessionIndex, threadIdFromName } from './discovery';
import { classifyItem } from './classify';
import { payloadOf, splitRolloutLines, splitRolloutLinesForReading, str, uuidV7Ms, type RawLine } from './lines';
import { replayRollout, type ReplayLine } from './replay';
import { CodexSession } from './session';

export interface ReadCodexSessionOptions {
  /** CODEX_HOME (to find a fork's origin); default: the folder holding sessions/ when the file is in one, else $CODEX_HOME. */
  home?: string;
  /** Look for the origin's file of a fork (default true). */
  findForkOrigin?: boolean;
}

const MAX_REFERENCE_DEPTH = 8;

export async function readCodexSession(file: string, opts: ReadCodexSessionOptions = {}): Promise<CodexSession> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (err) {
    throw new Error(`Cannot read the Codex rollout ${file}: ${(err as Error).message}`);
  }
  const { lines, skipped } = splitRolloutLinesForReading(buf);
  const home = opts.home ?? homeOf(file);
  const meta = lines.find((l) => l.rec.type === 'session_meta');
  const mp = meta ? payloadOf(meta.rec) : {};
  const sessionId = str(mp.id) ?? threadIdFromName(file) ?? file;
  let cwd = str(mp.cwd);
  if (!cwd) for (const l of lines) if (l.rec.type === 'turn_context' && (cwd = str(payloadOf(l.rec).cwd))) break;

  // a rollout_reference points at the predecessor instead of copying it: its lines, cut before the nth user message
  const parents = await followReferences(lines, home);
  const replayLines: ReplayLine[] = [];
  for (const p of parents) for (const l of p.lines) replayLines.push({ rec: l.rec, line: l.line, prefix: p.prefix, inherited: true });
  for (const l of lines) replayLines.push({ rec: l.rec, line: l.line, prefix: '', inherited: false });
  const tree = replayRollout(replayLines);

  // forked_from_id: the copied history is the turns that existed before this thread was made
  const forkedFromId = str(mp.forked_from_id) ?? parents[parents.length - 1]?.threadId;
  let parentFile: string | undefined = parents[parents.length - 1]?.file;
  if (str(mp.forked_from_id)) {
    const forkMs = uuidV7Ms(sessionId) ?? Date.parse(str(mp.timestamp) ?? '');
    let parentTurns: Set<string> | undefined;
    if (opts.findForkOrigin !== false) {
      parentFile = (await findRollout(home, forkedFromId!)) ?? parentFile;
      if (parentFile) parentTurns = await turnIdsOf(parentFile);
    }
    for (const [entryId, turn] of tree.turnOf) {
      const ms = uuidV7Ms(turn);
      if (parentTurns ? parentTurns.has(turn) : ms !== undefined && Number.isFinite(forkMs) && ms < forkMs) tree.inherited.add(entryId);
    }
  }
  let lastShared: string | undefined;
  for (const e of tree.entries) if (tree.inherited.has(e.id) && e.type === 'message') lastShared = e.id;

  const index = tree.threadNames.length ? undefined : await readSessionIndex(home);
  const title = tree.threadNames[tree.threadNames.length - 1] ?? index?.get(sessionId) ?? firstPromptTitle(tree.prompts) ?? 'Codex session';
  const createdAt = str(mp.timestamp) ?? str(meta?.rec.timestamp) ?? new Date((await stat(file)).birthtimeMs).toISOString();
  return new CodexSession({
    sessionId,
    sessionFile: file,
    cwd: cwd ?? dirname(file),
    title,
    createdAt,
    tree,
    report: { skipped },
    ...(forkedFromId
      ? { forkedFrom: { sessionId: forkedFromId, ...(parentFile ? { sessionFile: parentFile } : {}), ...(lastShared ? { entryId: lastShared } : {}) } }
      : {}),
  });
}

function firstPromptTitle(prompts: readonly { text: string }[]): string | undefined {
  const t = prompts.find((p) => p.text.trim())?.text.trim().replace(/\s+/g, ' ');
  return t === undefined ? undefined : t.length > 200 ? `${t.slice(0, 199)}…` : t;
}

/** CODEX_HOME of a rollout in <home>/sessions/YYYY/MM/DD (or flat, or archived_sessions), else $CODEX_HOME. */
export function homeOf(file: string): string {
  let dir = dirname(resolve(file));
  for (let i = 0; i < 4; i++) {
    const name = dir.split(/[\\/]/).pop();
    if (name === 'sessions' || name === 'archived_sessions') return dirname(dir);
    dir = dirname(dir);
  }
  return codexHome();
}

export async function findRollout(home: string, threadId: string): Promise<string | undefined> {
  const id = threadId.toLowerCase();
  return (await listRolloutFiles(home)).find((f) => threadIdFromName(f) === id);
}

async function turnIdsOf(file: string): Promise<Set<string>> {
  const out = new Set<string>();
  try {
    for (const l of splitRolloutLinesForReading(await readFile(file)).lines) {
      const p = payloadOf(l.rec);
      const t = str(p.turn_id);
      if (t && (l.rec.type === 'turn_context' || p.type === 'task_started' || p.type === 'turn_started')) out.add(t);
    }
  } catch {
    // the origin is gone: nothing is known to be shared
  }
  return out;
}

interface ParentLines {
  prefix: string;
  threadId?: string;
  file: string;
  lines: RawLine[];
}

/** The chain of rollout_reference parents, oldest first (a loop, bounded by max_depth and MAX_REFERENCE_DEPTH). */
async function followReferences(own: readonly RawLine[], home: string): Promise<ParentLines[]> {
  const chain: ParentLines[] = [];
  const seen = new Set<string>();
  let lines = own;
  let budget = MAX_REFERENCE_DEPTH;
  for (let depth = 1; depth <= budget; depth++) {
    const ref = lines.find((l) => l.rec.type === 'rollout_reference');
    if (!ref) break;
    const p = payloadOf(ref.rec);
    if (typeof p.max_depth === 'number' && depth === 1) budget = Math.max(1, Math.min(MAX_REFERENCE_DEPTH, Math.floor(p.max_depth)));
    const threadId = str(p.thread_id);
    let file = str(p.rollout_path);
    if (file && !isAbsolute(file)) file = join(home, file);
    if (!file && threadId) file = await findRollout(home, threadId);
    if (!file || seen.has(resolve(file))) break;
    seen.add(resolve(file));
    let parentLines: RawLine[];
    try {
      parentLines = splitRolloutLinesForReading(await readFile(file)).lines;
    } catch {
      break; // the parent is gone: the fork is shown from its own lines
    }
    const nth = typeof p.nth_user_message === 'number' ? p.nth_user_message : undefined;
    const cut = nth === undefined ? parentLines.length : cutBeforeUserMessage(parentLines, nth);
    chain.unshift({ prefix: `p${depth}-`, ...(threadId ? { threadId } : {}), file, lines: parentLines.slice(0, cut) });
    lines = parentLines;
  }
  return chain;
}

/** Index of the line holding the nth (0-based) typed user message; all lines when there are fewer. */
function cutBeforeUserMessage(lines: readonly RawLine[], nth: number): number {
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    const rec = lines[i]!.rec;
    if (rec.type === 'response_item' && classifyItem(payloadOf(rec)) === 'prompt') {
      if (seen === nth) return i;
      seen++;
    }
  }
  return lines.length;
}
