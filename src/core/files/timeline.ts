// The workspace timeline (issue 27): every snapshot of one folder's store, from any session of any agent and any entry
// point (they all snapshot through FileCheckpointer), in the order they were taken. It is an index of the snapshot
// records, which stay the truth: one append-only file `<store>/timeline.jsonl`, a line per snapshot, each line
// carrying its own CRC-32, appended under the store lock right after the record is committed. A line cut short by a
// crash is ignored; a damaged line elsewhere, a missing file, or a record the file does not list (a crash between the
// record's rename and the append, a power cut) is mended from the records (`reconcile`), keeping the order the file
// gives and placing the others by their time.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write';
import { appendCheckedLines, CheckedLinesReader, encodeCheckedLine, isCheckedLine } from './checked-lines';
import { isObjectHash } from './store/object-format';
import { recordFileName, sessionFolderName, type SnapshotRecord, type SnapshotRecords } from './snapshot-records';

/** One snapshot on the timeline. `prompt`: the user-message anchor whose turn it belongs to (its own for a prompt
 *  start; for a turn end, the latest prompt start of the same session before it); undefined for a pre-restore. */
export interface TimelinePoint {
  sessionId: string;
  anchorId: string;
  kind: SnapshotRecord['kind'];
  root: string;
  createdAt: string;
  prompt?: string;
}

export const TIMELINE_FILE = 'timeline.jsonl';

/** Where the prompt `target` (a session and its user-message anchor) is on the timeline: the index of its last
 *  user-message point, or -1 when it has none (a snapshot made before the timeline existed, adopted or imported). */
export function promptPointIndex(points: readonly TimelinePoint[], target: { sessionId: string; anchorId: string }): number {
  for (let k = points.length - 1; k >= 0; k--) {
    const p = points[k]!;
    if (p.kind === 'user-message' && p.sessionId === target.sessionId && p.anchorId === target.anchorId) return k;
  }
  return -1;
}

function encode(rec: Pick<SnapshotRecord, 'sessionId' | 'anchorId' | 'kind' | 'root' | 'createdAt'>): string {
  return encodeCheckedLine(JSON.stringify({ session: rec.sessionId, anchor: rec.anchorId, kind: rec.kind, root: rec.root, at: rec.createdAt }));
}

const KINDS: ReadonlySet<unknown> = new Set(['user-message', 'turn-end', 'pre-restore']);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** A line's JSON as a point, or undefined when it is not one. Checked by hand: a fresh process (the CLI's `history`)
 *  reads every line, and a schema library's parse per line was most of that read. */
function decodePoint(v: unknown): Bare | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  return point(o.session, o.anchor, o.kind, o.root, o.at);
}

function point(session: unknown, anchor: unknown, kind: unknown, root: unknown, at: unknown): Bare | undefined {
  if (!nonEmpty(session) || !nonEmpty(anchor) || !KINDS.has(kind) || !isObjectHash(root) || typeof at !== 'string') return undefined;
  return { sessionId: session, anchorId: anchor, kind: kind as SnapshotRecord['kind'], root, createdAt: at };
}

const FIELDS = ['{"session":"', '","anchor":"', '","kind":"', '","root":"', '","at":"'].map((f) => Buffer.from(f));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE = 0x7d; // }

/**
 * A line's JSON, buf[start, end), as a point: the layout encode() writes taken apart by position, each field made a
 * string of its own (JSON.parse per line was most of a fresh process's read of 10,000 lines, and slices of a line's
 * string are slow map keys); JSON.parse for anything else, or for strings with escapes in them (without a backslash,
 * a string's closing quote is the first quote after its opening one).
 */
function decodeLine(buf: Buffer, start: number, end: number): Bare | undefined {
  const values: string[] = [];
  let at = start;
  for (const field of FIELDS) {
    if (!bytesAt(buf, at, end, field)) return parsedPoint(buf, start, end);
    const from = at + field.length;
    let i = from;
    for (; i < end && buf[i] !== QUOTE; i++) if (buf[i] === BACKSLASH) return parsedPoint(buf, start, end);
    if (i >= end) return parsedPoint(buf, start, end);
    values.push(buf.toString('utf8', from, i));
    at = i;
  }
  if (at !== end - 2 || buf[end - 1] !== CLOSE) return parsedPoint(buf, start, end);
  return point(values[0], values[1], values[2], values[3], values[4]);
}

/** Whether buf[at, end) starts with `bytes` (a JS loop: a native compare's call costs more for a few bytes). */
function bytesAt(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  if (at + bytes.length > end) return false;
  for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false;
  return true;
}

function parsedPoint(buf: Buffer, start: number, end: number): Bare | undefined {
  try {
    return decodePoint(JSON.parse(buf.toString('utf8', start, end)));
  } catch {
    return undefined;
  }
}

interface Parsed {
  points: readonly Bare[];
  /** A line other than the last was damaged: the file needs mending from the records. */
  damaged: boolean;
  /** How many of `points` an earlier read returned in the same places. */
  known: number;
}

/** Gives each point the prompt whose turn it is part of (see TimelinePoint.prompt), carrying on from `lastPrompt`
 *  (each session's latest prompt start before `points`), which it updates. */
