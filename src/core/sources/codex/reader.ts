// readCodexSession: one read of the rollout (plus, for a `rollout_reference`, the referenced parents, followed in a
// loop up to their max_depth), one replay pass, never a write.
import { forkTitle } from '../fork-title';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { codexHome, listRolloutFiles, newestSegments, parseRolloutName, readSessionIndex, threadIdFromName } from './discovery';
import { pathToLeaf } from '../../session/context';
import { isInsideFolders, readRegularFile } from '../../agent-files';
import { classifyItem } from './classify';
import { obj, payloadOf, splitRolloutLinesForReading, str, uuidV7Ms, type RawLine } from './lines';
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
    buf = await readRegularFile(file);
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

  // a TUI backtrack (0.169) continues the thread in a new segment file whose history_base names the segment and
  // byte offset it continues from: those segments come first, each one's lines after the cut as an abandoned branch;
  // segments of the thread that nothing continues (a backtrack to the first prompt) are abandoned roots
  const { chain, detached } = await followSegments(file, mp, sessionId, home);
  // a rollout_reference points at the predecessor instead of copying it: its lines, cut before the nth user message
  const parents = await followReferences(chain[0]?.lines ?? lines, home);
  const replayLines: ReplayLine[] = [];
  const control = (c: NonNullable<ReplayLine['control']>): ReplayLine => ({ rec: {}, line: 0, prefix: '', inherited: false, control: c });
  for (const d of detached) {
    replayLines.push(control({ reset: true }));
    for (const l of d.lines) replayLines.push({ rec: l.rec, line: l.line, prefix: d.prefix, inherited: false });
  }
  if (detached.length) replayLines.push(control({ reset: true }));
  for (const p of parents) for (const l of p.lines) replayLines.push({ rec: l.rec, line: l.line, prefix: p.prefix, inherited: true });
  for (const seg of chain) {
    seg.lines.forEach((l, i) => {
      if (i === seg.cut) replayLines.push(control({ save: seg.prefix }));
      replayLines.push({ rec: l.rec, line: l.line, prefix: seg.prefix, inherited: false });
    });
    if (seg.cut >= seg.lines.length) replayLines.push(control({ save: seg.prefix }));
    replayLines.push(control({ restore: seg.prefix }));
  }
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
  // the first prompt of the conversation as it stands (not of a branch abandoned by a backtrack)
  const leaf = tree.leafId === null ? undefined : tree.byId.get(tree.leafId);
  const onPath = new Set(leaf ? pathToLeaf(leaf, tree.byId).map((e) => e.id) : []);
  const named = tree.threadNames[tree.threadNames.length - 1] ?? index?.get(sessionId);
  const prompted = firstPromptTitle(tree.prompts.filter((p) => onPath.has(p.entryId))) ?? firstPromptTitle(tree.prompts);
  // a fork's first prompt is its origin's: named as the fork it is, unless it was given a name of its own
  const title = named ?? (prompted !== undefined ? forkTitle(prompted, forkedFromId !== undefined) : 'Codex session');
  const createdAt = str(mp.timestamp) ?? str(meta?.rec.timestamp) ?? new Date((await stat(file)).birthtimeMs).toISOString();
  return new CodexSession({
    sessionId,
    sessionRef: file,
    cwd: cwd ?? dirname(file),
    title,
    createdAt,
    tree,
    report: { skipped },
    segments: [
      ...chain.map((c) => ({ prefix: c.prefix, file: c.file, cutByte: c.cutByte })),
      ...detached.map((d) => ({ prefix: d.prefix, file: d.file, detached: true })),
    ],
    originIds: [...new Set([forkedFromId, ...parents.map((p) => p.threadId).reverse()].filter((id): id is string => !!id))],
    ...(forkedFromId
      ? { forkedFrom: { sessionId: forkedFromId, ...(parentFile ? { sessionRef: parentFile } : {}), ...(lastShared ? { entryId: lastShared } : {}) } }
      : {}),
  });
}

