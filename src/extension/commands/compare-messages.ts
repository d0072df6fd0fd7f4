// What Compare branches says when there is nothing to compare. No `vscode` here, so it is unit tested.
/** Why there is nothing to compare: one branch, and forks (separate sessions) are not compared with it. */
export function onlyOneBranchMessage(title: string, forks: number, originTitle?: string): string {
  const related =
    forks > 0
      ? ` Its ${forks === 1 ? 'fork is a separate session' : `${forks} forks are separate sessions`} (under Forks in the Sessions view), which Compare branches does not compare with it yet: open both transcripts side by side.`
      : originTitle !== undefined
        ? ` It is a fork of "${originTitle}", a separate session, which Compare branches does not compare with it yet: open both transcripts side by side.`
        : '';
  return `Agent Rewind: "${title}" has only one branch, so there is nothing to compare it with.${related}`;
}
