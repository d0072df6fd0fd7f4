// How every list names a fork: Rewind to here, `claude --fork-session` and Codex forks copy their origin's first
// prompt, so they would read exactly as their origin does.

const FORK_PREFIX = 'Fork: ';

/** A fork is named as its origin was, marked as the fork it is. The mark comes first: lists, the status bar and quick
 *  picks cut long titles at the end, where "(fork)" used to be. */
export function forkTitle(title: string, forked: boolean): string {
  return forked && !title.startsWith(FORK_PREFIX) ? `${FORK_PREFIX}${title.replace(/ \(fork\)$/, '')}` : title;
}
