// The workspace timeline (issue 27): every snapshot of one folder's store, from any session of any agent and any entry
// point (they all snapshot through FileCheckpointer), in the order they were taken. It is an index of the snapshot
// records, which stay the truth: one append-only file `<store>/timeline.jsonl`, a line per snapshot, each line
// carrying its own CRC-32, appended under the store lock right after the record is committed. A line cut short by a
// crash is ignored; a damaged line elsewhere, a missing file, or a record the file does not list (a crash between the
// record's rename and the append, a power cut) is mended from the records (`reconcile`), keeping the order the file
// gives and placing the others by their time.
import { closeSync, fstatSync, openSync, readSync, writeSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { isObjectHash } from './store/object-format';
import type { SnapshotRecord, SnapshotRecords } from './snapshot-records';

const pointSchema = z.object({
  session: z.string().min(1),
  anchor: z.string().min(1),
  kind: z.enum(['user-message', 'turn-end', 'pre-restore']),
  root: z.string().refine(isObjectHash),
  at: z.string(),
});

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

function encode(rec: Pick<SnapshotRecord, 'sessionId' | 'anchorId' | 'kind' | 'root' | 'createdAt'>): string {
  const json = JSON.stringify({ session: rec.sessionId, anchor: rec.anchorId, kind: rec.kind, root: rec.root, at: rec.createdAt });
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

interface Parsed {
  points: Omit<TimelinePoint, 'prompt'>[];
  /** A line other than the last was damaged: the file needs mending from the records. */
  damaged: boolean;
}

function parse(text: string): Parsed {
  const points: Omit<TimelinePoint, 'prompt'>[] = [];
  let damaged = false;
  const lines = text.split('\n');
  // the last element is '' after a complete last line, or a line a crash cut short (ignored, not damage)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const last = i === lines.length - 1;
    const sp = line.indexOf(' ');
    const json = line.slice(sp + 1);
    let point: z.infer<typeof pointSchema> | undefined;
    if (sp === 8 && Number.parseInt(line.slice(0, 8), 16) === crc32(json)) {
      try {
        const r = pointSchema.safeParse(JSON.parse(json));
        if (r.success) point = r.data;
      } catch {
        /* damaged */
      }
    }
    if (!point) {
      if (!last) damaged = true;
      continue;
    }
    points.push({ sessionId: point.session, anchorId: point.anchor, kind: point.kind, root: point.root, createdAt: point.at });
  }
  return { points, damaged };
}

/** Gives each point the prompt whose turn it is part of (see TimelinePoint.prompt). */
function withPrompts(points: Omit<TimelinePoint, 'prompt'>[]): TimelinePoint[] {
  const lastPrompt = new Map<string, string>();
  return points.map((p) => {
    if (p.kind === 'user-message') {
      lastPrompt.set(p.sessionId, p.anchorId);
      return { ...p, prompt: p.anchorId };
    }
    if (p.kind === 'turn-end') {
      // Claude Code's and Codex's hooks name the prompt in the anchor; ours end a turn at the assistant message
      const named = p.anchorId.endsWith(':turn-end') ? p.anchorId.slice(0, -':turn-end'.length) : undefined;
      const prompt = named !== undefined && lastPrompt.get(p.sessionId) !== named ? named : lastPrompt.get(p.sessionId);
      return prompt === undefined ? { ...p } : { ...p, prompt };
    }
    return { ...p };
  });
}

const keyOf = (p: { sessionId: string; anchorId: string; root: string }) => `${p.sessionId}\u0000${p.anchorId}\u0000${p.root}`;

export class Timeline {
  private cache?: { size: number; mtimeMs: number; parsed: Parsed };

  constructor(
    private readonly storeDir: string,
    private readonly records: SnapshotRecords,
  ) {}

  get file(): string {
    return join(this.storeDir, TIMELINE_FILE);
  }

  /** Appends the point of a committed snapshot. Called under the store lock; a failure loses nothing (reconcile). */
  append(rec: SnapshotRecord): void {
    const fd = openSync(this.file, 'a+');
    try {
      const size = fstatSync(fd).size;
      let prefix = '';
      if (size > 0) {
        // a line a crash cut short must not swallow this one
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      writeSync(fd, prefix + encode(rec));
    } finally {
      closeSync(fd);
    }
  }

  private read(): Parsed | undefined {
    let st;
    try {
      st = statSync(this.file);
    } catch {
      return undefined;
    }
    if (this.cache && this.cache.size === st.size && this.cache.mtimeMs === st.mtimeMs) return this.cache.parsed;
    const parsed = parse(readFileSync(this.file, 'utf8'));
    this.cache = { size: st.size, mtimeMs: st.mtimeMs, parsed };
    return parsed;
  }

  /**
   * The points in the order taken. Read only: a missing or damaged file is mended in memory from the records (the
   * caller that holds the store lock writes the mended file with reconcile()).
   */
  async points(): Promise<TimelinePoint[]> {
    const parsed = this.read();
    if (parsed && !parsed.damaged) return withPrompts(parsed.points);
    return withPrompts(merge(parsed?.points ?? [], await this.records.all()));
  }

  /**
   * The points with every record of `sessionId` placed (a crash or power cut can leave a committed record without
   * its line): a rewind of that session sees all of its own snapshots. Read only.
   */
  async pointsWithSession(sessionId: string): Promise<TimelinePoint[]> {
    const parsed = this.read();
    if (!parsed || parsed.damaged) return this.points();
    const known = new Set(parsed.points.map(keyOf));
    const missing = (await this.records.ofSession(sessionId)).filter((r) => !known.has(keyOf(r)));
    return withPrompts(missing.length ? merge(parsed.points, missing, false) : parsed.points);
  }

  /**
   * Rewrites the file from the records: points whose record is gone (gc, the size cap) are dropped, records without
   * a point are placed by their time, the rest keep their order. Under the store lock.
   */
  async reconcile(): Promise<{ added: number; dropped: number }> {
    const parsed = this.read() ?? { points: [], damaged: false };
    const recs = await this.records.all();
    const merged = merge(parsed.points, recs);
    const before = new Set(parsed.points.map(keyOf));
    const after = new Set(merged.map(keyOf));
    const added = merged.filter((p) => !before.has(keyOf(p))).length;
    const dropped = [...before].filter((k) => !after.has(k)).length;
    if (added > 0 || dropped > 0 || parsed.damaged || parsed.points.length !== merged.length || !this.read()) {
      await writeFileAtomic(this.file, merged.map(encode).join(''));
      this.cache = undefined;
    }
    return { added, dropped };
  }
}

type Bare = Omit<TimelinePoint, 'prompt'>;

/**
 * `points` in their order plus `recs` not among them, each placed after the last point taken no later than it.
 * `onlyRecorded`: drop points with no record among `recs` (recs is then every record).
 */
function merge(points: Bare[], recs: SnapshotRecord[], onlyRecorded = true): Bare[] {
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
