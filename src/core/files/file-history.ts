// A file's history and blame across agents (issue 27, items 4 and 5), read off the folder's timeline (timeline.ts),
// never from git: the versions the path had at each snapshot, the turn each change belongs to (attribution.ts's
// windows: one session's prompt, several sessions at once, or the user; a change its agent's records claim right after
// a turn's end, that turn, by the same rule as a rewind's attribution: ChangeOwners), a file renamed by `mv` followed to its old
// name (the same content left one path and appeared at another between two snapshots), and per line the change that
// last wrote it.
import { createTwoFilesPatch, diffArrays } from 'diff';
import { ChangeOwners } from './restore/attribution';
import { lineStats } from './restore/line-stats';
import { hashObject, type ObjectStore } from './store/object-store';
import { diffStoredTrees, type EntryState, type TreeReader } from './store/tree-diff';
import type { TimelinePoint } from './timeline';
import { quotedPath, type ChangeList } from './timeline-changes';
import type { BlameLine, ChangeOwner, FileBlame, FileHistory, FileHistoryEntry, TurnRef, TurnWrites } from './types';

/** The file as it is now (read by the caller): its bytes, or null when there is no regular file at the path. */
export type NowFile = Buffer | null;

/** One version of the file: at a point of the timeline (index) or now (points.length). */
interface Version {
  at: number;
  path: string;
  /** Its bytes (a file), or null (absent, a folder, a symlink). */
  data: Buffer | null;
  /** Its hash in the store, when known (now has none). */
  hash?: string;
}

const DIFF_CAP = 200_000;

/** The changes between points j and j + 1 (timeline-changes.ts), undefined when not known; a promise only when they
 *  must be computed from the trees. */
export type ChangesAt = (j: number) => ChangeList | undefined | Promise<ChangeList | undefined>;

/** What interval j's changes say of `p`: unchanged, the file it holds after (its blob hash), or look at the tree. */
type Fate = 'same' | 'look' | { file: string };

/** `p` and every folder on its way, as a list of changes would write them (ChangeList.mayName). */
function quotedWay(p: string): string[] {
  const out = [quotedPath(p)];
  for (let k = p.indexOf('/'); k > 0; k = p.indexOf('/', k + 1)) out.push(quotedPath(p.slice(0, k)));
  return out;
}

function fateOf(changes: ChangeList | undefined, p: string, way: readonly string[]): Fate {
  if (changes === undefined) return 'look';
  if (!changes.mayName(way)) return 'same';
  const changed = changes.paths;
  if (changed === undefined) return 'look';
  let fate: Fate = 'same';
  for (const c of changed) {
    const q = c[0];
    if (q === p) {
      if (c.length === 1 || c[1] === null) return 'look'; // not a file there now: which of absent, folder or link, the tree says
      fate = { file: c[1] };
    } else if (q === '' || (p.startsWith(q) && p.charCodeAt(q.length) === 0x2f)) return 'look';
  }
  return fate;
}

/** The versions of `path` (followed back through renames), oldest first, each with the interval that made it. Only
 *  the points where the changed-path index says the path may have changed are looked at, newest first; a file's
 *  content is read only where its hash changes. */
