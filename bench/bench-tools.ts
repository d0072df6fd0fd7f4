// What several benchmarks share: a copy of a generated workspace with a shadow git repository as the reference
// (Cline-style), the CLI bundled as it ships with its launcher, the checkpoint service started and stopped, a hook run
// and timed as its agent runs it, random edits with a fixed seed, a reader timed against its reference, and how
// times are printed.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { prng, type GeneratedWorkspace } from './workspace-generator';
import { baselineSessionOf } from '../src/core/baseline-session';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { BACKGROUND_TEMP } from '../src/core/files/store/pack-writer';
import { launcherScript } from '../src/core/service/launcher-script';
import { cliCheckpointerOptions } from '../src/core/settings/settings-file';
import { bundleThreadsInto } from '../test/unit/files/helpers';

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
