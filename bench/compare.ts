// `npm run bench -- --compare <rev> [bench names…] [--quick] [--rounds N] [--section TITLE] [--no-write]`: the same
// benches at an older revision (before) and in this tree (after), in one run. The older revision is checked out in a
// temporary git worktree under the system's temp folder (this tree's node_modules linked into it) and removed at the
// end. Each round runs every chosen bench once per side, in separate processes, in the order A B then B A (so neither
// side always goes first), and records the 1-minute load average at each start. Every duration the benches' tables
// print is compared (bench/compare-figures.ts): before and after p50 / p95 over the rounds, their ratio, and the noise
// (how far two halves of one side's own samples differ). The result is printed, and written into BENCHMARKS.md as
// its own section (replaced by the next comparison with the same title) unless --no-write.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { collect, compareFigures, comparisonTable, figuresOf, median, RESULT_MARKER, type Figure } from './compare-figures';

export interface CompareOptions {
  rev: string;
  filters: string[];
  quick: boolean;
  rounds: number;
  section: string;
  write: boolean;
}

/** Parses the arguments after `npm run bench --`; undefined when --compare is not among them. */
export function compareOptionsOf(args: readonly string[]): CompareOptions | undefined {
  const at = args.indexOf('--compare');
  if (at < 0) return undefined;
  const rev = args[at + 1];
  if (!rev || rev.startsWith('--')) throw new Error('--compare needs a revision: npm run bench -- --compare <rev> [bench names]');
  const valueOf = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rounds = Number(valueOf('--rounds') ?? (args.includes('--quick') ? 6 : 4));
  if (!Number.isInteger(rounds) || rounds < 2) throw new Error('--rounds needs a whole number of at least 2 (the noise estimate needs two samples a side)');
  const taken = new Set([at, at + 1, ...['--rounds', '--section'].flatMap((f) => (args.indexOf(f) >= 0 ? [args.indexOf(f), args.indexOf(f) + 1] : []))]);
  return {
    rev,
    filters: args.filter((a, i) => !taken.has(i) && !a.startsWith('--')),
    quick: args.includes('--quick'),
    rounds,
    section: valueOf('--section') ?? `Before/after: ${rev} → this tree`,
    write: !args.includes('--no-write'),
  };
}

const git = (cwd: string, args: string[]) => {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
};

/** One bench run of one tree in its own process; its section's figures. */
function runOnce(tree: string, file: string, quick: boolean): Promise<{ figures: Figure[]; ok: boolean }> {
  const child = join(__dirname, 'compare-child.ts');
  return new Promise((resolveRun, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, tree, file, ...(quick ? ['--quick'] : [])], { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_MARKER));
      if (code !== 0 || !line) return reject(new Error(`${file} in ${tree} failed (exit ${code}): ${err.trim().slice(-2000)}`));
      const section = JSON.parse(line.slice(RESULT_MARKER.length)) as { markdown: string; ok: boolean };
      const figures = figuresOf(section.markdown);
      // a table read wrongly must not pass as "nothing changed"
      if (figures.length === 0) return reject(new Error(`${file} in ${tree} printed no duration in a table:\n${section.markdown}`));
      resolveRun({ figures, ok: section.ok });
    });
  });
}

