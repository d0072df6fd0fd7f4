// What several benchmarks share: a copy of a generated workspace with a shadow git repository as the reference
// (Cline-style), the CLI bundled as it ships with its launcher, the checkpoint service started and stopped, a hook run
// and timed as its agent runs it, random edits with a fixed seed, a reader timed against its reference, and how
// times are printed.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { prng, type GeneratedWorkspace } from './workspace-generator';
import { baselineSessionOf } from '../src/core/baseline-session';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { BACKGROUND_TEMP } from '../src/core/files/store/pack-writer';
import { launcherScript } from '../src/core/service/launcher-script';
import { cliCheckpointerOptions } from '../src/core/settings/settings-file';
import { bundleThreadsInto } from '../test/unit/files/helpers';
import { median, percentile } from './types';

export const now = () => performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

export function git(gitDir: string, ws: string, args: string[]): void {
  const r = spawnSync('git', [`--git-dir=${gitDir}`, `--work-tree=${ws}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

/** `git add . && git commit` of the shadow repository, timed; then waits out any automatic gc it started. */
export async function gitCheckpoint(gitDir: string, ws: string, msg: string): Promise<number> {
  const t = now();
  git(gitDir, ws, ['add', '.']);
  git(gitDir, ws, ['commit', '-q', '--allow-empty', '--no-verify', '-m', msg]);
  const ms = now() - t;
  for (let i = 0; i < 600 && existsSync(join(gitDir, 'gc.pid')); i++) await sleep(100);
  return ms;
}

/** A bench's folder under `base`: `ws`, a copy of the generated workspace; `home`, an agent-rewind home (not made
 *  yet); `gitDir`, a shadow repository of `ws` (Cline-style), initialised, the reference the hooks are timed against. */
export interface WorkspaceCopy {
  ws: string;
  home: string;
  gitDir: string;
}

/** Copies the generated workspace into `base/ws` with the same page-cache state for git and for us: the copy written
 *  back to disk, then every file read once (else whoever goes first pays for the copy's writeback and the cold
 *  reads); and initialises the shadow repository beside it. */
export async function copyWorkspaceWithShadowGit(gen: GeneratedWorkspace, base: string): Promise<WorkspaceCopy> {
  const ws = join(base, 'ws');
  execFileSync('cp', ['-a', gen.root, ws]);
  execFileSync('sync');
  for (const f of gen.files) await readFile(join(ws, f));
  const gitDir = join(base, 'shadow.git');
  git(gitDir, ws, ['init', '-q']);
  git(gitDir, ws, ['config', 'user.name', 'bench']);
  git(gitDir, ws, ['config', 'user.email', 'bench@example.invalid']);
  git(gitDir, ws, ['config', 'commit.gpgSign', 'false']);
  return { ws, home: join(base, 'home'), gitDir };
}

/** Appends `// <note>` to `count` distinct files picked with a fixed seed (an agent's edits of one prompt). */
export async function editRandomFiles(ws: string, files: string[], count: number, seed: number, note: string): Promise<string[]> {
  const rand = prng(seed);
  const picked = new Set<string>();
  while (picked.size < count) picked.add(files[Math.floor(rand() * files.length)]!);
  for (const f of picked) {
    const p = join(ws, f);
    await writeFile(p, (await readFile(p, 'utf8')) + `// ${note}\n`);
  }
  return [...picked];
}

/** The CLI bundled as it ships in dist/ (CommonJS, Node 20): `outfile` runs cli-bundle.js beside it from V8's code
 *  cache (src/cli/code-cache.ts), which its first run writes; the threads it starts are bundled beside it too. */
export async function bundleCli(outfile: string): Promise<void> {
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' } as const;
  await build({ ...common, entryPoints: [join(__dirname, '../src/cli/main.ts')], outfile: join(dirname(outfile), 'cli-bundle.js') });
  await build({ ...common, entryPoints: [join(__dirname, '../src/cli/start.ts')], outfile });
  bundleThreadsInto(dirname(outfile)); // as in dist/: the hashing and compaction threads' bundles beside the CLI's
}

/** The CLI bundled as it ships (`dir/cli.js`) and the launcher script `hooks install` writes for it
 *  (`dir/agent-rewind`; the home as the CLI resolves it: $AGENT_REWIND_HOME). */
export async function bundleCliWithLauncher(dir: string): Promise<{ cli: string; launcher: string }> {
  const cli = join(dir, 'cli.js');
  await bundleCli(cli);
  const launcher = join(dir, 'agent-rewind');
  writeFileSync(launcher, launcherScript({ cliJs: cli, runtime: process.execPath, runtimeKind: 'node', writtenBy: 'the benchmark' }), {
    mode: 0o755,
  });
  return { cli, launcher };
}

/** The snapshot `agent-rewind hooks install <agent>` takes of the folder before any prompt (every file hashed, the
 *  stat index written, under the agent's baseline session), then the store compacted by `agent-rewind gc` as the
 *  CLI's detached gc would: set-up, untimed. Without it the first prompt's hook hashes every file, which on a loaded
 *  machine outlasts the hook's 28 s. */
export async function takeInstallBaseline(cli: string, ws: string, home: string, agent: string, env: NodeJS.ProcessEnv): Promise<number> {
  const t = now();
  const fc = new FileCheckpointer(cliCheckpointerOptions(home, ws, () => undefined));
  try {
    await fc.snapshot(baselineSessionOf(agent), `install-${agent}`, 'user-message');
  } finally {
    await fc.dispose();
  }
  const ms = now() - t;
  const gc = spawnSync(process.execPath, [cli, 'gc', '--workspace', ws], { env: { ...env, AGENT_REWIND_HOME: home }, encoding: 'utf8' });
  if (gc.status !== 0) throw new Error(`gc failed: ${gc.stderr}`);
  return ms;
}

/** Runs one hook as its agent does (`command`, the hook's JSON on stdin, in the workspace) and times it; a hook prints
 *  nothing and exits 0, anything else fails the bench. */
export function timedHook(command: readonly string[], input: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): number {
  const t = now();
  const r = spawnSync(command[0]!, command.slice(1), { input, encoding: 'utf8', cwd: opts.cwd, env: opts.env });
  const ms = now() - t;
  if (r.status !== 0 || r.stdout !== '' || r.stderr !== '') throw new Error(`hook failed: exit ${r.status}, ${r.stdout}${r.stderr}`);
  return ms;
}

/** `agent-rewind serve --workspace <ws> --verbose`, listening. */
export interface RunningService {
  /** From its spawn until it printed its socket. */
  startMs: number;
  /** Its stderr so far: with --verbose, a line per hook it answered (hookAnswers reads them). */
  log(): string;
  /** SIGTERM, and waits for it to exit; does nothing once it has. */
  stop(): Promise<void>;
}

/** Starts the checkpoint service of `ws` from the bundled CLI and waits until it listens (2 minutes at most). */
export async function startService(cli: string, ws: string, env: NodeJS.ProcessEnv): Promise<RunningService> {
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve', '--workspace', ws, '--verbose'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const t = now();
  while (!out.includes('socket:')) {
    if (child.exitCode !== null || now() - t > 120_000) {
      await stop();
      throw new Error(`serve did not start: ${log}`);
    }
    await sleep(20);
  }
  return { startMs: now() - t, log: () => log, stop };
}

/** The service's own time (request in → answer out) of each hook of `agent` it answered `ok`, from its trace log. */
export function hookAnswers(serviceLog: string, agent: string): number[] {
  return [...serviceLog.matchAll(new RegExp(`hook ${agent} \\S+ ok ([\\d.]+) ms`, 'g'))].map((m) => Number(m[1]));
}

/** Waits up to 2 s for the service to have logged `count` answers to `agent`'s hooks (a log line may still be in
 *  the pipe when the hook has its answer); returns them. */
export async function awaitHookAnswers(service: RunningService, agent: string, count: number): Promise<number[]> {
  for (let i = 0; i < 100 && hookAnswers(service.log(), agent).length < count; i++) await sleep(20);
  return hookAnswers(service.log(), agent);
}

/** What an agent's hook log says (empty: no problem logged). */
export function hookLogOf(home: string, file: string): string {
  const path = join(home, 'logs', file);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

/** An agent's prompt-start hook through the service, against git, as hook benches measure it. */
export interface PromptStartSeries {
  /** The hook's time per timed prompt, and git add+commit's right after it. */
  ours: number[];
  git: number[];
  /** The 1-minute load average when each prompt started. */
  loads: number[];
  /** The service's own time for each timed prompt (its trace log). */
  inService: number[];
  /** Set-up: the install's baseline snapshot, and the first prompt through the service (its tree built). */
  baselineMs: number;
  firstMs: number;
}

/**
 * Prompt starts of `agent` through the checkpoint service of `ws`, each against a shadow git commit: git's first
 * commit and the install's baseline snapshot, the service started, two untimed prompts (the first builds the service's
 * tree of the folder), the service's background compaction waited for (as gitCheckpoint waits for git's gc), then
 * `rounds` prompts, each after 10 files changed and followed by `git add . && git commit`. Every prompt must be
 * answered by the service (its trace log); it is stopped before this returns.
 */
export async function promptStartsThroughService(opts: {
  agent: string;
  gen: GeneratedWorkspace;
  folder: WorkspaceCopy;
  cli: string;
  env: NodeJS.ProcessEnv;
  rounds: number;
  seed: number;
  /** One prompt start, as the agent runs its hook; resolves to the time the agent waits for it. */
  prompt: () => number | Promise<number>;
}): Promise<PromptStartSeries> {
  const { ws, home, gitDir } = opts.folder;
  await gitCheckpoint(gitDir, ws, 'first');
  const baselineMs = await takeInstallBaseline(opts.cli, ws, home, opts.agent, opts.env);
  const service = await startService(opts.cli, ws, opts.env);
  try {
    const firstMs = await opts.prompt();
    await opts.prompt();
    await waitForCompaction(home);
    const series: PromptStartSeries = { ours: [], git: [], loads: [], inService: [], baselineMs, firstMs };
    for (let r = 0; r < opts.rounds; r++) {
      await editRandomFiles(ws, opts.gen.files, 10, opts.seed + r, `${opts.agent} edit ${r}`);
      series.loads.push(loadavg()[0]!);
      series.ours.push(await opts.prompt());
      series.git.push(await gitCheckpoint(gitDir, ws, `round ${r}`));
    }
    const answered = await awaitHookAnswers(service, opts.agent, opts.rounds + 2);
    if (answered.length !== opts.rounds + 2)
      throw new Error(`expected the service to answer all ${opts.rounds + 2} prompts' hooks, it answered ${answered.length}:\n${service.log()}`);
    series.inService = answered.slice(-opts.rounds);
    return series;
  } finally {
    await service.stop();
  }
}

/** The table of a PromptStartSeries and whether issue 25's target is met (hook p50 ≤ 0.10× git add+commit). */
export function promptStartTable(what: string, s: PromptStartSeries): { markdown: string; ok: boolean } {
  const [p50, p95, g50, g95] = [median(s.ours), percentile(s.ours, 95), median(s.git), percentile(s.git, 95)];
  const ok = p50 <= 0.1 * g50;
  const markdown = [
    `1-minute load average when each prompt started: ${median(s.loads).toFixed(2)} (median; ${Math.min(...s.loads).toFixed(2)}–${Math.max(...s.loads).toFixed(2)}; 2 cores shared).`,
    '',
    '| | agent-rewind hook | shadow git add+commit | ratio | target |',
    '|---|---|---|---|---|',
    `| ${what} with the service, p50 | ${fmtMs(p50)} | ${fmtMs(g50)} | ${(p50 / g50).toFixed(3)}× | ≤ 0.10× ${ok ? '✅' : '❌'} |`,
    `| ${what} with the service, p95 | ${fmtMs(p95)} | ${fmtMs(g95)} | ${(p95 / g95).toFixed(3)}× | |`,
    `| of which inside the service, p50 / p95 | ${fmtMs(median(s.inService))} / ${fmtMs(percentile(s.inService, 95))} | | | |`,
    `| set-up: the baseline snapshot \`hooks install\` takes in a workspace (every file hashed, in-process) | ${fmtMs(s.baselineMs)} | | | |`,
    `| set-up: the first prompt through the service (its tree of the folder built) | ${fmtMs(s.firstMs)} | | | |`,
  ].join('\n');
  return { markdown, ok };
}

/** Wall-clock and CPU times of a reader (`ours`) and its reference, in ms. */
export interface PairedTimes {
  ours: number[];
  reference: number[];
  oursCpu: number[];
  referenceCpu: number[];
}

/** Times `ours` against `reference` `reps` times each, in turns (the machine is shared: both sides see the same
 *  moments), after one untimed round of each (the first run of each pays for compiling its code, not for the work).
 *  CPU time beside the wall clock: on a loaded machine a side's wall time is mostly its wait for a core. */
export async function timeAgainstReference(reps: number, reference: () => unknown, ours: () => unknown): Promise<PairedTimes> {
  const times: PairedTimes = { ours: [], reference: [], oursCpu: [], referenceCpu: [] };
  const timed = async (wall: number[], cpu: number[], f: () => unknown) => {
    const c = process.cpuUsage();
    const t = now();
    await f();
    wall.push(now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  };
  await reference();
  await ours();
  for (let i = 0; i < reps; i++) {
    await timed(times.reference, times.referenceCpu, reference);
    await timed(times.ours, times.oursCpu, ours);
  }
  return times;
}

/** The plainest read of a JSON-lines file, a reader's reference: every line JSON.parse'd; the number of lines. */
export function parseEveryLine(file: string): number {
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
  return n;
}

/** Waits until the service of `home` has put a compacted pack in place (its background compaction, our gc --auto)
 *  and removed what it compacted; returns how long that took. */
export async function waitForCompaction(home: string): Promise<number> {
  const t = now();
  const root = join(home, 'checkpoints');
  const packDirs = () =>
    readdirSync(root)
      .map((d) => join(root, d, 'packs'))
      .filter((d) => existsSync(d));
  const done = () => {
    const names = packDirs().flatMap((d) => readdirSync(d));
    return names.some((n) => n.endsWith('-c.pack')) && !names.some((n) => n.startsWith(BACKGROUND_TEMP));
  };
  while (!done()) {
    if (now() - t > 600_000) throw new Error('the service did not finish its background compaction within 10 minutes');
    await sleep(200);
  }
  await sleep(1000); // the compacted-away packs are removed right after the new one is in place
  return now() - t;
}
