// Differences between a stored snapshot and the workspace as scanned, folder by folder: folders whose tree hash
// is the same on both sides are skipped without reading anything.
import { StoreCorruptError, type ObjectStore } from './object-store';
import { readTreeChecked, type DirNode, type Node, type TreeEntry } from './tree';
import type { TreeCache } from './tree-cache';
import type { SkippedFile } from '../types';

/**
 * What one path is: absent, a folder (with its mode where known: snapshots made before folder modes were restored
 * may say 0, which means "unknown"), or a file or symlink with its content hash and mode.
 */
export type EntryState = null | { kind: 'file' | 'symlink'; hash: string; mode: number } | { kind: 'dir'; mode?: number };

export interface PathDiff {
  path: string;
  /** State now (in the scanned workspace). */
  now: EntryState;
  /** State in the snapshot (what a restore writes). */
  target: EntryState;
}

export class TreeReader {
  /** Paths of the stored side that a diff met and cannot restore here, with the reason. */
  readonly skipped: SkippedFile[] = [];
  constructor(
    readonly store: ObjectStore,
    private readonly cache = new Map<string, Map<string, TreeEntry>>(),
    /** Names of a tree left out because they cannot be created on this platform (see decodeTreeChecked). */
    private readonly unrestorable = new Map<string, string[]>(),
    /** Trees kept between operations (tree-cache.ts): what is read here is kept there, but for trees with names left
     *  out, which this reader reports itself. */
    private readonly shared?: TreeCache,
    /**
     * Whether trees are also taken from there (while the store has them). Not for a rewind's plan: a kept tree is
     * right, but a damaged copy the store has not found yet would then be found by the next blob read instead of at
     * the folder, and the preview (which reads a damaged pack as it is) and the rewind (which repairs it first) would
     * refuse with different reasons.
     */
    private readonly readShared = true,
  ) {}

  /** A reader over the same decoded trees (none is read and inflated twice) that reports what it cannot restore on
   *  its own `skipped` list: a second pass over the same trees must not report those names a second time. */
  sibling(): TreeReader {
    return new TreeReader(this.store, this.cache, this.unrestorable, this.shared, this.readShared);
  }

  async entries(hash: string): Promise<Map<string, TreeEntry>> {
    // a kept tree stands for the store's copy only while the store has one: a tree whose pack was lost is as unknown
    // to a long-lived process as to a fresh one
    let m = this.cache.get(hash) ?? (this.shared && this.readShared && this.store.has(hash) ? this.shared.get(hash) : undefined);
    if (!m) {
      const t = await readTreeChecked(this.store, hash);
      m = new Map(t.entries.map((e) => [e.name, e]));
      if (t.unrestorable.length) this.unrestorable.set(hash, t.unrestorable);
      else this.shared?.set(hash, m);
      this.cache.set(hash, m);
    }
    return m;
  }

  /** Reports the names of the tree `hash` (at `rel`) that a restore cannot create here. */
  noteUnrestorable(rel: string, hash: string): void {
    for (const name of this.unrestorable.get(hash) ?? []) {
      this.skipped.push({
        path: rel === '' ? name : `${rel}/${name}`,
        reason: 'in the snapshot, but a file of that name cannot be created on this platform; left out',
      });
    }
  }

  /** The state of `rel` in the tree `root` (null when absent). */
  async lookup(root: string, rel: string): Promise<EntryState> {
    let entries = await this.entries(root);
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const e = entries.get(parts[i]!);
      if (!e) return null;
      if (i === parts.length - 1) return stateOfEntry(e);
      if (e.kind !== 'dir') return null;
      entries = await this.entries(e.hash);
    }
    return null;
  }
}

const dirState = (mode: number): EntryState => (mode ? { kind: 'dir', mode } : { kind: 'dir' });

export function stateOfEntry(e: TreeEntry): EntryState {
  return e.kind === 'dir' ? dirState(e.mode) : { kind: e.kind, hash: e.hash, mode: e.mode };
}

export function stateOfNode(n: Node | undefined): EntryState {
  if (!n) return null;
  return n.kind === 'dir' ? dirState(n.mode) : { kind: n.kind, hash: n.hash, mode: n.mode };
}

/** Whether two states are the same; a folder whose mode is not known matches a folder of any mode. */
export function sameState(a: EntryState, b: EntryState): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind === 'dir' || b.kind === 'dir') return a.kind === b.kind && (a.mode === undefined || b.mode === undefined || a.mode === b.mode);
  return a.kind === b.kind && a.hash === b.hash && a.mode === b.mode;
}

const join = (base: string, name: string) => (base === '' ? name : `${base}/${name}`);

/** A stored folder's entries; a missing or damaged tree object is reported with the folder it describes. */
async function entriesAt(reader: TreeReader, hash: string, rel: string): Promise<Map<string, TreeEntry>> {
  try {
    return await reader.entries(hash);
  } catch (err) {
    if (err instanceof StoreCorruptError)
      throw new StoreCorruptError(`the folder ${rel === '' ? '(workspace root)' : rel} cannot be read from the snapshot: ${err.message}`);
    throw err;
  }
}

type Task =
  | { t: 'diff'; rel: string; target: string; now: DirNode }
  | { t: 'stored'; rel: string; hash: string }
  | { t: 'now'; rel: string; dir: DirNode }
  | { t: 'emit'; d: PathDiff };

/**
 * Every path where `now` (hashed) and the stored tree `target` differ; folders come before their contents, names in
 * order. Iterative (an explicit stack): folder nesting is as deep as the workspace makes it. With `within` (the
 * folders to look into, '' for the root), a folder not in it is neither read nor listed: only what it is itself is
 * compared, in its parent (a caller that asks about a few paths reads only the trees on the way to them).
 */
