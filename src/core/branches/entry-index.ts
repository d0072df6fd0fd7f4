// Read-only lookups over a session's entries (the tree of seed 002), computed once per derivation.
import type { SessionEntry } from '../session/types';

export class EntryIndex {
  readonly byId = new Map<string, SessionEntry>();
  private readonly parents = new Set<string>();
  private readonly messageCountMemo = new Map<string, number>();
  private readonly lastMessageMemo = new Map<string, string | null>();

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
    const seen = new Set<string>();
    let cursor = id === null ? undefined : this.byId.get(id);
    while (cursor && !seen.has(cursor.id)) {
      seen.add(cursor.id);
      path.push(cursor);
      cursor = cursor.parentId ? this.byId.get(cursor.parentId) : undefined;
    }
    return path.reverse();
  }

  /** `message` entries on root → id. Memoized along the way so listing many branches stays linear. */
  messageCountTo(id: string | null): number {
    return this.walkMemo(id, this.messageCountMemo, 0, (entry, below) => below + (entry.type === 'message' ? 1 : 0));
  }

  /** The last `message` entry on root → id (the head of a branch whose leaf is id). */
  lastMessageTo(id: string | null): string | null {
    return this.walkMemo<string | null>(id, this.lastMessageMemo, null, (entry, below) => (entry.type === 'message' ? entry.id : below));
  }

  private walkMemo<T>(id: string | null, memo: Map<string, T>, atRoot: T, step: (entry: SessionEntry, below: T) => T): T {
    if (id === null) return atRoot;
    const pending: SessionEntry[] = [];
    const seen = new Set<string>();
    let cursor = this.byId.get(id);
    let below = atRoot;
    while (cursor) {
      const known = memo.get(cursor.id);
      if (known !== undefined) {
        below = known;
        break;
      }
      if (seen.has(cursor.id)) break;
      seen.add(cursor.id);
      pending.push(cursor);
      cursor = cursor.parentId ? this.byId.get(cursor.parentId) : undefined;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      below = step(pending[i]!, below);
      memo.set(pending[i]!.id, below);
    }
    return below;
  }
}
