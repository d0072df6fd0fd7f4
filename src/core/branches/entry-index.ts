// Read-only lookups over a session's entries (the tree of docs/ARCHITECTURE.md, session files), computed once per derivation.
import type { SessionEntry } from '../session/types';

export class EntryIndex {
  readonly byId = new Map<string, SessionEntry>();
  private readonly parents = new Set<string>();
  private readonly summaries = new Map<string, PathSummary>();

  constructor(readonly entries: readonly SessionEntry[]) {
    for (const entry of entries) {
      this.byId.set(entry.id, entry);
      if (entry.parentId) this.parents.add(entry.parentId);
    }
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  hasChildren(id: string): boolean {
    return this.parents.has(id);
  }

  /** root → id. A parent cycle or a dangling parent (hand-edited file) ends the walk instead of looping. */
  pathTo(id: string | null): SessionEntry[] {
    const path: SessionEntry[] = [];
    let cursor = id === null ? undefined : this.byId.get(id);
    // A path is at most as long as the file; a longer walk is a cycle (counting is cheaper than a visited set).
    while (cursor && path.length < this.byId.size) {
      path.push(cursor);
      cursor = cursor.parentId ? this.byId.get(cursor.parentId) : undefined;
    }
    return path.reverse();
  }

  /** `message` entries on root → id. */
  messageCountTo(id: string | null): number {
    return this.summaryTo(id).count;
  }

  /** The last `message` entry on root → id (the head of a branch whose leaf is id). */
  lastMessageTo(id: string | null): string | null {
    return this.summaryTo(id).last;
  }

  /** Memoized along the way, so deriving many branches of one file stays linear in its size. */
  private summaryTo(id: string | null): PathSummary {
    if (id === null) return ROOT_SUMMARY;
    const pending: SessionEntry[] = [];
    let cursor = this.byId.get(id);
    let below = ROOT_SUMMARY;
    while (cursor) {
      const known = this.summaries.get(cursor.id);
      if (known !== undefined) {
        below = known;
        break;
      }
      if (pending.length >= this.byId.size) break; // a parent cycle
      pending.push(cursor);
      cursor = cursor.parentId ? this.byId.get(cursor.parentId) : undefined;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const entry = pending[i]!;
      if (entry.type === 'message') below = { count: below.count + 1, last: entry.id };
      this.summaries.set(entry.id, below);
    }
    return below;
  }
}

interface PathSummary {
  count: number;
  last: string | null;
}
const ROOT_SUMMARY: PathSummary = { count: 0, last: null };