export async function diffTrees(reader: TreeReader, target: string, now: DirNode, within?: ReadonlySet<string>): Promise<PathDiff[]> {
  const out: PathDiff[] = [];
  const stack: Task[] = [{ t: 'diff', rel: '', target, now }];
  for (let task = stack.pop(); task; task = stack.pop()) {
    const next: Task[] = [];
    if (task.t === 'emit') out.push(task.d);
    else if (within && !within.has(task.rel)) continue;
    else if (task.t === 'diff') {
      if (task.now.hash === task.target) continue;
      const tEntries = await entriesAt(reader, task.target, task.rel);
      reader.noteUnrestorable(task.rel, task.target);
      const names = new Set([...tEntries.keys(), ...task.now.children.keys()]);
      for (const name of [...names].sort()) {
        const path = join(task.rel, name);
        const t = tEntries.get(name);
        const n = task.now.children.get(name);
        if (t?.kind === 'dir' && n?.kind === 'dir') {
          // a folder whose mode changed: its mode is put back (a snapshot that does not know it says 0)
          if (t.mode !== 0 && t.mode !== n.mode) next.push({ t: 'emit', d: { path, now: stateOfNode(n), target: stateOfEntry(t) } });
          next.push({ t: 'diff', rel: path, target: t.hash, now: n });
          continue;
        }
        const ts = t ? stateOfEntry(t) : null;
        const ns = stateOfNode(n);
        if (sameState(ts, ns)) continue;
        next.push({ t: 'emit', d: { path, now: ns, target: ts } });
        // a folder that exists only in the snapshot: everything in it comes back
        if (t?.kind === 'dir') next.push({ t: 'stored', rel: path, hash: t.hash });
        // a folder that exists only now: everything in it goes
        if (n?.kind === 'dir') next.push({ t: 'now', rel: path, dir: n });
      }
    } else if (task.t === 'stored') {
      const entries = await entriesAt(reader, task.hash, task.rel);
      reader.noteUnrestorable(task.rel, task.hash);
      for (const e of [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const path = join(task.rel, e.name);
        next.push({ t: 'emit', d: { path, now: null, target: stateOfEntry(e) } });
        if (e.kind === 'dir') next.push({ t: 'stored', rel: path, hash: e.hash });
      }
    } else {
      for (const name of [...task.dir.children.keys()].sort()) {
        const n = task.dir.children.get(name)!;
        const path = join(task.rel, name);
        next.push({ t: 'emit', d: { path, now: stateOfNode(n), target: null } });
        if (n.kind === 'dir') next.push({ t: 'now', rel: path, dir: n });
      }
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return out;
}

/** Every object the trees `roots` reach (gc's live set). Iterative; a damaged tree reaches nothing more. */
export async function reachableObjects(reader: TreeReader, roots: Iterable<string>): Promise<Set<string>> {
  const live = new Set<string>();
  const stack: string[] = [];
  for (const r of roots) if (!live.has(r)) (live.add(r), stack.push(r));
  for (let hash = stack.pop(); hash !== undefined; hash = stack.pop()) {
    let entries;
    try {
      entries = await reader.entries(hash);
    } catch {
      continue;
    }
    for (const e of entries.values()) {
      if (live.has(e.hash)) continue;
      live.add(e.hash);
      if (e.kind === 'dir') stack.push(e.hash);
    }
  }
  return live;
}

/** A path whose state differs between two stored trees. */
export interface StoredPathDiff {
  path: string;
  a: EntryState;
  b: EntryState;
}

/**
 * Every path where the stored trees `a` and `b` differ (two snapshots of one workspace); folders come before their
 * contents, and folders whose tree hash is the same on both sides are skipped without reading them. `within`: as
 * diffTrees's.
 */
export async function diffStoredTrees(reader: TreeReader, a: string, b: string, within?: ReadonlySet<string>): Promise<StoredPathDiff[]> {
  type StoredTask = { rel: string; a: string | undefined; b: string | undefined } | { emit: StoredPathDiff };
  const out: StoredPathDiff[] = [];
  const stack: StoredTask[] = [{ rel: '', a, b }];
  for (let task = stack.pop(); task; task = stack.pop()) {
    if ('emit' in task) {
      out.push(task.emit);
      continue;
    }
    if (task.a === task.b || (within && !within.has(task.rel))) continue;
    const aEntries = task.a === undefined ? new Map<string, TreeEntry>() : await entriesAt(reader, task.a, task.rel);
    const bEntries = task.b === undefined ? new Map<string, TreeEntry>() : await entriesAt(reader, task.b, task.rel);
    const next: StoredTask[] = [];
    for (const name of [...new Set([...aEntries.keys(), ...bEntries.keys()])].sort()) {
      const path = join(task.rel, name);
      const x = aEntries.get(name);
      const y = bEntries.get(name);
      const xs = x ? stateOfEntry(x) : null;
      const ys = y ? stateOfEntry(y) : null;
      if (x?.kind === 'dir' && y?.kind === 'dir') {
        next.push({ rel: path, a: x.hash, b: y.hash });
        continue;
      }
      if (sameState(xs, ys)) continue;
      next.push({ emit: { path, a: xs, b: ys } });
      // a folder on one side only: everything in it is on that side only
      if (x?.kind === 'dir') next.push({ rel: path, a: x.hash, b: undefined });
      if (y?.kind === 'dir') next.push({ rel: path, a: undefined, b: y.hash });
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return out;
}
