// Only a real rewind may fork the tree: the branch view makes every extra leaf a branch. Claude Code's graph forks
// for many other reasons (parallel tool results, progress and hook side chains, max_tokens continuations, compaction
// replays); those are laid out as one chain here.
//
// A real rewind: a parent with two or more typed-prompt children sent at different times. Anywhere else, the
// children are chained in file order, except that the child holding the latest line (the live continuation) goes
// last. At a real rewind the non-prompt children are chained first and every prompt starts a branch from their end.
// Works on entry indexes in file order (a parent comes before its children), so it is iterative and linear.
import type { SessionEntry } from '../../session/types';

export function flattenArtifactForks(entries: SessionEntry[], promptEntries: ReadonlySet<string>): void {
  const n = entries.length;
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) index.set(entries[i]!.id, i);
  const parent = new Int32Array(n).fill(-1);
  const childCount = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = entries[i]!.parentId;
    const at = p === null ? undefined : index.get(p);
    if (at !== undefined && at < i) {
      parent[i] = at;
      childCount[at]!++;
    }
  }
  // the latest entry of each subtree: children come after parents, so a reverse pass sees children first
  const maxIdx = new Int32Array(n);
  for (let i = 0; i < n; i++) maxIdx[i] = i;
  for (let i = n - 1; i >= 0; i--) if (parent[i]! >= 0 && maxIdx[i]! > maxIdx[parent[i]!]!) maxIdx[parent[i]!] = maxIdx[i]!;

  const forks = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p >= 0 && childCount[p]! > 1) {
      let list = forks.get(p);
      if (!list) forks.set(p, (list = []));
      list.push(i);
    }
  }

  const newParent = new Map<number, number>();
  for (const [p, children] of forks) {
    const prompts = children.filter((c) => promptEntries.has(entries[c]!.id));
    const times = new Set(prompts.map((c) => entries[c]!.timestamp));
    if (prompts.length >= 2 && times.size >= 2) {
      let tail = p;
      for (const c of children) {
        if (promptEntries.has(entries[c]!.id)) continue;
        if (tail !== p) newParent.set(c, tail);
        tail = maxIdx[c]!;
      }
      if (tail !== p) for (const c of prompts) newParent.set(c, tail);
      continue;
    }
    let live = children[0]!;
    for (const c of children) if (maxIdx[c]! > maxIdx[live]!) live = c;
    let tail = p;
    for (const c of [...children.filter((c) => c !== live), live]) {
      if (tail !== p) newParent.set(c, tail);
      tail = maxIdx[c]!;
    }
  }
  for (const [c, p] of newParent) entries[c]!.parentId = entries[p]!.id;
}