function withPrompts(points: readonly Bare[], lastPrompt = new Map<string, string>()): TimelinePoint[] {
  const out: TimelinePoint[] = new Array(points.length);
  for (let k = 0; k < points.length; k++) {
    const p = points[k]!;
    let prompt: string | undefined;
    if (p.kind === 'user-message') {
      lastPrompt.set(p.sessionId, p.anchorId);
      prompt = p.anchorId;
    } else if (p.kind === 'turn-end') {
      // Claude Code's and Codex's hooks name the prompt in the anchor; ours end a turn at the assistant message
      const named = p.anchorId.endsWith(':turn-end') ? p.anchorId.slice(0, -':turn-end'.length) : undefined;
      prompt = named !== undefined && lastPrompt.get(p.sessionId) !== named ? named : lastPrompt.get(p.sessionId);
    }
    // built field by field (not spread): one object shape for every point of a long timeline
    out[k] =
      prompt === undefined
        ? { sessionId: p.sessionId, anchorId: p.anchorId, kind: p.kind, root: p.root, createdAt: p.createdAt }
        : { sessionId: p.sessionId, anchorId: p.anchorId, kind: p.kind, root: p.root, createdAt: p.createdAt, prompt };
  }
  return out;
}

const keyOf = (p: { sessionId: string; anchorId: string; root: string }) => `${p.sessionId}\u0000${p.anchorId}\u0000${p.root}`;

export class Timeline {
  private readonly lines: CheckedLinesReader<Bare>;
  /** The points of the last whole read with their prompts, and each session's latest prompt start after them. */
  private prompted: { points: TimelinePoint[]; lastPrompt: Map<string, string> } = { points: [], lastPrompt: new Map() };
  /** Per session, the record file names of its points (grown with the points; see pointsWithSession). */
  private readonly recordNames = new Map<string, { upTo: number; names: Set<string> }>();

  constructor(
    private readonly storeDir: string,
    private readonly records: SnapshotRecords,
  ) {
    this.lines = new CheckedLinesReader(this.file, { raw: decodeLine });
  }

  get file(): string {
    return join(this.storeDir, TIMELINE_FILE);
  }

  /**
   * Appends the point of a committed snapshot. Called under the store lock; a failure loses nothing (reconcile).
   * Returns the root of the point before it, when the file's last line says (what the changed-path index keys the
   * change by; timeline-changes.ts).
   */
  append(rec: SnapshotRecord): { previousRoot?: string } {
    let previousRoot: string | undefined;
    try {
      previousRoot = this.lastRoot();
    } catch {
      previousRoot = undefined;
    }
    appendCheckedLines(this.file, encode(rec));
    return previousRoot === undefined ? {} : { previousRoot };
  }

