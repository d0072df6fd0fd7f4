// Differences between a stored snapshot and the workspace as scanned, folder by folder: folders whose tree hash
// is the same on both sides are skipped without reading anything.
import type { ObjectStore } from './object-store';
import type { EntryState } from './snapshot-records';
import { readTree, type DirNode, type Node, type TreeEntry } from './tree';

export interface PathDiff {
  path: string;
  /** State now (in the scanned workspace). */
  now: EntryState;
  /** State in the snapshot (what a restore writes). */
  target: EntryState;
}

export class TreeReader {
  private readonly cache = new Map<string, Map<string, TreeEntry>>();
  constructor(readonly store: ObjectStore) {}

  async entries(hash: string): Promise<Map<string, TreeEntry>> {
    let m = this.cache.get(hash);
    if (!m) {
      m = new Map((await readTree(this.store, hash)).map((e) => [e.name, e]));
      this.cache.set(hash, m);
    }
    return m;
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

export function stateOfEntry(e: TreeEntry): EntryState {
  return e.kind === 'dir' ? { kind: 'dir' } : { kind: e.kind, hash: e.hash, mode: e.mode };
}

export function stateOfNode(n: Node | undefined): EntryState {
  if (!n) return null;
  return n.kind === 'dir' ? { kind: 'dir' } : { kind: n.kind, hash: n.hash, mode: n.mode };
}

export function sameState(a: EntryState, b: EntryState): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind === 'dir' || b.kind === 'dir') return a.kind === b.kind;
  return a.kind === b.kind && a.hash === b.hash && a.mode === b.mode;
}

const join = (base: string, name: string) => (base === '' ? name : `${base}/${name}`);

/** Every path where `now` (hashed) and the stored tree `target` differ; folders come before their contents. */
export async function diffTrees(reader: TreeReader, target: string, now: DirNode): Promise<PathDiff[]> {
  const out: PathDiff[] = [];
  await diffDir(reader, '', target, now, out);
  return out;
}

async function diffDir(reader: TreeReader, rel: string, target: string, now: DirNode, out: PathDiff[]): Promise<void> {
  if (now.hash === target) return;
  const tEntries = await reader.entries(target);
  const names = new Set([...tEntries.keys(), ...now.children.keys()]);
  for (const name of [...names].sort()) {
    const path = join(rel, name);
    const t = tEntries.get(name);
    const n = now.children.get(name);
    if (t?.kind === 'dir' && n?.kind === 'dir') {
      await diffDir(reader, path, t.hash, n, out);
      continue;
    }
    const ts = t ? stateOfEntry(t) : null;
    const ns = stateOfNode(n);
    if (sameState(ts, ns)) continue;
    out.push({ path, now: ns, target: ts });
    if (t?.kind === 'dir') await listStored(reader, path, t.hash, out);
    if (n?.kind === 'dir') listNow(path, n, out);
  }
}

/** A folder that exists only in the snapshot: everything in it comes back. */
async function listStored(reader: TreeReader, rel: string, hash: string, out: PathDiff[]): Promise<void> {
  for (const e of [...(await reader.entries(hash)).values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(rel, e.name);
    out.push({ path, now: null, target: stateOfEntry(e) });
    if (e.kind === 'dir') await listStored(reader, path, e.hash, out);
  }
}

/** A folder that exists only now: everything in it goes. */
function listNow(rel: string, dir: DirNode, out: PathDiff[]): void {
  for (const name of [...dir.children.keys()].sort()) {
    const n = dir.children.get(name)!;
    const path = join(rel, name);
    out.push({ path, now: stateOfNode(n), target: null });
    if (n.kind === 'dir') listNow(path, n, out);
  }
}

/** A path whose state differs between two stored trees. */
export interface StoredPathDiff {
  path: string;
  a: EntryState;
  b: EntryState;
}

/**
 * Every path where the stored trees `a` and `b` differ (two snapshots of one workspace); folders come before their
 * contents, and folders whose tree hash is the same on both sides are skipped without reading them.
 */
export async function diffStoredTrees(reader: TreeReader, a: string, b: string): Promise<StoredPathDiff[]> {
  const out: StoredPathDiff[] = [];
  await diffStoredDir(reader, '', a, b, out);
  return out;
}

async function diffStoredDir(reader: TreeReader, rel: string, a: string | undefined, b: string | undefined, out: StoredPathDiff[]): Promise<void> {
  if (a === b) return;
  const aEntries = a === undefined ? new Map<string, TreeEntry>() : await reader.entries(a);
  const bEntries = b === undefined ? new Map<string, TreeEntry>() : await reader.entries(b);
  for (const name of [...new Set([...aEntries.keys(), ...bEntries.keys()])].sort()) {
    const path = join(rel, name);
    const x = aEntries.get(name);
    const y = bEntries.get(name);
    const xs = x ? stateOfEntry(x) : null;
    const ys = y ? stateOfEntry(y) : null;
    if (x?.kind === 'dir' && y?.kind === 'dir') {
      await diffStoredDir(reader, path, x.hash, y.hash, out);
      continue;
    }
    if (sameState(xs, ys)) continue;
    out.push({ path, a: xs, b: ys });
    // a folder on one side only: everything in it is on that side only
    if (x?.kind === 'dir') await diffStoredDir(reader, path, x.hash, undefined, out);
    if (y?.kind === 'dir') await diffStoredDir(reader, path, undefined, y.hash, out);
  }
}
