// The timeline's changed-path index (issue 27): for two consecutive points of the timeline, which paths differ between
// their root trees, each with the file it holds after. A file's history and blame read it to find the few points where
// that file changed instead of reading the file's tree entry (and its content) at every point of the timeline.
//
// One append-only file beside the timeline, `<store>/timeline-changes.jsonl`, in the timeline's checked lines
// (checked-lines.ts). A line is keyed by the two root hashes it compares and says only what those two trees say, so it
// is right wherever the pair appears, whatever the order of the timeline (mended, reconciled) and whoever wrote it:
// a snapshot appends the line of its point under the store lock; a pair without a line (a crash, a power cut, a
// damaged line, a store older than the index) is computed from the trees by the reader, kept in its memory (reading
// writes nothing), and written by the next gc, which writes the file whole with the pairs of the timeline it keeps.
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write';
import { appendCheckedLines, CheckedLinesReader, encodeCheckedLine } from './checked-lines';
import { isObjectHash } from './store/object-format';
import type { TreeEntry } from './store/tree';
import type { TreeReader } from './store/tree-diff';

export const TIMELINE_CHANGES_FILE = 'timeline-changes.jsonl';

/**
 * A path whose state differs between two trees: `[path, blob hash]` when a regular file is there after, `[path, null]`
 * when none is (absent, a folder, a symlink), `[path]` when something at or under the path changed and what is there
 * is not said (a line naming too many paths names their top folders instead; `''` is the whole tree). A folder on one
 * side only is named once, not its contents: a path under a named path is looked up in the tree.
 */
export type ChangedPath = [path: string] | [path: string, fileAfter: string | null];

interface PairChanges {
  from: string;
  to: string;
  paths: ChangedPath[];
}

/** Past this many paths a line names top folders (a checkout of another branch; node_modules unpacked file by file). */
export const MAX_LISTED_PATHS = 2000;

/** Where a listed pair's paths lie (their JSON, in the bytes of the index file as read), and the index that says
 *  which of its lines name a path. */
interface RawPaths {
  buf: Buffer;
  start: number;
  end: number;
  index: TimelineChanges;
}

/**
 * The changes of one pair as read: its paths' JSON kept as bytes until a reader asks about a path it may name (a
 * file's history asks every pair of the timeline whether it touched the file; most never name it, and which do is
 * found by one scan of the file's bytes per path: TimelineChanges.naming).
 */
export class ChangeList {
  private parsed?: ChangedPath[] | null;

  constructor(
    private readonly raw: RawPaths | undefined,
    paths?: ChangedPath[],
  ) {
    if (paths) this.parsed = paths;
  }

  /** False only when the list names none of `quoted` (paths as written, see quotedPath), nor the whole tree. */
  mayName(quoted: readonly string[]): boolean {
    return this.raw === undefined || this.raw.index.naming(quoted).has(this);
  }

  /** The paths; undefined when the text is not a list of them (a line whose CRC held: only a writer's bug). */
  get paths(): ChangedPath[] | undefined {
    if (this.parsed === undefined) {
      let v: unknown;
      try {
        v = JSON.parse(this.raw!.buf.toString('utf8', this.raw!.start, this.raw!.end));
      } catch {
        v = undefined;
      }
      this.parsed = validPaths(v) ? v : null;
    }
    return this.parsed ?? undefined;
  }

  /** @internal Where its paths' JSON lies in the bytes read (undefined: not read from the file as bytes). */
  get rawPaths(): RawPaths | undefined {
    return this.raw;
  }
}

/** A path as a line writes it (JSON.stringify, which always writes a string the same way): the text a list naming
 *  it holds. */
export const quotedPath = (path: string): string => JSON.stringify(path);
/** How a list naming the whole tree is written. */
const WHOLE_TREE = '[""]';

function validPaths(v: unknown): v is ChangedPath[] {
  if (!Array.isArray(v)) return false;
  for (const c of v as unknown[]) {
    if (!Array.isArray(c) || typeof c[0] !== 'string' || c.length < 1 || c.length > 2) return false;
    if (c.length === 2 && c[1] !== null && !isObjectHash(c[1])) return false;
  }
  return true;
}

interface ReadPair {
  from: string;
  to: string;
  changes: ChangeList;
  /** Where the line's JSON lies (written again as it is by a rewrite). */
  buf: Buffer;
  start: number;
  end: number;
}

const encodePair = (p: PairChanges) => JSON.stringify({ from: p.from, to: p.to, paths: p.paths });

const HEAD = '{"from":"';
const TO = '","to":"';
const PATHS = '","paths":';
/** Where the paths' JSON starts in a line of encodePair's layout (both hashes are 64 characters). */
const PATHS_AT = 155;
const CLOSE = 0x7d; // }

/** A line's JSON, buf[start, end), as a pair. The layout encodePair writes is taken apart by position, its paths left
 *  as bytes; any other is parsed. */
