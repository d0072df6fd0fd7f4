// Decoded folder trees kept by a long-lived checkpointer between its operations, by hash. A restore's dry run reads
// the snapshot's trees on the way to the changed files; the pre-restore snapshot writes the workspace's trees on the
// same paths; the timeline's changed-path line of that snapshot (timeline-changes.ts) then compares the point before
// with it, and the next rewind's line compares that snapshot with the next one. Read from the store, each of those
// ~3,000 trees was inflated, hashed and parsed again: ~300 ms of CPU of a 1,000-file restore. A tree is named by the
// hash of its content, so a kept one can never be stale.
import { isStorableName } from '../safe-paths';
import type { TreeEntry } from './tree';

/** Entries (over all trees) kept at most: ~60 bytes each when they share their strings with the workspace model,
 *  ~200 when read from the store; a 1,000-file restore's four sets of paths need about this many. */
export const TREE_CACHE_ENTRIES = 65_536;

export class TreeCache {
  private readonly trees = new Map<string, Map<string, TreeEntry>>();
  private entries = 0;

  constructor(private readonly maxEntries = TREE_CACHE_ENTRIES) {}

  /** The tree `hash`, if kept (it becomes the most recently used). */
  get(hash: string): Map<string, TreeEntry> | undefined {
    const t = this.trees.get(hash);
    if (t) {
      this.trees.delete(hash);
      this.trees.set(hash, t);
    }
    return t;
  }

  /**
   * Keeps the tree `hash`, whose entries must be exactly what its object says, every name one a restore can create
   * here (a reader keeps a tree with names it leaves out to itself: those are reported per reader). The least
   * recently used trees go once there are more than maxEntries entries.
   */
  set(hash: string, entries: Map<string, TreeEntry>): void {
    if (entries.size > this.maxEntries) return;
    const old = this.trees.get(hash);
    if (old) {
      this.trees.delete(hash);
      this.entries -= old.size;
    }
    this.trees.set(hash, entries);
    this.entries += entries.size;
    for (const [h, t] of this.trees) {
      if (this.entries <= this.maxEntries) break;
      this.trees.delete(h);
      this.entries -= t.size;
    }
  }

  /** Keeps a tree a snapshot just wrote, from the entries it was encoded from (unless a name in it is one a reader
   *  of the object would leave out). */
  setEntries(hash: string, entries: readonly TreeEntry[]): void {
    if (entries.length > this.maxEntries || !entries.every((e) => isStorableName(e.name))) return;
    this.set(hash, new Map(entries.map((e) => [e.name, e])));
  }

  get size(): number {
    return this.trees.size;
  }

  clear(): void {
    this.trees.clear();
    this.entries = 0;
  }
}