async function versionsOf(
  reader: TreeReader,
  store: ObjectStore,
  points: readonly TimelinePoint[],
  path: string,
  now: NowFile,
  changesAt: ChangesAt,
): Promise<{ versions: Version[]; madeIn: number[] }> {
  const versions: Version[] = [{ at: points.length, path, data: now }];
  const madeIn: number[] = [];
  let current = versions[0]!;
  /** The content hash of current.data (the file now has no stored hash of its own). */
  let currentContent = now === null ? undefined : hashObject('blob', now);
  let p = path;
  let way = quotedWay(p);
  // synchronous unless the changes must be computed: a wait per point of a long timeline adds up
  const fate = (j: number): Fate | Promise<Fate> => {
    if (points[j]!.root === points[j + 1]!.root) return 'same';
    const c = changesAt(j);
    return c instanceof Promise ? c.then((x) => fateOf(x, p, way)) : fateOf(c, p, way);
  };
  /** The newest interval before point j whose changes may touch p, with what they say (-1: none). */
  const touchingBefore = async (j: number): Promise<{ i: number; f: Fate }> => {
    for (let i = j - 1; i >= 0; i--) {
      let f = fate(i);
      if (f instanceof Promise) f = await f;
      if (f !== 'same') return { i, f };
    }
    return { i: -1, f: 'look' };
  };
  // point j is compared with the version after it: the last point with the file now, then each point whose interval
  // to the next may have changed p
  let j = points.length - 1;
  while (j >= 0) {
    const next = points[j + 1];
    let before = await touchingBefore(j);
    // p is as interval i left it (or as at the first point) at every point from i + 1 through j
    let state: EntryState;
    let data: Buffer | null = null;
    if (typeof before.f === 'object') state = { kind: 'file', hash: before.f.file, mode: 0 };
    else state = await reader.lookup(points[j]!.root, p).catch(() => null);
    let same: boolean;
    if (state?.kind === 'file' && currentContent !== undefined && currentContent === state.hash) same = true;
    else {
      if (state?.kind === 'file') {
        try {
          data = await store.read(state.hash, 'blob', p);
        } catch {
          state = null; // unreadable: as the tree's entry would be if it could not be read
        }
      }
      same = data === null ? current.data === null : current.data !== null && data.equals(current.data);
    }
    if (same) {
      if (state?.kind === 'file') current.hash ??= state.hash; // what a rename further back is recognised by
    } else {
      if (data === null && current.data !== null && next && state === null) {
        // created in this interval: a path that held the same content at point j and is gone at j+1 was renamed here
        const moved = (await diffStoredTrees(reader, points[j]!.root, next.root).catch(() => [])).find(
          (d) => d.b === null && d.a?.kind === 'file' && current.hash !== undefined && d.a.hash === current.hash,
        );
        if (moved) {
          p = moved.path;
          way = quotedWay(p);
          state = await reader.lookup(points[j]!.root, p);
          data = state?.kind === 'file' ? await store.read(state.hash, 'blob', p) : null;
          before = await touchingBefore(j);
        }
      }
      madeIn.unshift(j);
      current = { at: j, path: p, data, ...(state && state.kind !== 'dir' ? { hash: state.hash } : {}) };
      currentContent = data === null ? undefined : state?.kind === 'file' ? state.hash : undefined;
      versions.unshift(current);
    }
    j = before.i;
  }
  return { versions, madeIn };
}

/** The owners of the file's changes, noting the turns that may claim one the timeline gives to nobody (the caller
 *  asks their agents only when there is one: FileHistory.claimable). */
class Claimable {
  private readonly turns = new Map<string, TurnRef>();

  constructor(private readonly owners: ChangeOwners) {}

  ownerOf(interval: number, path: string): ChangeOwner {
    const owner = this.owners.of(interval, path);
    const c = owner.by === 'user' ? this.owners.claimant(interval) : undefined;
    if (c) this.turns.set(`${c.sessionId}\u0000${c.anchorId}`, c);
    return owner;
  }

  result(): { claimable?: TurnRef[] } {
    return this.turns.size > 0 ? { claimable: [...this.turns.values()] } : {};
  }
}

function ownerKey(o: ChangeOwner): string {
  return o.by === 'turn' ? `t\u0000${o.sessionId}\u0000${o.prompt}` : o.by === 'several' ? `s\u0000${o.sessions.join('\u0000')}` : 'u';
}

/** The file's lines, each with its newline (what split(/(?<=\n)/) gives, without a regular expression's run per
 *  line: blame splits every version of the file). */