function decodeLine(index: TimelineChanges, buf: Buffer, start: number, end: number): ReadPair | undefined {
  if (end - start > PATHS_AT && buf[end - 1] === CLOSE && buf.toString('latin1', start, start + 9) === HEAD) {
    if (buf.toString('latin1', start + 73, start + 81) === TO && buf.toString('latin1', start + 145, start + PATHS_AT) === PATHS) {
      // the hashes checked as bytes, then made strings of their own (a slice of a longer string is slow to check,
      // and slower as a map's key)
      if (!isHexHash(buf, start + 9) || !isHexHash(buf, start + 81)) return undefined;
      const from = buf.toString('latin1', start + 9, start + 73);
      const to = buf.toString('latin1', start + 81, start + 145);
      return { from, to, changes: new ChangeList({ buf, start: start + PATHS_AT, end: end - 1, index }), buf, start, end };
    }
  }
  const v: unknown = JSON.parse(buf.toString('utf8', start, end));
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (!isObjectHash(o.from) || !isObjectHash(o.to) || !validPaths(o.paths)) return undefined;
  return { from: o.from, to: o.to, changes: new ChangeList(undefined, o.paths), buf, start, end };
}

/** Whether buf holds an object hash (64 lowercase hex digits) at `at`. */
function isHexHash(buf: Buffer, at: number): boolean {
  if (at + 64 > buf.length) return false;
  for (let i = at; i < at + 64; i++) {
    const c = buf[i]!;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** The listed pairs read in one go: the bytes they lie in and, in order, where each one's paths start. */
interface Chunk {
  buf: Buffer;
  lists: ChangeList[];
  starts: number[];
}

const join2 = (base: string, name: string) => (base === '' ? name : `${base}/${name}`);

/**
 * The paths where the stored trees `from` and `to` differ (see ChangedPath), folders whose tree hash is the same on
 * both sides skipped without reading them. Throws when a tree on the way cannot be read.
 */
export async function changedPaths(reader: TreeReader, from: string, to: string): Promise<ChangedPath[]> {
  const out: ChangedPath[] = [];
  const stack: { rel: string; a: string; b: string }[] = [{ rel: '', a: from, b: to }];
  for (let task = stack.pop(); task; task = stack.pop()) {
    if (task.a === task.b) continue;
    const [aEntries, bEntries] = [await reader.entries(task.a), await reader.entries(task.b)];
    const names = new Set([...aEntries.keys(), ...bEntries.keys()]);
    for (const name of [...names].sort()) {
      const path = join2(task.rel, name);
      const x: TreeEntry | undefined = aEntries.get(name);
      const y: TreeEntry | undefined = bEntries.get(name);
      if (x?.kind === 'dir' && y?.kind === 'dir') {
        if (x.mode !== y.mode) out.push([path, null]);
        stack.push({ rel: path, a: x.hash, b: y.hash });
        continue;
      }
      if (x && y && x.kind === y.kind && x.hash === y.hash && x.mode === y.mode) continue;
      out.push([path, y?.kind === 'file' ? y.hash : null]);
    }
  }
  return listable(out);
}

/** A list of at most MAX_LISTED_PATHS: the top folders of the paths (or the whole tree) in place of a longer one. */
function listable(paths: ChangedPath[]): ChangedPath[] {
  if (paths.length <= MAX_LISTED_PATHS) return paths;
  const tops = [...new Set(paths.map(([p]) => p.split('/')[0]!))];
  return tops.length <= MAX_LISTED_PATHS ? tops.map((t): ChangedPath => [t]) : [['']];
}

export class TimelineChanges {
  private readonly lines: CheckedLinesReader<ReadPair>;
  /** The pairs read from the file, by the root they lead to (the file's lines 0..indexed). */
  private byTo = new Map<string, ReadPair[]>();
  /** The same pairs' bytes, for naming(). */
  private chunks: Chunk[] = [];
  private lastNaming: { quoted: string[]; lists: ReadonlySet<ChangeList> } | undefined;
  private indexed = 0;
  /** Pairs the file does not have, computed from the trees in this process (undefined: a tree could not be read). */
  private readonly computed = new Map<string, ChangeList | undefined>();
  private damaged = false;

  constructor(private readonly storeDir: string) {
    this.lines = new CheckedLinesReader(this.file, { raw: (buf, start, end) => decodeLine(this, buf, start, end) });
  }

  get file(): string {
    return join(this.storeDir, TIMELINE_CHANGES_FILE);
  }

  /** Takes in the lines appended since the last load (the file read again whole when it was replaced or damaged). */
  load(): void {
    const r = this.lines.read();
    if (!r || r.known !== this.indexed || r.known > r.values.length) {
      this.byTo = new Map();
      this.chunks = [];
      this.lastNaming = undefined;
      this.indexed = 0;
    }
    this.damaged = r?.damaged ?? false;
    if (!r) return;
    if (r.values.length > this.indexed) this.lastNaming = undefined;
    for (let k = this.indexed; k < r.values.length; k++) {
      const p = r.values[k]!;
      const list = this.byTo.get(p.to);
      if (list) list.push(p);
      else this.byTo.set(p.to, [p]);
      const raw = p.changes.rawPaths;
      if (!raw) continue;
      let chunk = this.chunks.at(-1);
      if (chunk?.buf !== raw.buf) this.chunks.push((chunk = { buf: raw.buf, lists: [], starts: [] }));
      chunk.lists.push(p.changes);
      chunk.starts.push(raw.start);
    }
    this.indexed = r.values.length;
  }

  /**
   * The lists read from the file that may name one of `quoted` (paths as written, see quotedPath) or the whole tree:
   * each is searched for in the bytes read, once (not in every line), and only a hit's line is looked at. The last
   * answer is kept: a file's history asks it of every pair with the same paths.
   */
  naming(quoted: readonly string[]): ReadonlySet<ChangeList> {
    const last = this.lastNaming;
    if (last && last.quoted.length === quoted.length && last.quoted.every((q, k) => q === quoted[k])) return last.lists;
    const lists = new Set<ChangeList>();
    for (const chunk of this.chunks) {
      for (const q of [WHOLE_TREE, ...quoted]) {
        const needle = Buffer.from(q);
        for (let at = chunk.buf.indexOf(needle); at >= 0; at = chunk.buf.indexOf(needle, at + 1)) {
          // the last list starting at or before the hit, if the hit lies in it (not in a line's hashes or CRC)
          let lo = 0;
          let hi = chunk.starts.length - 1;
          while (lo < hi) {
            const mid = (lo + hi + 1) >> 1;
            if (chunk.starts[mid]! <= at) lo = mid;
            else hi = mid - 1;
          }
          const list = chunk.lists[lo];
          const raw = list?.rawPaths;
          if (raw && raw.start <= at && at + needle.length <= raw.end) lists.add(list!);
        }
      }
    }
    this.lastNaming = { quoted: [...quoted], lists };
    return lists;
  }

  /**
   * The paths the file's line for the pair lists, as of the last load(); undefined when it has none for it (or its text
   * is not a list): nothing is computed, the caller compares the trees.
   */
  listedPaths(from: string, to: string): readonly ChangedPath[] | undefined {
    return this.listed(from, to)?.changes.paths;
  }

  private listed(from: string, to: string): ReadPair | undefined {
    return this.byTo.get(to)?.find((p) => p.from === from);
  }

  /**
   * The changes between two roots, as of the last load(): the file's line, else computed from the trees and kept in
   * memory (a promise only then). Undefined when a tree on the way cannot be read: the caller looks at the trees.
   */
  between(reader: TreeReader, from: string, to: string): ChangeList | undefined | Promise<ChangeList | undefined> {
    if (from === to) return NO_CHANGES;
    const listed = this.listed(from, to);
    if (listed) return listed.changes;
    const key = `${from}${to}`;
    if (this.computed.has(key)) return this.computed.get(key);
    return changedPaths(reader, from, to).then(
      (paths) => {
        const list = new ChangeList(undefined, paths);
        this.computed.set(key, list);
        return list;
      },
      () => {
        this.computed.set(key, undefined);
        return undefined;
      },
    );
  }

  /** Appends the line of a new point (the snapshot of `to`, after `from`). Under the store lock. */
  async record(reader: TreeReader, from: string, to: string): Promise<void> {
    if (from === to) return;
    this.append({ from, to, paths: await changedPaths(reader, from, to) });
  }

  /** Appends a line whose paths the caller knows (a writer that made the change itself; the benchmark's). */
  append(pair: PairChanges): void {
    appendCheckedLines(this.file, encodeCheckedLine(encodePair({ ...pair, paths: listable(pair.paths) })));
  }

  /**
   * Writes the file whole with the line of every consecutive pair of `roots` (the timeline's points, in order): lines
   * of pairs no longer on the timeline go, missing or damaged ones are computed again. Under the store lock (gc).
   * Pairs whose trees cannot be read are left out.
   */
  async rewrite(reader: TreeReader, roots: readonly string[]): Promise<{ computed: number; dropped: number }> {
    this.load();
    const wanted = new Map<string, string>();
    let computed = 0;
    for (let k = 0; k + 1 < roots.length; k++) {
      const from = roots[k]!;
      const to = roots[k + 1]!;
      if (from === to || wanted.has(`${from}${to}`)) continue;
      const listed = this.listed(from, to);
      let json = listed?.buf.toString('utf8', listed.start, listed.end);
      if (json === undefined) {
        const paths = await changedPaths(reader, from, to).catch(() => undefined);
        if (!paths) continue;
        json = encodePair({ from, to, paths });
        computed++;
      }
      wanted.set(`${from}${to}`, json);
    }
    const dropped = this.indexed - (wanted.size - computed);
    if (computed > 0 || dropped !== 0 || this.damaged) {
      await writeFileAtomic(this.file, [...wanted.values()].map(encodeCheckedLine).join(''));
      this.lines.forget();
      this.byTo = new Map();
      this.chunks = [];
      this.lastNaming = undefined;
      this.indexed = 0;
    }
    return { computed, dropped };
  }
}

const NO_CHANGES = new ChangeList(undefined, []);