function firstPromptTitle(prompts: readonly { text: string }[]): string | undefined {
  const t = prompts
    .find((p) => p.text.trim())
    ?.text.trim()
    .replace(/\s+/g, ' ');
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

/** The newest segment of a thread. */
export async function findRollout(home: string, threadId: string): Promise<string | undefined> {
  const id = threadId.toLowerCase();
  const files = (await listRolloutFiles(home)).filter((f) => threadIdFromName(f) === id);
  const withTimes = await Promise.all(files.map(async (f) => ({ file: f, mtimeMs: (await stat(f).catch(() => undefined))?.mtimeMs ?? 0 })));
  return newestSegments(withTimes)[0]?.file;
}

export interface SegmentLines {
  prefix: string;
  file: string;
  lines: RawLine[];
  /** Index of the first line after the history the next segment continues from. */
  cut: number;
  cutByte?: number;
}

const MAX_SEGMENTS = 64;

/** The segment a history_base names: `…_<segment id>.jsonl`, or the thread's first file when it is the thread id. */
function segmentFile(files: readonly string[], threadId: string, segmentId: string): string | undefined {
  const want = segmentId.toLowerCase();
  return (
    files.find((f) => parseRolloutName(f)?.segmentId === want) ??
    (want === threadId.toLowerCase()
      ? files.find((f) => {
          const n = parseRolloutName(f);
          return n?.threadId === want && !n.segmentId;
        })
      : undefined)
  );
}

const segmentKey = (file: string) => (parseRolloutName(file)?.segmentId ?? 'first').slice(-12);

/** The segments this one continues (oldest first, each cut where the next continues) and the thread's other
 *  segments, which nothing continues (each read whole). A loop, bounded, each file once. */
async function followSegments(
  file: string,
  meta: Record<string, unknown>,
  threadId: string,
  home: string,
): Promise<{ chain: SegmentLines[]; detached: SegmentLines[] }> {
  const chain: SegmentLines[] = [];
  const own = resolve(file);
  const name = parseRolloutName(file);
  if (!name || name.threadId !== threadId.toLowerCase()) return { chain, detached: [] };
  const siblings = (await listRolloutFiles(home)).filter((f) => threadIdFromName(f) === name.threadId && resolve(f) !== own);
  if (!siblings.length) return { chain, detached: [] };
  const used = new Set<string>([own]);
  let base = obj(meta.history_base);
  while (base && chain.length < MAX_SEGMENTS) {
    const segId = str(base.thread_id);
    const f = segId ? segmentFile(siblings, threadId, segId) : undefined;
    if (!f || used.has(resolve(f))) break;
    used.add(resolve(f));
    let lines: RawLine[];
    try {
      lines = splitRolloutLinesForReading(await readRegularFile(f)).lines;
    } catch {
      break;
    }
    const byte = typeof base.end_byte_offset === 'number' ? base.end_byte_offset : undefined;
    const ordinal = typeof base.end_ordinal_exclusive === 'number' ? base.end_ordinal_exclusive : undefined;
    let cut = lines.findIndex((l) =>
      byte !== undefined ? l.byteEnd >= byte : ordinal !== undefined && typeof l.rec.ordinal === 'number' && l.rec.ordinal >= ordinal,
    );
    if (cut < 0) cut = lines.length;
    chain.unshift({
      prefix: `seg${segmentKey(f)}:`,
      file: f,
      lines,
      cut,
      ...(byte !== undefined ? { cutByte: byte } : cut < lines.length ? { cutByte: lines[cut]!.byteStart } : {}),
    });
    const m = lines.find((l) => l.rec.type === 'session_meta');
    base = m ? obj(payloadOf(m.rec).history_base) : undefined;
  }
  // the thread's other, older segments: abandoned whole (a backtrack to before the first prompt starts afresh)
  const ownTime = (await stat(own).catch(() => undefined))?.mtimeMs ?? Infinity;
  const detached: SegmentLines[] = [];
  for (const f of siblings.sort()) {
    if (used.has(resolve(f)) || detached.length >= MAX_SEGMENTS) continue;
    const st = await stat(f).catch(() => undefined);
    if (!st || st.mtimeMs > ownTime) continue; // a later segment continues elsewhere: not part of this file's story
    try {
      const lines = splitRolloutLinesForReading(await readRegularFile(f)).lines;
      detached.push({ prefix: `old${segmentKey(f)}:`, file: f, lines, cut: lines.length });
    } catch {
      // gone meanwhile
    }
  }
  return { chain, detached };
}

async function turnIdsOf(file: string): Promise<Set<string>> {
  const out = new Set<string>();
  try {
    for (const l of splitRolloutLinesForReading(await readRegularFile(file)).lines) {
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
    // a path written in the rollout is followed only into CODEX_HOME (resolved, symlinks and all); else the thread
    // id finds the parent among the home's rollouts
    if (file && !(await isInsideFolders(file, [home]))) file = undefined;
    if (!file && threadId) file = await findRollout(home, threadId);
    if (!file || seen.has(resolve(file))) break;
    seen.add(resolve(file));
    let parentLines: RawLine[];
    try {
      parentLines = splitRolloutLinesForReading(await readRegularFile(file)).lines;
    } catch {
      break; // the parent is gone: the fork is shown from its own lines
    }
    const nth = typeof p.nth_user_message === 'number' ? p.nth_user_message : undefined;
    const cut = nth === undefined ? parentLines.length : cutBeforeUserMessage(parentLines, nth);
    chain.unshift({ prefix: `ref${depth}:`, ...(threadId ? { threadId } : {}), file, lines: parentLines.slice(0, cut) });
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
