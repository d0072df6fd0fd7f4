// Who changed a file since a prompt (issue 27, item 2), read off the folder's timeline (timeline.ts): each change
// between two consecutive points belongs to whoever was working then, an agent turn (the session and prompt whose
// window, prompt start to turn end, contains it), the user (no window open), or several sessions (windows of
// different sessions overlap). A file belongs to whoever first made the state it has now, since the prompt.
import type { DirNode, Node } from '../store/tree';
import { diffStoredTrees, diffTrees, sameState, stateOfNode, type EntryState, type TreeReader } from '../store/tree-diff';
import { promptPointIndex, type TimelinePoint } from '../timeline';
import { isBaselineSession } from '../../baseline-session';
import type { ChangeOwner, FileAttribution, TurnRef, TurnWrites } from '../types';
import type { ChangedPath } from '../timeline-changes';

/** What the timeline's changed-path index (timeline-changes.ts) lists as changed between two stored roots; undefined
 *  when it has no line for them. */
export type ListedChanges = (from: string, to: string) => readonly ChangedPath[] | undefined;

/** The state of each path of an attribution in the stored tree `root` (the prompt's snapshot), as the caller's own
 *  diff of that tree found it. */
export interface KnownStates {
  root: string;
  states: ReadonlyMap<string, EntryState>;
}

interface Window {
  sessionId: string;
  prompt: string;
  /** Index of its prompt-start point. */
  start: number;
  /** Index of its last turn-end point (or the same session's next prompt start); Infinity while it is still open. */
  end: number;
  /** Closed by a turn end of its own (not by the session's next prompt). */
  ended: boolean;
}

/** The turns of every session, in order of their start: a prompt start opens one; it ends at the last turn end of
 *  that session before its next prompt (ours takes one at every assistant message of a turn, and the agent works on
 *  between them), else at its next prompt, else it is still open. */
function windowsOf(points: readonly TimelinePoint[]): Window[] {
  const last = new Map<string, Window>();
  const out: Window[] = [];
  // indexed loops, here and in intervalOwners: a CLI process runs them over 10,000 points before they are optimised,
  // and an iterator's or a callback's call per point costs most there
  for (let k = 0; k < points.length; k++) {
    const p = points[k]!;
    // a restore's own snapshot, and the install's baseline (taken as a prompt start by versions before this rule, and
    // still on timelines rebuilt from their records), are moments of the folder, not anyone's turn
    if (p.kind === 'pre-restore' || isBaselineSession(p.sessionId)) continue;
    const w = last.get(p.sessionId);
    if (p.kind === 'turn-end') {
      if (w) ((w.end = k), (w.ended = true));
      continue;
    }
    if (w && !w.ended) w.end = k;
    const next = { sessionId: p.sessionId, prompt: p.anchorId, start: k, end: Infinity, ended: false };
    last.set(p.sessionId, next);
    out.push(next);
  }
  return out;
}

/** Who worked in each interval j (point j to point j+1, the last one to now): one session's turn, several sessions'
 *  turns at once, or nobody's (the user). One pass that allocates only when the set of open turns changes: a file's
 *  history asks this of every point of the timeline. */
export function intervalOwners(points: readonly TimelinePoint[], windows: readonly Window[] = windowsOf(points)): ChangeOwner[] {
  // windows in order of their start
  const out: ChangeOwner[] = new Array(points.length);
  let active: Window[] = [];
  let w = 0;
  let owner: ChangeOwner = { by: 'user' };
  for (let j = 0; j < points.length; j++) {
    let moved = false;
    while (w < windows.length && windows[w]!.start <= j) (active.push(windows[w++]!), (moved = true));
    for (let a = 0; a < active.length; a++) if (active[a]!.end < j + 1) moved = true;
    if (moved) {
      active = active.filter((x) => x.end >= j + 1);
      const sessions = [...new Set(active.map((x) => x.sessionId))];
      if (sessions.length === 0) owner = { by: 'user' };
      else if (sessions.length > 1) owner = { by: 'several', sessions };
      else owner = { by: 'turn', sessionId: active[0]!.sessionId, prompt: active[0]!.prompt };
    }
    out[j] = owner;
  }
  return out;
}

/** An owner as seen from the session `sessionId`. */
function seenFrom(o: ChangeOwner, sessionId: string): FileAttribution {
  if (o.by === 'user') return { changedBy: 'user' };
  if (o.by === 'several') return { changedBy: 'several', sessions: o.sessions };
  return o.sessionId === sessionId ? { changedBy: 'this-session' } : { changedBy: 'other-session', otherSession: o.sessionId, otherPrompt: o.prompt };
}

/**
 * Who made each change the timeline sees: the one rule attribution, a file's history and its blame share. An interval
 * is the owner intervalOwners says, except that a change to a file in nobody's time right after a turn's end (point j
 * is that turn's last turn end) is the turn's when its agent's records say its tools wrote that file (`turnWrites`):
 * an editor's chat may write a file its tool made after the turn's end was snapshotted (the likely cause of a CI
 * failure), so the change lands just after the window. Only that interval: the turn must be its session's latest
 * before the change, and a later stretch of nobody's time is the user's whatever the agent wrote before.
 */
