// Where a forked session came from. `claude --fork-session` (and older resumes) copy the earlier lines into a new
// file with the same uuids and a new sessionId; some versions (and our fork writer) mark them with
// `forkedFrom {sessionId, messageUuid}`, 2.1.330 does not. Without the mark, the origin is the other transcript of
// the same project folder that holds our first line's uuid and was created before us.
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isInsideFolders, openRegularFile, readRegularFile } from '../../agent-files';
import { isSafeSessionId } from './prompt-records';

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const PREFIX_BYTES = 64 * 1024;
// A transcript's first line is written when the file is created; a copied one is older than the file by at least the
// time it took to decide to fork. Within this margin the file is taken to be an original and the folder not searched.
const COPY_MARGIN_MS = 2000;

export interface ForkInfo {
  sessionId: string;
  sessionRef?: string;
  /** Uuids of the lines copied from the origin, in file order. */
  inherited: Set<string>;
}

/** What the reader's pass notes for fork detection: the main-line uuids in file order, and the forkedFrom marks. */
export interface ForkClues {
  uuids: string[];
  /** Timestamp of the first line in the graph. */
  firstTimestamp?: string;
  marks: { uuid: string; sessionId: string }[];
}

export async function detectForkOrigin(sessionRef: string, clues: ForkClues, searchFolder: boolean): Promise<ForkInfo | undefined> {
  const dir = dirname(sessionRef);
  const marked = fromMarks(clues);
  if (marked) {
    // the mark is only an id: a transcript of the same project folder, never a path out of it
    const candidate = join(dir, `${marked.sessionId}.jsonl`);
    if (await isInsideFolders(candidate, [dir])) marked.sessionRef = candidate;
    return marked;
  }
  if (!searchFolder) return undefined;
  const first = clues.uuids[0];
  if (first === undefined) return undefined;
  // a transcript may be written with spaces after the colons (`"uuid": "…"`): both layouts are found
  const needle = new RegExp(`"uuid"\\s*:\\s*"${escapeRegExp(first)}"`);
  const own = await stat(sessionRef);
  // searching reads the start of every older transcript of the project: only worth it when ours looks copied
  const first0 = clues.firstTimestamp ? Date.parse(clues.firstTimestamp) : NaN;
  if (own.birthtimeMs > 0 && !Number.isNaN(first0) && first0 >= own.birthtimeMs - COPY_MARGIN_MS) return undefined;
  let best: { file: string; created: number } | undefined;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (!SESSION_FILE.test(name) || name === basename(sessionRef)) continue;
    const file = join(dir, name);
    try {
      const st = await stat(file);
      const created = createdMs(st);
      if (created > createdMs(own)) continue;
      if (best && created >= best.created) continue;
      if (needle.test(await prefix(file))) best = { file, created };
    } catch {
      // a file that vanished while listing is not the origin
    }
  }
  if (!best) return undefined;
  const originUuids = new Set<string>();
  for (const m of (await readRegularFile(best.file)).toString('utf8').matchAll(/"uuid"\s*:\s*"([^"]+)"/g)) originUuids.add(m[1]!);
  const inherited = new Set<string>();
  for (const u of clues.uuids) if (originUuids.has(u)) inherited.add(u);
  return { sessionId: basename(best.file, '.jsonl'), sessionRef: best.file, inherited };
}

/** The origin the marks name. A mark whose id is not a session id (`../../x`) is ignored: ids become file names. */
function fromMarks(clues: ForkClues): ForkInfo | undefined {
  const first = clues.marks.find((m) => isSafeSessionId(m.sessionId));
  if (!first) return undefined;
  const info: ForkInfo = { sessionId: first.sessionId, inherited: new Set() };
  for (const m of clues.marks) if (m.sessionId === info.sessionId) info.inherited.add(m.uuid);
  return info;
}

/** Birth time where the file system keeps it, else the change time (a copy never predates its origin's). */
function createdMs(st: { birthtimeMs: number; ctimeMs: number }): number {
  return st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
}

async function prefix(file: string): Promise<string> {
  const fh = await openRegularFile(file);
  try {
    const buf = Buffer.alloc(PREFIX_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, bytesRead);
  } finally {
    await fh.close();
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
