// What `npm run bench -- --compare <rev>` compares: every duration a bench's markdown tables print, read back as a
// number. A bench module of any revision returns only its section's markdown (bench/types.ts), so the figures of an
// older revision are read from its tables: each row's first cell names the measure, each column header what the
// figure is (ours, the reference, p50 / p95 …), and every duration in a cell ("457.3 ms", "3.29 s / 3.46 s") is one
// figure. One run of a bench gives one sample per figure; the runs of both revisions alternate, so the machine's load
// hits both alike, and the samples of each figure are compared: before and after (p50, p95), their ratio, and the
// noise (how far two halves of the same revision's samples differ).

/** Starts the line of a bench run's result in the output of bench/compare-child.ts. */
export const RESULT_MARKER = '@@bench-compare-result@@ ';

/** One figure of one run: which measure, and its value in milliseconds. */
export interface Figure {
  key: string;
  ms: number;
}

const DURATION = /(\d[\d,]*(?:\.\d+)?)\s*(µs|us|ms|s)(?![\w])/g;
const UNIT_MS: Record<string, number> = { µs: 0.001, us: 0.001, ms: 1, s: 1000 };

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

const isRule = (cells: string[]) => cells.every((c) => /^:?-+:?$/.test(c));

/** Every duration in the markdown tables of a bench section, keyed "<measure> · <column>" (with "#2", "#3" for a
 *  cell's second and third durations: p95 beside p50). Rows and columns are matched by their text, so a bench whose
 *  tables changed between two revisions compares only what both print. */
export function figuresOf(markdown: string): Figure[] {
  const out: Figure[] = [];
  const seen = new Map<string, number>();
  let header: string[] | undefined;
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.trim().startsWith('|')) {
      header = undefined;
      inTable = false;
      continue;
    }
    const cells = cellsOf(line);
    if (!header) {
      header = cells;
      continue;
    }
    if (!inTable) {
      inTable = isRule(cells);
      if (!inTable) header = cells;
      continue;
    }
    const measure = cells[0] ?? '';
    cells.slice(1).forEach((cell, i) => {
      const column = header![i + 1] ?? `column ${i + 2}`;
      // a target ("< 250 ms") is a constant, not a measurement
      if (/target/i.test(column)) return;
      let n = 0;
      for (const m of cell.matchAll(DURATION)) {
        const ms = Number(m[1]!.replace(/,/g, '')) * UNIT_MS[m[2]!]!;
        if (!Number.isFinite(ms)) continue;
        n++;
        let key = `${measure} · ${column}${n > 1 ? ` #${n}` : ''}`;
        // the same row text twice in one section (two tables): keep both
        const dup = seen.get(key) ?? 0;
        seen.set(key, dup + 1);
        if (dup) key += ` (${dup + 1})`;
        out.push({ key, ms });
      }
    });
  }
  return out;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * How much one revision's figure moves between two halves of its own samples (the rounds alternate, so halves by
 * parity see the same mix of load): |median(odd) / median(even) − 1|, the larger of the two revisions'. A change
 * smaller than that is not told apart from the machine's noise. Undefined with fewer than two samples a side.
 */
export function noiseOf(before: readonly number[], after: readonly number[]): number | undefined {
  const halves = (xs: readonly number[]) => {
    if (xs.length < 2) return undefined;
    const a = median(xs.filter((_, i) => i % 2 === 0));
    const b = median(xs.filter((_, i) => i % 2 === 1));
    return a > 0 && b > 0 ? Math.abs(a / b - 1) : undefined;
  };
  const n = [halves(before), halves(after)].filter((x): x is number => x !== undefined);
  return n.length ? Math.max(...n) : undefined;
}

export type Verdict = 'slower beyond noise' | 'faster beyond noise' | 'within noise' | 'noise unknown';

export interface Compared {
  key: string;
  before: { p50: number; p95: number; n: number };
  after: { p50: number; p95: number; n: number };
  /** after p50 / before p50. */
  ratio: number;
  noise: number | undefined;
  verdict: Verdict;
}

/** Compares the samples of each figure both revisions printed; figures only one printed are listed apart. */
export function compareFigures(
  before: ReadonlyMap<string, number[]>,
  after: ReadonlyMap<string, number[]>,
): { compared: Compared[]; onlyBefore: string[]; onlyAfter: string[] } {
  const compared: Compared[] = [];
  for (const [key, b] of before) {
    const a = after.get(key);
    if (!a?.length || !b.length) continue;
    const ratio = median(b) > 0 ? median(a) / median(b) : Number.NaN;
    const noise = noiseOf(b, a);
    const verdict: Verdict =
      noise === undefined || !Number.isFinite(ratio)
        ? 'noise unknown'
        : ratio - 1 > noise
          ? 'slower beyond noise'
          : 1 - ratio > noise
            ? 'faster beyond noise'
            : 'within noise';
    compared.push({
      key,
      before: { p50: median(b), p95: percentile(b, 95), n: b.length },
      after: { p50: median(a), p95: percentile(a, 95), n: a.length },
      ratio,
      noise,
      verdict,
    });
  }
  return {
    compared,
    onlyBefore: [...before.keys()].filter((k) => !after.has(k)),
    onlyAfter: [...after.keys()].filter((k) => !before.has(k)),
  };
}

/** Collects the figures of several runs: key → samples in run order. */
export function collect(runs: readonly Figure[][]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const run of runs) for (const f of run) out.set(f.key, [...(out.get(f.key) ?? []), f.ms]);
  return out;
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(3)} ms`);

/** The markdown table of one bench's comparison. */
export function comparisonTable(r: ReturnType<typeof compareFigures>): string {
  const rows = r.compared.map(
    (c) =>
      `| ${c.key.replace(/\|/g, '\\|')} | ${fmt(c.before.p50)} / ${fmt(c.before.p95)} | ${fmt(c.after.p50)} / ${fmt(c.after.p95)} | ${c.ratio.toFixed(3)}× | ${
        c.noise === undefined ? '?' : `±${(c.noise * 100).toFixed(1)} %`
      } | ${c.verdict} |`,
  );
  const lines = [
    '| measure · column | before p50 / p95 | after p50 / p95 | after / before (p50) | noise | verdict |',
    '|---|---:|---:|---:|---:|---|',
    ...rows,
  ];
  if (r.onlyBefore.length) lines.push('', `Printed only before: ${r.onlyBefore.join('; ')}.`);
  if (r.onlyAfter.length) lines.push('', `Printed only after: ${r.onlyAfter.join('; ')}.`);
  return lines.join('\n');
}