export class ChangeOwners {
  /** By interval, the owner of a change there with no claim (intervalOwners). */
  readonly owners: ChangeOwner[];
  /** By interval in nobody's time, the turn that ended at its start: the only one whose records may claim it. */
  private readonly claimants = new Map<number, TurnRef>();
  private readonly writes = new Map<string, Set<string>>();

  constructor(points: readonly TimelinePoint[], turnWrites: readonly TurnWrites[] = []) {
    const windows = windowsOf(points); // read once: a file's history asks this of a timeline of 10,000 points
    this.owners = intervalOwners(points, windows);
    for (const w of windows) {
      if (w.ended && this.owners[w.end]?.by === 'user') this.claimants.set(w.end, { sessionId: w.sessionId, anchorId: w.prompt });
    }
    for (const t of turnWrites) {
      const key = turnKey(t);
      const set = this.writes.get(key) ?? new Set<string>();
      for (const p of t.paths) set.add(p);
      this.writes.set(key, set);
    }
  }

  /** The turn whose records may claim a change in interval j, which the timeline alone gives to nobody. */
  claimant(j: number): TurnRef | undefined {
    return this.claimants.get(j);
  }

  /** Who made the change to `path` (workspace-relative, as TurnWrites names it) in interval j. */
  of(j: number, path: string): ChangeOwner {
    const c = this.claimants.get(j);
    if (c && this.writes.get(turnKey(c))?.has(path)) return { by: 'turn', sessionId: c.sessionId, prompt: c.anchorId };
    return this.owners[j]!;
  }
}

const turnKey = (t: TurnRef): string => JSON.stringify([t.sessionId, t.anchorId]);

/**
 * The attribution of each of `paths` (files that differ between the prompt's snapshot and now): who first produced
 * the state each has now, since the prompt `anchorId` of `sessionId`. The first producer, not the last writer: a
 * rewind or an undo only brings back a state someone made before, so the file stays theirs. Undefined when that
 * prompt is not on the timeline (a snapshot made before the timeline existed, adopted or imported) or a tree on the
 * way cannot be read: the caller then falls back to the turn-end rule.
 */
export async function attributeChanges(
  reader: TreeReader,
  points: readonly TimelinePoint[],
  target: { sessionId: string; anchorId: string },
  now: DirNode,
  paths: readonly string[],
  turnWrites: readonly TurnWrites[] = [],
  listedChanges?: ListedChanges,
  atPrompt?: KnownStates,
): Promise<Map<string, FileAttribution> | undefined> {
  const from = promptPointIndex(points, target);
  if (from < 0) return undefined;
  // what the index lists for each pair of stored points since the prompt (undefined: a pair it has no line for)
  let lists: (readonly ChangedPath[] | undefined)[] | undefined = listedChanges ? [] : undefined;
  for (let j = from; lists && j + 1 < points.length; j++) {
    const [a, b] = [points[j]!.root, points[j + 1]!.root];
    const listed = a === b ? [] : listedChanges!(a, b);
    if (listed) lists[j] = listed;
    else lists = undefined;
  }
  // the paths none of those pairs names are as they were at the prompt up to the last point: compared with the
  // workspace now from the states the caller's diff found, without reading the trees of the points in between
  // which of `paths` each list may name, found once per list (asked here and again when its pair is looked up)
  const named = new Map<readonly ChangedPath[], string[]>();
  const namedOnce = (listed: readonly ChangedPath[]) => named.get(listed) ?? named.set(listed, namedIn(listed, paths)).get(listed)!;
  let unchangedSincePrompt: Set<string> | undefined;
  if (lists && atPrompt?.root === points[from]!.root) {
    unchangedSincePrompt = new Set(paths);
    for (let j = from; j + 1 < points.length; j++) for (const path of namedOnce(lists[j]!)) unchangedSincePrompt.delete(path);
  }
  const owners = new ChangeOwners(points, turnWrites);
  const wanted = new Set(paths);
  // only the folders on the way to those paths are compared: a change elsewhere cannot tell who made these (on 1,000
  // changed files, the diffs of the intervals since the prompt read most of their trees for other paths otherwise)
  const onTheWay = new Set<string>(['']);
  for (const path of paths) for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) onTheWay.add(path.slice(0, i));
  /** Each path's state now, and the earliest interval found so far whose change left it in that state. */
  const nowState = new Map<string, EntryState>();
  const producer = new Map<string, number>();
  // from now back to the prompt, every interval: a state made early may have been changed and brought back since
  let next: string | DirNode = now;
  for (let j = points.length - 1; j >= from; j--) {
    const root = points[j]!.root;
    let changed: { path: string; after: EntryState }[];
    try {
      if (typeof next !== 'string') {
        changed = unchangedSincePrompt
          ? await changesToNow(reader, root, next, paths, unchangedSincePrompt, atPrompt!.states)
          : (await diffTrees(reader, root, next, onTheWay)).map((d) => ({ path: d.path, after: d.now }));
      } else if (next === root) changed = [];
      else {
        // two stored points: the index says which paths changed between them, and only those of `paths` it names are
        // looked up (a few trees) instead of both trees being compared on the way to every one of `paths`
        const listed = lists?.[j] ?? listedChanges?.(root, next);
        changed = listed
          ? await listedChangesOf(reader, root, next, namedOnce(listed))
          : (await diffStoredTrees(reader, root, next, onTheWay)).map((d) => ({ path: d.path, after: d.b }));
      }
    } catch {
      // a point whose tree cannot be read (damaged): who made what is not known, and the caller falls back to the
      // session's turn-end rule rather than keeping files as nobody's
      return undefined;
    }
    for (const { path, after } of changed) {
      if (!wanted.has(path)) continue;
      if (!nowState.has(path)) nowState.set(path, after); // the newest change of a path left it as it is now
      if (sameState(after, nowState.get(path)!)) producer.set(path, j);
    }
    // a point whose tree is the workspace now (the turn end a dry run follows) is diffed as the model, which is the
    // same tree in memory, instead of reading its stored trees: the diffs are the same, and its folders are not
    // read from the store and inflated once more
    next = now.hash !== undefined && root === now.hash ? now : root;
  }
  const out = new Map<string, FileAttribution>();
  // changed, but not between points the store can still read: nobody's turn is known to have done it
  for (const path of paths) {
    const j = producer.get(path);
    if (j === undefined) {
      out.set(path, { changedBy: 'user' });
      continue;
    }
    out.set(path, seenFrom(owners.of(j, path), target.sessionId));
  }
  return out;
}