  /** The root of the file's last whole line, read from its end (a hook's process must not parse the whole file);
   *  undefined when that line is damaged (which point it was is not known) or there is none. */
  private lastRoot(): string | undefined {
    const fd = openSync(this.file, 'r');
    try {
      const size = fstatSync(fd).size;
      for (let span = 4096; span <= 1 << 20; span *= 4) {
        const len = Math.min(span, size);
        const tail = Buffer.alloc(len);
        readSync(fd, tail, 0, len, size - len);
        // the bytes after the last newline are a line a crash cut short: not a point
        const end = tail.lastIndexOf(0x0a);
        const start = end > 0 ? tail.lastIndexOf(0x0a, end - 1) + 1 : 0;
        if (end >= 0 && (start > 0 || len === size)) {
          return isCheckedLine(tail, start, end) ? decodeLine(tail, start + 9, end)?.root : undefined;
        }
        if (len === size) return undefined;
      }
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  private read(): Parsed | undefined {
    const r = this.lines.read();
    if (!r) return undefined;
    return { points: r.values, damaged: r.damaged, known: r.known };
  }

  /** The points with their prompts, computed only for the points appended since the last read. */
  private promptedOf(parsed: Parsed): TimelinePoint[] {
    let { points, lastPrompt } = this.prompted;
    if (parsed.known !== points.length || parsed.known > parsed.points.length) {
      points = [];
      lastPrompt = new Map();
    }
    if (points.length < parsed.points.length) points = points.concat(withPrompts(parsed.points.slice(points.length), lastPrompt));
    this.prompted = { points, lastPrompt };
    return points;
  }

  /**
   * The points in the order taken. Read only: a missing or damaged file is mended in memory from the records (the
   * caller that holds the store lock writes the mended file with reconcile()).
   */
  async points(): Promise<TimelinePoint[]> {
    const parsed = this.read();
    if (!parsed || parsed.damaged) return withPrompts(merge(parsed?.points ?? [], await this.records.all()));
    // a file cut at a line's end (a crash, a power cut) reads as whole: every session's records without a point are
    // placed too, read by name as for a rewind; a folder of records of a session with no point at all: all are read
    const points = this.promptedOf(parsed);
    const sessions = [...new Set(points.map((p) => p.sessionId))];
    const listed = new Set(sessions.map(sessionFolderName));
    if ((await this.records.sessionFolderNames()).some((n) => !listed.has(n))) return withPrompts(merge(parsed.points, await this.records.all()));
    const missing = (await Promise.all(sessions.map((s) => this.unlistedRecords(s, points)))).flat();
    return missing.length ? withPrompts(merge(parsed.points, missing, false)) : points.slice();
  }

  /**
   * The points with every record of `sessionId` placed (a crash or power cut can leave a committed record without
   * its line): a rewind of that session sees all of its own snapshots. Read only. Without reading every record of
   * the session: its folder's names are compared with those of its points (a record is named by its anchor), and
   * only records of other names are read, with the record its latest turn-end pointer names (a turn end snapshotted
   * again under the same anchor keeps its name with another root).
   */
  async pointsWithSession(sessionId: string): Promise<TimelinePoint[]> {
    const parsed = this.read();
    if (!parsed || parsed.damaged) return this.points();
    const points = this.promptedOf(parsed);
    const missing = await this.unlistedRecords(sessionId, points);
    return missing.length ? withPrompts(merge(parsed.points, missing, false)) : points.slice();
  }

  /** The records of `sessionId` that have no point among `points`. */
  private async unlistedRecords(sessionId: string, points: readonly TimelinePoint[]): Promise<SnapshotRecord[]> {
    let known = this.recordNames.get(sessionId);
    if (!known || known.upTo > points.length) known = { upTo: 0, names: new Set() };
    for (let k = known.upTo; k < points.length; k++) if (points[k]!.sessionId === sessionId) known.names.add(recordFileName(points[k]!.anchorId));
    known.upTo = points.length;
    this.recordNames.set(sessionId, known);
    const names = await this.records.recordFilesOf(sessionId);
    const unknown = names.filter((n) => !known.names.has(n));
    const recs = await Promise.all(unknown.map((n) => this.records.readRecordFile(sessionId, n)));
    const latest = await this.records.latestTurnEndPointer(sessionId);
    const onTimeline = (r: SnapshotRecord) => {
      const k = keyOf(r);
      for (let i = points.length - 1; i >= 0; i--) if (points[i]!.sessionId === sessionId && keyOf(points[i]!) === k) return true;
      return false;
    };
    if (latest && !onTimeline(latest) && !recs.some((r) => r && keyOf(r) === keyOf(latest))) {
      // the pointer counts only while the record it copies is there (gc or the size cap may have dropped it)
      const rec = await this.records.get(sessionId, latest.anchorId);
      if (rec?.root === latest.root) recs.push(rec);
    }
    return recs.filter((r): r is SnapshotRecord => r !== undefined && r.derived === undefined && !onTimeline(r));
  }

  /**
   * Rewrites the file from the records: points whose record is gone (gc, the size cap) are dropped, records without
   * a point are placed by their time, the rest keep their order. Under the store lock.
   */
  async reconcile(): Promise<{ added: number; dropped: number }> {
    const parsed = this.read() ?? { points: [], damaged: false, known: 0 };
    const recs = await this.records.all();
    const merged = merge(parsed.points, recs);
    const before = new Set(parsed.points.map(keyOf));
    const after = new Set(merged.map(keyOf));
    const added = merged.filter((p) => !before.has(keyOf(p))).length;
    const dropped = [...before].filter((k) => !after.has(k)).length;
    if (added > 0 || dropped > 0 || parsed.damaged || parsed.points.length !== merged.length || !this.read()) {
      await writeFileAtomic(this.file, merged.map(encode).join(''));
      this.lines.forget();
    }
    return { added, dropped };
  }
}

type Bare = Omit<TimelinePoint, 'prompt'>;

/**
 * `points` in their order plus `recs` not among them, each placed after the last point taken no later than it.
 * `onlyRecorded`: drop points with no record among `recs` (recs is then every record).
 */
function merge(points: readonly Bare[], recs: SnapshotRecord[], onlyRecorded = true): Bare[] {
  recs = recs.filter((r) => r.derived === undefined);
  const recorded = new Set(recs.map(keyOf));
  const seen = new Set<string>();
  const kept: Bare[] = [];
  for (const p of points) {
    const k = keyOf(p);
    if ((onlyRecorded && !recorded.has(k)) || seen.has(k)) continue;
    seen.add(k);
    kept.push(p);
  }
  const extra = recs
    .filter((r) => !seen.has(keyOf(r)))
    .map((r): Bare => ({ sessionId: r.sessionId, anchorId: r.anchorId, kind: r.kind, root: r.root, createdAt: r.createdAt }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || kindOrder(a.kind) - kindOrder(b.kind));
  if (extra.length === 0) return kept;
  const out: Bare[] = [];
  let e = 0;
  for (const p of kept) {
    while (e < extra.length && extra[e]!.createdAt < p.createdAt) out.push(extra[e++]!);
    out.push(p);
  }
  while (e < extra.length) out.push(extra[e++]!);
  return out;
}

/** Of snapshots taken in the same millisecond: a rewind's pre-restore first, then a turn's end, then a prompt. */
const kindOrder = (k: SnapshotRecord['kind']) => (k === 'pre-restore' ? 0 : k === 'turn-end' ? 1 : 2);
