// The workspace as it will be once pending recovery has run (recovery-forecast.ts), for a dry run to plan from: the
// scanned model with the paths recovery changes set to the states it leaves. Nothing is written; the folders on the
// way to a changed path are copies, hashed again as trees of what they then hold, every other node is the model's own.
import { hashObject } from '../store/object-format';
import type { EntryState } from '../store/tree-diff';
import { encodeTree, nodeAt, treeEntriesOf, type DirNode, type Node } from '../store/tree';

/** What a rewind's plan reads of the workspace (WorkspaceModel, or this view of it). */
export interface PlanModel {
  readonly root: DirNode;
  get(rel: string): Node | undefined;
  recentRead(rel: string, hash: string): Buffer | undefined;
  dropRecentReads(): void;
  /** Paths whose state is not what the disk holds now but what recovery will leave: not looked at on disk. */
  readonly forecast?: ReadonlyMap<string, EntryState>;
}

export class ForecastModel implements PlanModel {
  readonly root: DirNode;
  /** The folders this view made (copies of the model's, or new): the only ones it hashes. */
  private readonly copies = new Set<DirNode>();

  constructor(
    private readonly model: PlanModel,
    readonly forecast: ReadonlyMap<string, EntryState>,
    /** The contents of the files recovery leaves, by hash (read from the store). */
    private readonly blobs: ReadonlyMap<string, Buffer>,
    /** Whether the scan covers a path (its ignore rules, its excluded folders): one it does not is not in the model
     *  after recovery either, whatever recovery puts there (the rewind leaves it, as not covered by checkpoints). */
    private readonly covered: (rel: string, isDir: boolean) => boolean = () => true,
  ) {
    this.root = this.copy(model.root);
    // shallowest first: a folder recovery makes is there before the files it puts into it
    const paths = [...forecast.keys()].sort((a, b) => a.split('/').length - b.split('/').length);
    for (const path of paths) this.set(path, forecast.get(path)!);
    // hashed as a snapshot would hash them: where recovery leaves the workspace as a stored snapshot had it (a roll-back
    // to the turn end), attribution then compares that point with this tree in memory, as the real rewind does with
    // its model, instead of reading the point's trees from the store (which may have lost them: the preview failed
    // where the real rewind did not, fast-check seed -1269188735)
    hashCopies(this.root, this.copies);
  }

  get(rel: string): Node | undefined {
    return nodeAt(this.root, rel);
  }

  recentRead(rel: string, hash: string): Buffer | undefined {
    if (this.forecast.has(rel)) return this.blobs.get(hash);
    return this.model.recentRead(rel, hash);
  }

  dropRecentReads(): void {
    this.model.dropRecentReads();
  }

  private set(path: string, state: EntryState): void {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) if (!this.covered(parts.slice(0, i).join('/'), i < parts.length || state?.kind === 'dir')) return;
    let dir = this.root;
    for (const name of parts.slice(0, -1)) {
      const child = dir.children.get(name);
      if (state === null && child?.kind !== 'dir') return; // gone with its folder (which recovery set before it)
      const copy = child?.kind === 'dir' ? (this.copies.has(child) ? child : this.copy(child)) : this.copy();
      dir.children.set(name, copy);
      dir = copy;
    }
    const name = parts.at(-1)!;
    const old = dir.children.get(name);
    if (state === null) dir.children.delete(name);
    else if (state.kind === 'dir') {
      const copy = old?.kind === 'dir' ? (this.copies.has(old) ? old : this.copy(old)) : this.copy();
      if (state.mode !== undefined) copy.mode = state.mode;
      dir.children.set(name, copy);
    } else {
      const size = this.blobs.get(state.hash)?.length ?? 0;
      dir.children.set(name, { kind: state.kind, mode: state.mode, hash: state.hash, size, mtimeMs: 0, ctimeMs: 0, ino: 0, dev: 0 });
    }
  }

  /** A folder node of its own (children copied, no hash), or a new empty one: changing it leaves the model's as it is. */
  private copy(d?: DirNode): DirNode {
    const c: DirNode = { kind: 'dir', mode: d?.mode ?? 0o755, children: new Map(d?.children) };
    this.copies.add(c);
    return c;
  }
}

/**
 * Gives each of `copies` under `dir` the hash of the tree it holds; the model's own folders keep theirs and are never
 * changed. A model folder without a hash (not yet recomputed) leaves the copies above it without one too: a diff then
 * looks into them, as before.
 */
function hashCopies(dir: DirNode, copies: ReadonlySet<DirNode>): string | undefined {
  if (!copies.has(dir)) return dir.hash;
  let complete = true;
  for (const child of dir.children.values()) if (child.kind === 'dir' && hashCopies(child, copies) === undefined) complete = false;
  if (complete) dir.hash = hashObject('tree', encodeTree(treeEntriesOf(dir)));
  return dir.hash;
}