/**
 * Those of `paths` an index list may say changed: a path it names, or that lies under one it names (a folder on one
 * side only, the top folders of a long list, '' for the whole tree). Any other is the same in both trees.
 */
function namedIn(listed: readonly ChangedPath[], paths: readonly string[]): string[] {
  const named = new Set<string>();
  for (const [path] of listed) named.add(path);
  if (named.size === 0) return [];
  if (named.has('')) return [...paths];
  const out: string[] = [];
  for (const path of paths) {
    let may = named.has(path);
    for (let i = path.indexOf('/'); !may && i >= 0; i = path.indexOf('/', i + 1)) may = named.has(path.slice(0, i));
    if (may) out.push(path);
  }
  return out;
}

/**
 * The changes of `paths` between the stored trees `a` and `b` that diffStoredTrees(a, b) finds, from the index's list
 * of what changed between them: each path it may name is looked up in both trees. A path is a change when it is not a
 * folder on both sides and its states differ, as diffStoredTrees compares it.
 */
async function listedChangesOf(
  reader: TreeReader,
  a: string,
  b: string,
  /** The paths asked about that the index's list for the pair may name (namedIn). */
  named: readonly string[],
): Promise<{ path: string; after: EntryState }[]> {
  const out: { path: string; after: EntryState }[] = [];
  for (const path of named) {
    const before = await reader.lookup(a, path);
    const after = await reader.lookup(b, path);
    if ((before?.kind === 'dir' && after?.kind === 'dir') || sameState(before, after)) continue;
    out.push({ path, after });
  }
  return out;
}

/**
 * The changes of `paths` between the stored tree `root` and the workspace `now` that diffTrees(root, now) finds: a
 * path of `unchanged` is in `root` as `known` says (its state at the prompt), any other is looked up there. A change is
 * a path whose states differ, or a folder on both sides whose known mode changed, as diffTrees compares them.
 */
async function changesToNow(
  reader: TreeReader,
  root: string,
  now: DirNode,
  paths: readonly string[],
  unchanged: ReadonlySet<string>,
  known: ReadonlyMap<string, EntryState>,
): Promise<{ path: string; after: EntryState }[]> {
  if (now.hash === root) return [];
  const out: { path: string; after: EntryState }[] = [];
  for (const path of paths) {
    const before = unchanged.has(path) ? (known.get(path) ?? null) : await reader.lookup(root, path);
    const after = stateOfNode(nodeAt(now, path));
    const change = before?.kind === 'dir' && after?.kind === 'dir' ? before.mode !== undefined && before.mode !== after.mode : !sameState(before, after);
    if (change) out.push({ path, after });
  }
  return out;
}

/** The node at `path` in the tree `root`; undefined when nothing is there (or a file is on the way). */
function nodeAt(root: DirNode, path: string): Node | undefined {
  let node: Node | undefined = root;
  for (const name of path.split('/')) {
    if (node?.kind !== 'dir') return undefined;
    node = node.children.get(name);
  }
  return node;
}
