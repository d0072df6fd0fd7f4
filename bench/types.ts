export interface BenchSection {
  /** Section heading in BENCHMARKS.md. */
  title: string;
  /** A markdown table: each figure beside the reference measured in the same run, the ratio, and the target. */
  markdown: string;
  /** Whether every target was met. */
  ok: boolean;
}

export interface BenchModule {
  run(opts: { quick: boolean }): Promise<BenchSection>;
}

/** Median of a sample, for timings that are noisy on a shared machine. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
