// What Compare says when there is nothing to compare. No `vscode` here, so it is unit tested.
/** One branch and no other session in the workspace: forks and other sessions would be offered as B. */
export function nothingToCompareMessage(title: string): string {
  return `Agent Rewind: "${title}" has only one branch and this workspace has no other session, so there is nothing to compare it with.`;
}