function lines(b: Buffer | null): string[] {
  if (b === null) return [];
  const text = b.toString('utf8');
  const out: string[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < text.length - 1; nl = text.indexOf('\n', start)) {
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  out.push(text.slice(start));
  return out;
}

/** The changes to `path` (any agent), newest first, each with its diff; consecutive changes of one turn are one. */
export async function fileHistory(
  reader: TreeReader,
  store: ObjectStore,
  points: readonly TimelinePoint[],
  path: string,
  now: NowFile,
  changesAt: ChangesAt,
  turnWrites: readonly TurnWrites[] = [],
): Promise<FileHistory> {
  const owners = new ChangeOwners(points, turnWrites);
  const { versions, madeIn } = await versionsOf(reader, store, points, path, now, changesAt);
  const claimable = new Claimable(owners);
  // the changes grouped first, each group's diff made once
  const groups: { owner: ChangeOwner; from: Version; to: Version; interval: number }[] = [];
  for (let k = 1; k < versions.length; k++) {
    const interval = madeIn[k - 1]!;
    const owner = claimable.ownerOf(interval, versions[k]!.path);
    const last = groups.at(-1);
    if (last && ownerKey(last.owner) === ownerKey(owner)) Object.assign(last, { owner, to: versions[k]!, interval });
    else groups.push({ owner, from: versions[k - 1]!, to: versions[k]!, interval });
  }
  const entries = groups.map((g) => describe(g.owner, g.from, g.to, g.interval, points));
  return { path, entries: entries.reverse().map(({ fromVersion: _, ...e }) => e), ...claimable.result() };
}

function describe(
  owner: ChangeOwner,
  before: Version,
  after: Version,
  interval: number,
  points: readonly TimelinePoint[],
): FileHistoryEntry & { fromVersion: Version } {
  const status: FileHistoryEntry['status'] =
    before.data === null ? (after.data === null ? 'modified' : 'added') : after.data === null ? 'deleted' : before.path !== after.path ? 'renamed' : 'modified';
  const s = lineStats(before.data ?? undefined, after.data ?? undefined);
  const patch = s.binary
    ? ''
    : createTwoFilesPatch(
        before.data === null ? '/dev/null' : before.path,
        after.data === null ? '/dev/null' : after.path,
        before.data?.toString('utf8') ?? '',
        after.data?.toString('utf8') ?? '',
      );
  return {
    owner,
    status,
    path: after.data === null ? before.path : after.path,
    ...(status === 'renamed' ? { from: before.path } : {}),
    // the snapshot that first shows it: the one ending the interval it was made in
    at: interval + 1 < points.length ? points[interval + 1]!.createdAt : 'now',
    insertions: s.insertions,
    deletions: s.deletions,
    binary: s.binary,
    diff: patch.length > DIFF_CAP ? `${patch.slice(0, DIFF_CAP)}\n… (cut at ${DIFF_CAP} characters)\n` : patch,
    fromVersion: before,
  };
}

/** Per line of the file now, the change that last wrote it. */
export async function fileBlame(
  reader: TreeReader,
  store: ObjectStore,
  points: readonly TimelinePoint[],
  path: string,
  now: NowFile,
  changesAt: ChangesAt,
  turnWrites: readonly TurnWrites[] = [],
): Promise<FileBlame> {
  const owners = new ChangeOwners(points, turnWrites);
  const { versions, madeIn } = await versionsOf(reader, store, points, path, now, changesAt);
  const claimable = new Claimable(owners);
  // from the last time the file came into being: lines of an earlier life were deleted with it
  let startAt = 0;
  for (let k = versions.length - 1; k > 0; k--) if (versions[k - 1]!.data === null) ((startAt = k), (k = 0));
  let owned: { text: string; owner: ChangeOwner }[] = lines(versions[startAt]!.data).map((text) => ({
    text,
    // present before the first snapshot the timeline has: nobody's turn is known to have written it
    owner: startAt === 0 ? { by: 'user' } : claimable.ownerOf(madeIn[startAt - 1]!, versions[startAt]!.path),
  }));
  for (let k = startAt + 1; k < versions.length; k++) {
    const owner = claimable.ownerOf(madeIn[k - 1]!, versions[k]!.path);
    const next: typeof owned = [];
    let i = 0;
    for (const part of diffArrays(
      owned.map((l) => l.text),
      lines(versions[k]!.data),
    )) {
      if (part.removed) i += part.count ?? part.value.length;
      else if (part.added) for (const text of part.value) next.push({ text, owner });
      else for (let n = 0; n < part.value.length; n++) next.push(owned[i++]!);
    }
    owned = next;
  }
  const out: BlameLine[] = owned.map((l, n) => ({ line: n + 1, text: l.text.replace(/\r?\n$/, ''), owner: l.owner }));
  return { path, lines: out, ...claimable.result() };
}
