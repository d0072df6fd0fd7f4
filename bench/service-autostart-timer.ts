// The first-hook comparison of service-autostart.bench.ts: a hook timed on the wall clock AND in CPU time, the CPU
// time of the hook's whole process tree up to its return (the launcher's sh, the Node hook and its threads, anything
// they waited for) and nothing after it: not the detached `serve --auto` it spawned, nor a detached gc, which are
// never waited for by the hook's processes, so their time is never added to the hook's. A small perl wrapper (perl
// is already what the launcher's fast path needs) runs the launcher, waits for it, and prints its children's times
// (times(2): user + system of the waited-for descendants) and the wall time around it (so the wrapper's own start is
// not in either figure).
import { spawnSync } from 'node:child_process';

const WRAPPER = [
  'use Time::HiRes qw(time);',
  'my $t = time;',
  'my $rc = system { $ARGV[0] } @ARGV;',
  'my $wall = time - $t;',
  'my @c = times;',
  'printf STDERR "arw-times %d %.6f %.3f %.3f\\n", $rc, $wall, $c[2], $c[3];',
].join(' ');
const MARK = 'arw-times ';

export interface HookTime {
  wallMs: number;
  /** User + system CPU time of the hook's processes (10 ms resolution: times(2) counts clock ticks). */
  cpuMs: number;
}

/** Runs one hook as its agent does (`command`, the hook's JSON on stdin, in the workspace) and times it; a hook prints
 *  nothing and exits 0, anything else fails the bench. */
export function timedHookWithCpu(command: readonly string[], input: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): HookTime {
  const r = spawnSync('perl', ['-e', WRAPPER, ...command], { input, encoding: 'utf8', cwd: opts.cwd, env: opts.env });
  const at = r.stderr.lastIndexOf(MARK);
  const [rc, wall, user, system] = (at >= 0 ? r.stderr.slice(at + MARK.length) : '').trim().split(' ').map(Number);
  const hookErr = at >= 0 ? r.stderr.slice(0, at) : r.stderr;
  if (r.status !== 0 || rc !== 0 || r.stdout !== '' || hookErr !== '' || wall === undefined || user === undefined || system === undefined)
    throw new Error(`hook failed: exit ${r.status} (wait status ${rc}), ${r.stdout}${hookErr}${r.error?.message ?? ''}`);
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000 };
}

/**
 * The median of paired differences with its distribution-free 95% interval (the sign test's: order statistics k and
 * n+1−k of the sorted differences, k the largest with P(Binomial(n, ½) < k) ≤ 2.5 %). Undefined below 6 pairs, where
 * no such interval exists.
 */
export function medianDifference(diffs: readonly number[]): { median: number; low: number; high: number } | undefined {
  const n = diffs.length;
  if (n < 6) return undefined;
  const sorted = [...diffs].sort((a, b) => a - b);
  let k = 0;
  let below = 0; // P(X ≤ k − 1), X ~ Binomial(n, ½)
  let term = 0.5 ** n; // P(X = k)
  while (below + term <= 0.025) {
    below += term;
    k++;
    term = (term * (n - k + 1)) / k;
  }
  // below = P(X ≤ k − 1) ≤ 2.5 %: the interval is [d(k), d(n+1−k)] (1-based)
  const mid = n >> 1;
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, low: sorted[k - 1]!, high: sorted[n - k]! };
}