/** The bench files both trees have, of those the filters choose. */
function benchesOf(repo: string, tree: string, filters: readonly string[]): string[] {
  const list = (root: string) =>
    spawnSync('git', ['ls-files', 'bench'], { cwd: root, encoding: 'utf8' })
      .stdout.split('\n')
      .map((f) => f.replace(/^bench\//, ''))
      .filter((f) => f.endsWith('.bench.ts'));
  const old = new Set(list(tree));
  return list(repo)
    .filter((f) => old.has(f))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .sort();
}

export async function runCompare(o: CompareOptions): Promise<void> {
  const repo = resolve(__dirname, '..');
  const sha = git(repo, ['rev-parse', '--verify', `${o.rev}^{commit}`]);
  const short = sha.slice(0, 7);
  const tree = mkdtempSync(join(tmpdir(), `arw-bench-${short}-`));
  git(repo, ['worktree', 'add', '--detach', '--force', tree, sha]);
  const cleanup = () => {
    spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: repo });
  };
  const onSignal = () => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // the same dependencies on both sides: what differs is the code under test
    symlinkSync(realpathSync(join(repo, 'node_modules')), join(tree, 'node_modules'), 'dir');
    const files = benchesOf(repo, tree, o.filters);
    if (files.length === 0) throw new Error(`no bench named ${o.filters.join(', ')} exists in both ${short} and this tree`);
    const head = git(repo, ['rev-parse', '--short', 'HEAD']);
    const dirty = git(repo, ['status', '--porcelain', '--untracked-files=no']) ? ' with uncommitted changes' : '';
    console.log(
      `bench compare: ${files.join(', ')}; before = ${short} (${tree}), after = this tree (${head}${dirty}); ${o.rounds} rounds${o.quick ? ', --quick' : ''}`,
    );

    const sides = { before: tree, after: repo } as const;
    const runs = new Map(files.map((f) => [f, { before: [] as Figure[][], after: [] as Figure[][], load: [] as number[], ok: { before: true, after: true } }]));
    for (let round = 0; round < o.rounds; round++) {
      const order: ('before' | 'after')[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const file of files) {
        const r = runs.get(file)!;
        for (const side of order) {
          r.load.push(loadavg()[0]!);
          const t = performance.now();
          const once = await runOnce(sides[side], file, o.quick);
          r[side].push(once.figures);
          r.ok[side] &&= once.ok;
          console.log(`  round ${round + 1}/${o.rounds} ${file} ${side}: ${once.figures.length} figures, ${((performance.now() - t) / 1000).toFixed(1)} s`);
        }
      }
    }

    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const command = `npm run bench -- --compare ${o.rev} ${files.map((f) => f.replace('.bench.ts', '')).join(' ')}${o.quick ? ' --quick' : ''} --rounds ${o.rounds}`;
    const parts = [
      `Measured ${date} UTC on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, with \`${command}\`: before = ${short}, after = ${head}${dirty}.`,
      `Each round ran every bench once per side, each run its own process, in the order before, after, then after, before (${o.rounds} rounds: ${o.rounds} samples of every figure a side). p50 / p95 are over those samples; the ratio is after / before at p50; the noise is how far the two halves of one side's own samples (odd and even rounds) differ, the larger of the two sides'; a ratio farther from 1 than that is "beyond noise". A figure is every duration the bench's table prints, its references included (a reference that runs the same code on both sides shows the noise too).`,
    ];
    for (const file of files) {
      const r = runs.get(file)!;
      const result = compareFigures(collect(r.before), collect(r.after));
      const load = `1-minute load at the runs' starts: median ${median(r.load).toFixed(2)} (${Math.min(...r.load).toFixed(2)}–${Math.max(...r.load).toFixed(2)}) on ${cpus().length} cores`;
      const slower = result.compared.filter((c) => c.verdict === 'slower beyond noise');
      parts.push(
        `### ${file.replace('.bench.ts', '')}\n\n${load}.\n\n${comparisonTable(result)}\n\n${
          slower.length ? `Slower beyond noise: ${slower.map((c) => c.key).join('; ')}.` : 'Nothing is slower beyond noise.'
        }`,
      );
    }
    const markdown = parts.join('\n\n');
    console.log(`\n${markdown}\n`);
    if (o.write) writeSection('BENCHMARKS.md', o.section, markdown);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    cleanup();
  }
}

/** Replaces (or appends) the section titled `title`, between markers, in the benchmarks file. */
function writeSection(file: string, title: string, markdown: string): void {
  const start = `<!-- bench-compare:${title} -->`;
  const block = `${start}\n## ${title}\n\n${markdown}\n<!-- /bench-compare -->\n`;
  let doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const at = doc.indexOf(start);
  if (at >= 0) {
    const end = doc.indexOf('<!-- /bench-compare -->\n', at);
    doc = doc.slice(0, at) + block + doc.slice(end + '<!-- /bench-compare -->\n'.length);
  } else doc += `\n${block}`;
  writeFileSync(file, doc);
}
