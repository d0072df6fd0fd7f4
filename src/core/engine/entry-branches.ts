// Which branch a message is on, for search hits and for "open the transcript at this message". A message can be on
// several branches (everything before a fork is shared): the active branch wins, then the branches in the order the
// session derives them, which is the order the tree shows.
import type { SessionEntry } from '../session/types';

export interface BranchPath {
  name: string;
  leafId: string | null;
  isActive: boolean;
}

interface EntrySource {
  getEntry(id: string): SessionEntry | undefined;
}

/** Each entry reachable from a branch leaf → the branch it is shown on. Linear in the entries: a walk up stops at
 *  the first entry an earlier branch already claimed (its ancestors are claimed too). */
export function branchOfEachEntry(session: EntrySource, branches: readonly BranchPath[]): Map<string, string> {
  const out = new Map<string, string>();
  const ordered = [...branches.filter((b) => b.isActive), ...branches.filter((b) => !b.isActive)];
  for (const b of ordered) {
    const seen = new Set<string>();
    let id = b.leafId;
    // `seen` guards against a parent cycle in a hand-edited file.
    while (id !== null && !out.has(id) && !seen.has(id)) {
      seen.add(id);
      const entry = session.getEntry(id);
      if (!entry) break;
      out.set(id, b.name);
      id = entry.parentId;
    }
  }
  return out;
}
