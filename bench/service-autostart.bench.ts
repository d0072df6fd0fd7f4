// Issue 26, item 1: the checkpoint service starts itself. Sessions of 12 Claude Code prompts through the `agent-rewind`
// launcher (as Claude Code runs the hook), each session with NO service running at its start, 10 files changed
// before each prompt: the first hook takes its snapshot as a fresh process does and starts `serve --auto` in the
// background; the later hooks go to that service. Compared in the same run, on the same tree:
//   - the first hook of a session against today's fresh process (the same hook with auto-start off), taken right
//     before it in the same session, so both see the same load;
//   - hooks 3 to 12 against a shadow repository's `git add . && git commit` right after each.
// Targets: first hook p50 ≤ the fresh process's p50; hooks 3–12 p50 ≤ 0.10× git's next commit.
// File counts: 50,000 (2,000 with --quick); AGENT_REWIND_BENCH_AUTOSTART_FILES=50000,200000 adds others.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { cliCheckpointerOptions } from '../src/core/settings/settings-file';
import { bundleCliWithLauncher, copyWorkspaceWithShadowGit, editRandomFiles, fmtMs, gitCheckpoint, sleep, timedHook } from './bench-tools';
import { median, percentile, type BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

const fmt = fmtMs;
const load = () => loadavg()[0]!;
const range = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

interface Measured {
  fileCount: number;
  megabytes: number;
  sessions: number;
  fresh: number[];
  freshLoads: number[];
  first: number[];
  firstLoads: number[];
  second: number[];
  later: number[];
  laterGit: number[];
  laterLoads: number[];
  /** Per session: hooks 2–12 the service took (its request counter, which starts with it). */
  answered: number[];
  serviceRss: number[];
  idleStops: boolean;
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const counts = quick ? [2000] : (process.env.AGENT_REWIND_BENCH_AUTOSTART_FILES ?? '50000').split(',').map(Number);
  const results: Measured[] = [];
  for (const n of counts) {
    results.push(await measure(n, quick ? 2 : Number(process.env.AGENT_REWIND_BENCH_AUTOSTART_SESSIONS ?? 10)));
    // the raw figures as soon as they are there: a long run cut short keeps what it measured
    console.log(JSON.stringify(results.at(-1)));
  }
  let ok = true;
  const parts: string[] = [
    `Each session starts with no service running (stopped with \`agent-rewind serve --stop\`, untimed) and runs 12 prompts through the \`agent-rewind\` launcher (\`<launcher> hook claude\`, stdin JSON as Claude Code sends it), 10 files changed before each. The first hook of a session takes its snapshot as a fresh process and then spawns \`agent-rewind serve --auto\` (detached); the later ones reach that service through the launcher's sh + perl fast path. "Fresh process" is today's path, the same hook with \`AGENT_REWIND_SERVICE_AUTOSTART=off\`, run in the same session right before the first hook (so both see the same load). Reference for hooks 3–12: \`git add . && git commit\` of a shadow repository on the same tree right after each hook. Load: the 1-minute load average when each sample started (median, min–max), 2 cores shared with other work.`,
    '',
  ];
  for (const m of results) {
    const firstRatio = median(m.first) / median(m.fresh);
    const laterRatio = median(m.later) / median(m.laterGit);
    const laterRatio95 = percentile(m.later, 95) / percentile(m.laterGit, 95);
    const okHere = firstRatio <= 1 && laterRatio <= 0.1 && m.answered.every((a) => a >= 10) && m.idleStops;
    ok &&= okHere;
    parts.push(
      `**${m.fileCount.toLocaleString('en-US')} files (${m.megabytes.toFixed(0)} MB), ${m.sessions} sessions**`,
      '',
      '| | agent-rewind hook | reference | ratio | load (1 min) |',
      '|---|---|---|---|---|',
      `| first hook of a session (snapshot in the hook, service spawned), p50 / p95 | ${fmt(median(m.first))} / ${fmt(percentile(m.first, 95))} | ${fmt(median(m.fresh))} / ${fmt(percentile(m.fresh, 95))} (fresh process, auto-start off) | ${firstRatio.toFixed(2)}× / ${(percentile(m.first, 95) / percentile(m.fresh, 95)).toFixed(2)}× | ${range(m.firstLoads)} / ${range(m.freshLoads)} |`,
      `| second hook (the service may still be starting), p50 / p95 | ${fmt(median(m.second))} / ${fmt(percentile(m.second, 95))} | | | |`,
      `| hooks 3–12 (through the auto-started service), p50 | ${fmt(median(m.later))} | ${fmt(median(m.laterGit))} (git's next commit) | ${laterRatio.toFixed(3)}× | ${range(m.laterLoads)} |`,
      `| hooks 3–12, p95 | ${fmt(percentile(m.later, 95))} | ${fmt(percentile(m.laterGit, 95))} | ${laterRatio95.toFixed(3)}× | |`,
      `| hooks 2–12 answered by the auto-started service (its request counter), per session | ${m.answered.join(', ')} of 11 | | | |`,
      `| the auto-started service's resident memory after 12 hooks, median (min–max) | ${(median(m.serviceRss) / 1e6).toFixed(0)} MB (${(Math.min(...m.serviceRss) / 1e6).toFixed(0)}–${(Math.max(...m.serviceRss) / 1e6).toFixed(0)}) | | | |`,
      '',
      `Targets: first hook p50 ≤ the fresh process's p50: ${firstRatio <= 1 ? '✅' : '❌'} (${firstRatio.toFixed(2)}×); hooks 3–12 p50 ≤ 0.10× git: ${laterRatio <= 0.1 ? '✅' : '❌'} (${laterRatio.toFixed(3)}×); the service the first hook started answered at least hooks 3–12 in every session (its counter counts from its start): ${m.answered.every((a) => a >= 10) ? '✅' : '❌'}. A last service left running stopped by itself after its idle time (a 0.05-minute setting, after the series): ${m.idleStops ? '✅' : '❌'}.`,
      '',
    );
  }
  return { title: 'Checkpoint service started by the hooks themselves (no service at the start of a session)', markdown: parts.join('\n'), ok };
}

async function measure(fileCount: number, sessions: number): Promise<Measured> {
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
  try {
    const { ws, gitDir } = await copyWorkspaceWithShadowGit(gen, base);
    const { launcher } = await bundleCliWithLauncher(base);
    const sessionId = '6b1d2c3e-5b7d-4e9a-8c1f-0d2e3f4a5b6c';
    const hook = (promptId: string, env: NodeJS.ProcessEnv) =>
      timedHook(
        [launcher, 'hook', 'claude'],
        JSON.stringify({ session_id: sessionId, transcript_path: '', cwd: ws, prompt_id: promptId, hook_event_name: 'UserPromptSubmit', prompt: 'Go on.' }),
        { cwd: ws, env: { ...env, CLAUDE_PROJECT_DIR: ws } },
      );

    // the store's first snapshot (every file hashed) and git's first commit: set-up, untimed; then the store's
    // compaction (what a service or a detached gc would do in the background), as git's gc is waited for
    await gitCheckpoint(gitDir, ws, 'first');
    // in this process, with the options a hook uses (the settings file): a hook gives up after 28 s, which a first
    // snapshot of a big tree on a loaded machine can take
    const setup = new FileCheckpointer(cliCheckpointerOptions(home, ws, () => undefined));
    await setup.snapshot(sessionId, 'prompt-setup');
    await setup.dispose();
    const gc = spawnSync(process.execPath, [cli, 'gc', '--workspace', ws], { env: envOff, encoding: 'utf8' });
    if (gc.status !== 0) throw new Error(`gc failed: ${gc.stderr}`);
    hook('prompt-setup-2', envOff);

    const m: Measured = {
      fileCount,
      megabytes: gen.totalBytes / 1e6,
      sessions,
      fresh: [],
      freshLoads: [],
      first: [],
      firstLoads: [],
      second: [],
      later: [],
      laterGit: [],
      laterLoads: [],
      answered: [],
      serviceRss: [],
      idleStops: false,
    };
    let seed = 31_000;
    for (let s = 0; s < sessions; s++) {
      control(['--stop']);
      if (control(['--status']).running) throw new Error('a service still runs at the start of a session');
      await editRandomFiles(ws, gen.files, 10, seed++, `edit ${seed}`);
      m.freshLoads.push(load());
      m.fresh.push(hook(`s${s}-fresh`, envOff));
      await gitCheckpoint(gitDir, ws, `s${s} fresh`);
      if (control(['--status']).running) throw new Error('the hook with auto-start off started a service');
      for (let k = 1; k <= 12; k++) {
        await editRandomFiles(ws, gen.files, 10, seed++, `edit ${seed}`);
        const l = load();
        const ms = hook(`s${s}-p${k}`, envOn);
        const g = await gitCheckpoint(gitDir, ws, `s${s} p${k}`);
        if (k === 1) {
          m.first.push(ms);
          m.firstLoads.push(l);
        } else if (k === 2) m.second.push(ms);
        else {
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
