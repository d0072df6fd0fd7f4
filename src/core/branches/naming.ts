// Branch names (docs/API.md, How branches are derived): a rewind from `main` makes `main-v2`, then `main-v3`; from `main-v2` it makes
// `main-v2-v2`. That is: the first free `-vN` (N ≥ 2) of the name of the branch the rewind starts from.

export function nextBranchName(current: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${current}-v${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Tips of the tree that no record names (pi's /tree branches, abandoned explorations) are listed under this name. */
export function tipBranchName(tipEntryId: string): string {
  return `tip-${tipEntryId}`;
}
