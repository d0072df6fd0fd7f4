// Issue 26, item 1: the checkpoint service starts itself. Sessions of 12 Claude Code prompts through the `agent-rewind`
// launcher (as Claude Code runs the hook), each session with NO service running at its start, 10 files changed
// before each prompt: the first hook takes its snapshot as a fresh process does and starts `serve --auto` in the
// background; the later hooks go to that service. Compared in the same run, on the same tree:
//   - the first hook of a session against today's fresh process (the same hook with auto-start off): pairs with no
//     service running before either, their order alternating, each hook timed on the wall clock and in CPU time (its
//     processes until it returns, not the service it spawned: service-autostart-timer.ts);
//   - hooks 3 to 12 against a shadow repository's `git add . && git commit` right after each.
// Targets: first hook p50 ≤ the fresh process's p50 (CPU and wall), and no slowdown the pairs can show (the 95 %
// interval of the median paired difference reaches 0); hooks 3–12 p50 ≤ 0.10× git's next commit.
// File counts: 50,000 (2,000 with --quick); AGENT_REWIND_BENCH_AUTOSTART_FILES=50000,200000 adds others.
// Per file count (a list in the same order, or one value for all): AGENT_REWIND_BENCH_AUTOSTART_PAIRS (default 20),
// AGENT_REWIND_BENCH_AUTOSTART_SESSIONS (default 5).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { cliCheckpointerOptions } from '../src/core/settings/settings-file';
import { bundleCliWithLauncher, copyWorkspaceWithShadowGit, editRandomFiles, fmtMs, gitCheckpoint, sleep, timedHook } from './bench-tools';
import { medianDifference, timedHookWithCpu, type HookTime } from './service-autostart-timer';
import { median, percentile, type BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

const fmt = fmtMs;
const load = () => loadavg()[0]!;
const range = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

/** A first hook and a fresh process's, each with no service running before it. */
interface Pair {
  on: HookTime;
  off: HookTime;
  /** Which ran first (they alternate). */
  onFirst: boolean;
  onLoad: number;
  offLoad: number;
}

interface Measured {
  fileCount: number;
  megabytes: number;
  sessions: number;
  /** The store's first snapshot, taken by the bench in its own process (set-up, see measure()). */
  setupMs: number;
  pairs: Pair[];
  /** From each first hook's return until `serve --status` found its service answering. */
  serviceUpMs: number[];
  second: number[];
  later: number[];
  laterGit: number[];
  laterLoads: number[];
  /** Per session: hooks 2–12 the service took (its request counter, which starts with it). */
  answered: number[];
  serviceRss: number[];
  idleStops: boolean;
}

/** A per-file-count setting: one value for all, or a list in the order of the file counts. */
function perCount(name: string, index: number, fallback: number): number {
  const values = (process.env[name] ?? '').split(',').filter((v) => v.trim() !== '');
  const v = Number(values[Math.min(index, values.length - 1)] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name}: a whole number ≥ 1 per file count, not ${process.env[name]}`);
  return v;
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const counts = quick ? [2000] : (process.env.AGENT_REWIND_BENCH_AUTOSTART_FILES ?? '50000').split(',').map(Number);
  const results: Measured[] = [];
  for (const [i, n] of counts.entries()) {
    const pairs = quick ? 6 : perCount('AGENT_REWIND_BENCH_AUTOSTART_PAIRS', i, 20);
    const sessions = quick ? 2 : perCount('AGENT_REWIND_BENCH_AUTOSTART_SESSIONS', i, 5);
    results.push(await measure(n, pairs, sessions));
    // the raw figures as soon as they are there: a long run cut short keeps what it measured
    console.log(JSON.stringify(results.at(-1)));
  }
  let ok = true;
  const parts: string[] = [
    `Each session starts with no service running (stopped with \`agent-rewind serve --stop\`, untimed) and runs 12 prompts through the \`agent-rewind\` launcher (\`<launcher> hook claude\`, stdin JSON as Claude Code sends it), 10 files changed before each. The first hook of a session takes its snapshot as a fresh process and, once it has nothing left to do, spawns \`agent-rewind serve --auto\` (detached); the later ones reach that service through the launcher's sh + perl fast path. Reference for hooks 3–12: \`git add . && git commit\` of a shadow repository on the same tree right after each hook.`,
    '',
    `The first hook is compared with today's fresh process (the same hook with \`AGENT_REWIND_SERVICE_AUTOSTART=off\`) in pairs taken before the sessions: no service running before either hook (stopped, untimed, once the first hook's service answered), no background gc running, 10 files changed before each, the order within a pair alternating. Each hook is timed on the wall clock and in CPU time: user + system time of the hook's processes until it returns (the launcher's sh, the Node hook and its threads), which leaves out the service it spawned (never waited for by the hook) — a perl wrapper reads times(2) of its waited-for children, 10 ms resolution. "Paired difference" is the median of (auto-start on − off) over the pairs with its distribution-free 95 % interval (sign test); the target holds when the p50 ratio is ≤ 1 or the interval reaches 0 (no slowdown these pairs can show). Load: the 1-minute load average when each sample started (median, min–max), 2 cores shared with other work.`,
    '',
  ];
  const ratio = (a: number, b: number) => `${(a / b).toFixed(3)}×`;
  for (const m of results) {
    const on = m.pairs.map((p) => p.on);
    const off = m.pairs.map((p) => p.off);
    const wallOn = on.map((h) => h.wallMs);
    const wallOff = off.map((h) => h.wallMs);
    const cpuOn = on.map((h) => h.cpuMs);
    const cpuOff = off.map((h) => h.cpuMs);
    const wallDiff = medianDifference(m.pairs.map((p) => p.on.wallMs - p.off.wallMs));
    const cpuDiff = medianDifference(m.pairs.map((p) => p.on.cpuMs - p.off.cpuMs));
    const noSlower = (a: number[], b: number[], d: ReturnType<typeof medianDifference>) => median(a) <= median(b) || (d !== undefined && d.low <= 0);
    const diffText = (d: ReturnType<typeof medianDifference>) =>
      d ? `${d.median.toFixed(0)} ms (95 %: ${d.low.toFixed(0)} to ${d.high.toFixed(0)} ms)` : '(too few pairs)';
    const firstOk = noSlower(cpuOn, cpuOff, cpuDiff) && noSlower(wallOn, wallOff, wallDiff);
    const laterRatio = median(m.later) / median(m.laterGit);
    const laterRatio95 = percentile(m.later, 95) / percentile(m.laterGit, 95);
    const okHere = firstOk && laterRatio <= 0.1 && m.answered.every((a) => a >= 10) && m.idleStops;
    ok &&= okHere;
    const onLoads = m.pairs.map((p) => p.onLoad);
    const offLoads = m.pairs.map((p) => p.offLoad);
    parts.push(
      `**${m.fileCount.toLocaleString('en-US')} files (${m.megabytes.toFixed(0)} MB), ${m.pairs.length} pairs, ${m.sessions} sessions**`,
      '',
      '| | auto-start on (first hook) | fresh process (auto-start off) | ratio | paired difference (on − off) | load (1 min), on / off |',
      '|---|---|---|---|---|---|',
      `| first hook, CPU time p50 / p95 | ${fmt(median(cpuOn))} / ${fmt(percentile(cpuOn, 95))} | ${fmt(median(cpuOff))} / ${fmt(percentile(cpuOff, 95))} | ${ratio(median(cpuOn), median(cpuOff))} / ${ratio(percentile(cpuOn, 95), percentile(cpuOff, 95))} | ${diffText(cpuDiff)} | ${range(onLoads)} / ${range(offLoads)} |`,
      `| first hook, wall clock p50 / p95 | ${fmt(median(wallOn))} / ${fmt(percentile(wallOn, 95))} | ${fmt(median(wallOff))} / ${fmt(percentile(wallOff, 95))} | ${ratio(median(wallOn), median(wallOff))} / ${ratio(percentile(wallOn, 95), percentile(wallOff, 95))} | ${diffText(wallDiff)} | |`,
      '',
      '| | agent-rewind hook | reference | ratio | load (1 min) |',
      '|---|---|---|---|---|',
      `| from a first hook's return until its service answered \`serve --status\`, p50 / max | ${fmt(median(m.serviceUpMs))} / ${fmt(Math.max(...m.serviceUpMs))} | | | |`,
      `| second hook of a session (the service may still be starting), p50 / p95 | ${fmt(median(m.second))} / ${fmt(percentile(m.second, 95))} | | | |`,
      `| hooks 3–12 (through the auto-started service), p50 | ${fmt(median(m.later))} | ${fmt(median(m.laterGit))} (git's next commit) | ${laterRatio.toFixed(3)}× | ${range(m.laterLoads)} |`,
      `| hooks 3–12, p95 | ${fmt(percentile(m.later, 95))} | ${fmt(percentile(m.laterGit, 95))} | ${laterRatio95.toFixed(3)}× | |`,
      `| hooks 2–12 answered by the auto-started service (its request counter), per session | ${m.answered.join(', ')} of 11 | | | |`,
      `| the auto-started service's resident memory after 12 hooks, median (min–max) | ${(median(m.serviceRss) / 1e6).toFixed(0)} MB (${(Math.min(...m.serviceRss) / 1e6).toFixed(0)}–${(Math.max(...m.serviceRss) / 1e6).toFixed(0)}) | | | |`,
      '',
      `Set-up (untimed in the rows): the store's first snapshot taken by the bench in its own process with the hooks' options, ${fmt(m.setupMs)} (a hook gives up after 28 s, which a first snapshot of a big tree on a loaded machine can take), then \`agent-rewind gc\`.`,
      '',
      `Targets: first hook no slower than the fresh process (CPU and wall: p50 ratio ≤ 1 or the paired difference's interval reaches 0): ${firstOk ? '✅' : '❌'}; hooks 3–12 p50 ≤ 0.10× git: ${laterRatio <= 0.1 ? '✅' : '❌'} (${laterRatio.toFixed(3)}×); the service the first hook started answered at least hooks 3–12 in every session (its counter counts from its start): ${m.answered.every((a) => a >= 10) ? '✅' : '❌'}. A last service left running stopped by itself after its idle time (a 0.05-minute setting, after the series): ${m.idleStops ? '✅' : '❌'}.`,
      '',
    );
  }
  return { title: 'Checkpoint service started by the hooks themselves (no service at the start of a session)', markdown: parts.join('\n'), ok };
}

async function measure(fileCount: number, pairCount: number, sessions: number): Promise<Measured> {
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-autostart-bench-'));
  const home = join(base, 'home');
  const cli = join(base, 'cli.js');
  const envOn: NodeJS.ProcessEnv = { ...process.env, AGENT_REWIND_HOME: home };
  // bench/run.ts turns auto-start off for every other bench: here it is what is measured
  delete envOn.AGENT_REWIND_SERVICE_AUTOSTART;
  delete envOn.AGENT_REWIND_SERVICE;
  const envOff = { ...envOn, AGENT_REWIND_SERVICE_AUTOSTART: 'off' };
  const control = (args: string[]) => {
    const r = spawnSync(process.execPath, [cli, 'serve', ...args, '--json'], { env: envOn, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`serve ${args.join(' ')} failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as { running?: boolean; pid?: number; requests?: number; rssBytes?: number; stopped?: boolean };
  };
  // --stop waits 35 s at most; a service stopped while it still sets up its watch on a big tree may take longer
  const stopped = async () => {
    control(['--stop']);
    for (let i = 0; i < 1200 && control(['--status']).running; i++) await sleep(100);
    if (control(['--status']).running) throw new Error('a service still runs 2 minutes after serve --stop');
  };
  try {
    const { ws, gitDir } = await copyWorkspaceWithShadowGit(gen, base);
    const { launcher } = await bundleCliWithLauncher(base);
    const sessionId = '6b1d2c3e-5b7d-4e9a-8c1f-0d2e3f4a5b6c';
    const hookArgs = (promptId: string, env: NodeJS.ProcessEnv) =>
      [
        [launcher, 'hook', 'claude'],
        JSON.stringify({ session_id: sessionId, transcript_path: '', cwd: ws, prompt_id: promptId, hook_event_name: 'UserPromptSubmit', prompt: 'Go on.' }),
        { cwd: ws, env: { ...env, CLAUDE_PROJECT_DIR: ws } },
      ] as const;
    const hook = (promptId: string, env: NodeJS.ProcessEnv) => timedHook(...hookArgs(promptId, env));
    const hookWithCpu = (promptId: string, env: NodeJS.ProcessEnv) => timedHookWithCpu(...hookArgs(promptId, env));
    // a detached gc a snapshot started (compact-later.ts) would share the cores with the next timed hook
    const gcDone = async () => {
      const pidFiles = () =>
        readdirSync(join(home, 'checkpoints'), { withFileTypes: true }).filter(
          (d) => d.isDirectory() && existsSync(join(home, 'checkpoints', d.name, 'compact.pid')),
        );
      for (let i = 0; i < 1200 && pidFiles().length; i++) await sleep(100);
    };
    const serviceUp = async () => {
      const t = performance.now();
      for (let i = 0; i < 1200; i++) {
        if (control(['--status']).running) return performance.now() - t;
        await sleep(100);
      }
      throw new Error('the first hook started no service within 2 minutes');
    };

    // the store's first snapshot (every file hashed) and git's first commit: set-up, untimed; then the store's
    // compaction (what a service or a detached gc would do in the background), as git's gc is waited for
    await gitCheckpoint(gitDir, ws, 'first');
    // in this process, with the options a hook uses (the settings file): a hook gives up after 28 s, which a first
    // snapshot of a big tree on a loaded machine can take
    const t0 = performance.now();
    const setup = new FileCheckpointer(cliCheckpointerOptions(home, ws, () => undefined));
    await setup.snapshot(sessionId, 'prompt-setup');
    await setup.dispose();
    const setupMs = performance.now() - t0;
    const gc = spawnSync(process.execPath, [cli, 'gc', '--workspace', ws], { env: envOff, encoding: 'utf8' });
    if (gc.status !== 0) throw new Error(`gc failed: ${gc.stderr}`);
    hook('prompt-setup-2', envOff);

    const m: Measured = {
      fileCount,
      megabytes: gen.totalBytes / 1e6,
      sessions,
      setupMs,
      pairs: [],
      serviceUpMs: [],
      second: [],
      later: [],
      laterGit: [],
      laterLoads: [],
      answered: [],
      serviceRss: [],
      idleStops: false,
    };
    let seed = 31_000;
    for (let p = 0; p < pairCount; p++) {
      const onFirst = p % 2 === 1;
      const pair: Partial<Pair> = { onFirst };
      for (const autoStart of onFirst ? [true, false] : [false, true]) {
        await stopped();
        await editRandomFiles(ws, gen.files, 10, seed++, `edit ${seed}`);
        await gcDone();
        const l = load();
        const h = hookWithCpu(`pair${p}-${autoStart ? 'on' : 'off'}`, autoStart ? envOn : envOff);
        if (autoStart) {
          Object.assign(pair, { on: h, onLoad: l });
          m.serviceUpMs.push(await serviceUp());
        } else {
          Object.assign(pair, { off: h, offLoad: l });
          if (control(['--status']).running) throw new Error('the hook with auto-start off started a service');
        }
      }
      m.pairs.push(pair as Pair);
    }
    for (let s = 0; s < sessions; s++) {
      await stopped();
      for (let k = 1; k <= 12; k++) {
        await editRandomFiles(ws, gen.files, 10, seed++, `edit ${seed}`);
        const l = load();
        const ms = hook(`s${s}-p${k}`, envOn);
        const g = await gitCheckpoint(gitDir, ws, `s${s} p${k}`);
        if (k === 2) m.second.push(ms);
        else if (k > 2) {
          m.later.push(ms);
          m.laterGit.push(g);
          m.laterLoads.push(l);
        }
      }
      const st = control(['--status']);
      if (!st.running) throw new Error(`session ${s}: no service runs after 12 hooks`);
      m.answered.push(st.requests ?? 0);
      m.serviceRss.push(st.rssBytes ?? 0);
    }
    control(['--stop']);
    // idle exit: a service started with a short idle time stops by itself
    writeFileSync(join(home, 'config.json'), JSON.stringify({ checkpointService: { idleMinutes: 0.05 } }));
    await editRandomFiles(ws, gen.files, 10, seed++, `edit ${seed}`);
    hook('idle-1', envOn);
    for (let i = 0; i < 200 && !control(['--status']).running; i++) await sleep(100);
    const started = control(['--status']).running === true;
    for (let i = 0; i < 300 && control(['--status']).running; i++) await sleep(100);
    m.idleStops = started && !control(['--status']).running;
    return m;
  } finally {
    try {
      control(['--stop']);
    } catch {
      /* nothing to stop */
    }
    await rm(base, { recursive: true, force: true });
  }
}
