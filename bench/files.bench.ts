// File checkpoints (docs/ARCHITECTURE.md, file checkpoints) against a Cline-style shadow git repository on the same
// generated tree, same run. Targets (issue 14), judged on p50 with p95 and the 1-minute load beside every figure:
// first snapshot ≤ 0.6× git's first commit; a fresh-process CLI snapshot after 10 changed files ≤ 1.0× git's next
// commit (the Node floor reported beside it); dry run of 1,000 changed files < 250 ms; their restore (undo data and
// journal included) < 500 ms; the store after 100 snapshots of 10 changed files ≤ 0.9× the shadow repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files';
import { SessionManager } from '../src/core/session';
import { median, percentile, type BenchModule, type BenchSection } from './types';
import { bundleCli, editRandomFiles } from './bench-tools';
import { generateWorkspace } from './workspace-generator';

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes on disk, like `du -s --block-size=1`. */
async function du(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      // a lock or temp file may go between the listing and the lstat (a compaction running in the background)
      const st = await lstat(p).catch(() => undefined);
      if (!st) continue;
      total += st.blocks * 512;
      if (e.isDirectory()) await walk(p);
    }
  };
  total += (await lstat(dir)).blocks * 512;
  await walk(dir);
  return total;
}

class ShadowGit {
  constructor(
    private readonly gitDir: string,
    private readonly ws: string,
  ) {}
  private git(args: string[]): void {
    const r = spawnSync('git', [`--git-dir=${this.gitDir}`, `--work-tree=${this.ws}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  }
  /** Timed git command (Cline's restore is `git reset --hard` + `git clean -fd`; its compare view is a diff). */
  timed(args: string[]): number {
    const t = now();
    this.git(args);
    return now() - t;
  }
  /** `autoGc` false: no background gc (the extra first-commit repositories are deleted right after). */
  init(autoGc = true): void {
    this.git(['init', '-q']);
    if (!autoGc) this.git(['config', 'gc.auto', '0']);
    this.git(['config', 'user.name', 'bench']);
    this.git(['config', 'user.email', 'bench@example.invalid']);
    this.git(['config', 'commit.gpgSign', 'false']);
  }
  /** What Cline does per checkpoint: `git add . && git commit` (timed as one). */
  async checkpoint(msg: string): Promise<number> {
    const t = now();
    this.git(['add', '.']);
    this.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', msg]);
    const ms = now() - t;
    // git may start an automatic gc in the background: let it finish so it does not slow our measurements
    for (let i = 0; i < 600 && existsSync(join(this.gitDir, 'gc.pid')); i++) await sleep(100);
    return ms;
  }
}

const fmtS = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtMB = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const mark = (ok: boolean) => (ok ? '✅' : '❌');

/** Samples of one measure: ours, the reference (git) when there is one, and the 1-minute load when each started. */
interface Series {
  ours: number[];
  ref: number[];
  loads: number[];
}
const series = (): Series => ({ ours: [], ref: [], loads: [] });
const load = () => loadavg()[0]!;
const p50 = (xs: number[]) => median(xs);
const p95 = (xs: number[]) => percentile(xs, 95);
const loadText = (s: Series) => `${median(s.loads).toFixed(2)} (${Math.min(...s.loads).toFixed(2)}–${Math.max(...s.loads).toFixed(2)})`;

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 3 : 5;
  const cliRounds = quick ? 5 : 11;
  const firstRounds = quick ? 1 : 3;
  const restoreRounds = quick ? 2 : 5;
  const sizeRounds = quick ? 20 : 100;
  const restoreCount = quick ? 200 : 1000;
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-files-bench-'));
  try {
    const ws = join(base, 'ws');
    execFileSync('cp', ['-a', gen.root, ws]);
    // the same page-cache state for git and for us: the copy written back to disk, then every file read once (else
    // whoever goes first pays for the copy's writeback and the cold reads)
    execFileSync('sync');
    for (const f of gen.files) await readFile(join(ws, f));
    const home = join(base, 'home');
    const git = new ShadowGit(join(base, 'shadow.git'), ws);
    git.init();

    // the CLI, bundled as it ships
    const cli = join(base, 'cli.js');
    await bundleCli(cli);
    const session = SessionManager.create(ws, { home, deferUntilAssistant: false });
    const anchors: string[] = [];
    for (let i = 0; i < 3 + rounds + cliRounds + sizeRounds + 2; i++)
      anchors.push(session.appendMessage({ role: 'user', content: `message ${i}`, timestamp: Date.now() }));
    await session.flush();
    const sessionRef = session.sessionRef!;
    let next = 0;
    const anchor = () => anchors[next++]!;

    // 1. first snapshot: the first round's store is the one the rest of the run uses; the others start from nothing
    // again (a new store beside a new shadow repository)
    const first = series();
    let firstSummary: Awaited<ReturnType<FileCheckpointer['snapshot']>> | undefined;
    /** The first store on disk as the snapshot wrote it. */
    let firstWritten = 0;
    for (let r = 0; r < firstRounds; r++) {
      const g = r === 0 ? git : new ShadowGit(join(base, `shadow-first-${r}.git`), ws);
      if (r > 0) g.init(false);
      first.loads.push(load());
      first.ref.push(await g.checkpoint('first'));
      execFileSync('sync'); // git's 50,000 new object files written back before our turn, not during it
      const h = r === 0 ? home : join(base, `home-first-${r}`);
      const fc = new FileCheckpointer({ workspaceRoot: ws, home: h });
      const t = now();
      const summary = await fc.snapshot(r === 0 ? session.sessionId : 'first', r === 0 ? anchor() : 'first');
      first.ours.push(now() - t);
      if (r === 0) firstWritten = await du(fc.storeDir);
      await fc.dispose();
      if (r === 0) firstSummary = summary;
      else {
        await rm(h, { recursive: true, force: true });
        await rm(join(base, `shadow-first-${r}.git`), { recursive: true, force: true });
      }
      execFileSync('sync');
    }

    // 2. incremental, in-process: fs.watch watcher + tracker
    const tracked = new FileCheckpointer({ workspaceRoot: ws, home });
    let t = now();
    await tracked.startWatching();
    const watchSetup = now() - t;
    await tracked.snapshot(session.sessionId, anchor()); // the tracker's first (full) check
    // a checkpointer that stays (this one, the extension's, the service's) starts a compaction in the background once
    // enough is stored at the snapshot's fast level (our gc --auto): untimed, waited for as git's automatic gc is
    const beforeCompaction = await du(tracked.storeDir);
    t = now();
    await tracked.whenCompacted();
    const compactionMs = now() - t;
    const afterCompaction = await du(tracked.storeDir);
    const inProcess = series();
    const trackedHashed: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await editRandomFiles(ws, gen.files, 10, 1000 + r, `edit ${r}`);
      await sleep(20); // watcher latency
      inProcess.loads.push(load());
      t = now();
      const s = await tracked.snapshot(session.sessionId, anchor());
      inProcess.ours.push(now() - t);
      trackedHashed.push(s.hashedFiles);
      inProcess.ref.push(await git.checkpoint(`tracked ${r}`));
    }

    // 3. the same through the CLI: a fresh process each time, persisted stat index, no watcher, no service
    const fresh = series();
    const cliSnapshot = (id: string) => {
      const r = spawnSync(process.execPath, [cli, 'snapshot', sessionRef, '--anchor', id, '--workspace', ws, '--home', home, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, AGENT_REWIND_SERVICE: 'off' },
      });
      if (r.status !== 0) throw new Error(`CLI snapshot failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as { hashedFiles: number };
    };
    await tracked.dispose(); // saves the stat index for fresh processes
    cliSnapshot(anchor()); // brings the persisted stat index up to date
    for (let r = 0; r < cliRounds; r++) {
      await editRandomFiles(ws, gen.files, 10, 1000 + (100 + r), `edit ${100 + r}`);
      fresh.loads.push(load());
      t = now();
      cliSnapshot(anchor());
      fresh.ours.push(now() - t);
      fresh.ref.push(await git.checkpoint(`cli ${r}`));
    }

    // 3b. the floor of any fresh Node process: start-up alone, and start-up plus one lstat per file (relative paths,
    // nothing read, hashed or written); what a CLI snapshot must do comes on top of the second
    const pathList = join(base, 'paths.json');
    await writeFile(pathList, JSON.stringify(gen.files));
    const lstatOnly = `const fs = require('fs'); for (const p of JSON.parse(fs.readFileSync(${JSON.stringify(pathList)}, 'utf8'))) fs.lstatSync(p, { throwIfNoEntry: false });`;
    const floorStart = series();
    const floorLstat = series();
    for (let r = 0; r < cliRounds; r++) {
      floorStart.loads.push(load());
      t = now();
      spawnSync(process.execPath, ['-e', '0'], { cwd: ws });
      floorStart.ours.push(now() - t);
      floorLstat.loads.push(load());
      t = now();
      spawnSync(process.execPath, ['-e', lstatOnly], { cwd: ws });
      floorLstat.ours.push(now() - t);
    }

    // 4. store size after many small checkpoints
    const sizing = new FileCheckpointer({ workspaceRoot: ws, home });
    await sizing.startWatching();
    await sizing.snapshot(session.sessionId, anchor());
    for (let r = 0; r < sizeRounds; r++) {
      await editRandomFiles(ws, gen.files, 10, 1000 + (1000 + r), `edit ${1000 + r}`);
      await sleep(20);
      await sizing.snapshot(session.sessionId, `size-${r}`);
      await git.checkpoint(`size ${r}`);
    }
    await sizing.whenCompacted(); // as git's automatic gc is waited for after each commit
    const sizeLoad = load();
    const storeBytes = await du(sizing.storeDir);
    // the same store had nothing been compacted: what the compaction took off the first snapshot's packs added back
    const uncompactedBytes = storeBytes + (beforeCompaction - afterCompaction);
    const gitBytes = await du(join(base, 'shadow.git'));

    // 5. dry run and restore of many changed files (in-process, watcher-fed), each round a different set of files
    // changed and then brought back; git's preview and restore of the same change right after
    const target = anchor();
    await sizing.snapshot(session.sessionId, target);
    await git.checkpoint('restore target');
    const userAnchor = { checkpointingEnabled: true, kind: 'user-message' as const };
    const dry = series();
    const restore = series();
    for (let r = 0; r < restoreRounds; r++) {
      // each restore's pre-restore snapshot stores 1,000 files: after two the store is due for compaction again, which
      // runs in the background; waited for here, untimed, as git's gc after each commit is
      await sizing.whenCompacted();
      await editRandomFiles(ws, gen.files, restoreCount, 1000 + (5000 + r), `edit ${5000 + r}`);
      await sleep(50);
      dry.loads.push(load());
      t = now();
      const d = await sizing.rewindFiles(session.sessionId, target, { dryRun: true, anchor: userAnchor });
      dry.ours.push(now() - t);
      restore.loads.push(load());
      t = now();
      const real = await sizing.rewindFiles(session.sessionId, target, { anchor: userAnchor });
      restore.ours.push(now() - t);
      if (d.filesChanged.length !== restoreCount || real.filesChanged.length !== restoreCount) {
        throw new Error(`expected ${restoreCount} changed files, dry run saw ${d.filesChanged.length}, restore ${real.filesChanged.length}`);
      }
      // the same changes again (same content), then what the shadow-git tools do for a preview and a restore
      await editRandomFiles(ws, gen.files, restoreCount, 1000 + (5000 + r), `edit ${5000 + r}`);
      dry.ref.push(git.timed(['diff', '--stat', 'HEAD']));
      restore.ref.push(git.timed(['reset', '-q', '--hard', 'HEAD']) + git.timed(['clean', '-q', '-fd']));
      // git rewrote those files (same bytes, new mtimes): the watcher-fed model catches up, untimed, so that the next
      // round's dry run looks at its own 1,000 changes only, as the first round's does
      await sleep(50);
      await sizing.rewindFiles(session.sessionId, target, { dryRun: true, anchor: userAnchor });
    }
    await sizing.dispose();

    const ratio = (s: Series, f: (xs: number[]) => number) => f(s.ours) / f(s.ref);
    const rows = [
      {
        what: `first snapshot (${fileCount.toLocaleString('en')} files, ${fmtMB(gen.totalBytes)}; ${firstRounds} runs)`,
        s: first,
        refLabel: 'first commit',
        target: '≤ 0.6×',
        ok: ratio(first, p50) <= 0.6,
      },
      {
        what: `snapshot after 10 changed files, in-process watcher + tracker (${rounds} runs)`,
        s: inProcess,
        refLabel: 'next commit',
        target: '≤ 0.1×',
        ok: ratio(inProcess, p50) <= 0.1,
      },
      {
        what: `snapshot after 10 changed files, CLI fresh process + stat index, no service (${cliRounds} runs)`,
        s: fresh,
        refLabel: 'next commit',
        target: '≤ 1.0×',
        ok: ratio(fresh, p50) <= 1,
      },
      {
        what: `dry run of ${restoreCount.toLocaleString('en')} changed files, exact per-file line counts (${restoreRounds} runs)`,
        s: dry,
        refLabel: 'git diff --stat',
        target: '< 250 ms',
        ok: p50(dry.ours) < 250,
      },
      {
        what: `restore of ${restoreCount.toLocaleString('en')} changed files, undo data and journal included (${restoreRounds} runs)`,
        s: restore,
        refLabel: 'reset --hard + clean',
        target: '< 500 ms',
        ok: p50(restore.ours) < 500,
      },
    ];
    const storeOk = storeBytes <= 0.9 * gitBytes;
    const floorRow = (label: string, s: Series) =>
      `| floor: ${label} | ${fmtS(p50(s.ours))} / ${fmtS(p95(s.ours))} | | ${(p50(s.ours) / p50(fresh.ref)).toFixed(2)}× git's next commit (p50) | | | ${loadText(s)} |`;
    const markdown = [
      '| measure | agent-rewind p50 / p95 | Cline-style shadow git p50 / p95 | ratio p50 / p95 | target | met | load (1 min) |',
      '|---|---:|---:|---:|---:|:-:|---|',
      ...rows.map(
        (r) =>
          `| ${r.what} | ${fmtS(p50(r.s.ours))} / ${fmtS(p95(r.s.ours))} | ${fmtS(p50(r.s.ref))} / ${fmtS(p95(r.s.ref))} (${r.refLabel}) | ${ratio(r.s, p50).toFixed(3)}× / ${ratio(r.s, p95).toFixed(3)}× | ${r.target} | ${mark(r.ok)} | ${loadText(r.s)} |`,
      ),
      floorRow('`node -e 0`', floorStart),
      floorRow('`node` + one lstat per file, nothing else', floorLstat),
      `| store size after ${sizeRounds} more snapshots of 10 changed files, after compaction (git: after its gc) | ${fmtMB(storeBytes)} | ${fmtMB(gitBytes)} | ${(storeBytes / gitBytes).toFixed(3)}× | ≤ 0.9× | ${mark(storeOk)} | ${sizeLoad.toFixed(2)} |`,
      `| same, had nothing been compacted (for scale: a first snapshot's blobs are only Huffman-coded until then) | ${fmtMB(uncompactedBytes)} | | ${(uncompactedBytes / gitBytes).toFixed(3)}× | | | |`,
      '',
      `Notes: targets are judged on p50 (p95 beside it); load is the 1-minute load average when each sample started (median, min–max), on 2 cores shared with other work. The dry-run and restore targets are absolute; the git figures beside them are for scale only (git keeps no undo and overwrites your own edits). Store and shadow repository sizes are bytes on disk (\`du\`-style, block-rounded) after every checkpoint of the run. ` +
        `The first snapshot stored ${fmtMB(firstSummary!.newBytes)} for ${firstSummary!.files.toLocaleString('en')} files (store on disk: ${fmtMB(firstWritten)}); the compaction the next (tracked) checkpointer started in the background (deflate level 6 with a dictionary, on its own thread; untimed and waited for, as git's gc is) took ${fmtS(compactionMs)} and took the store from ${fmtMB(beforeCompaction)} to ${fmtMB(afterCompaction)}. ` +
        `Watcher set-up (once per session, not in the figures): ${fmtS(watchSetup)}; files re-read per tracked snapshot: ${trackedHashed.join(', ')}. ` +
        `CLI times are wall-clock for the whole process (Node start included, \`AGENT_REWIND_SERVICE=off\`). The floor rows are any fresh Node process on this machine in the same run: what a CLI snapshot must do comes on top of the second. ` +
        `Git may run its automatic gc in the background; the bench waits for it between measurements.`,
    ].join('\n');
    return { title: 'File checkpoints vs a Cline-style shadow git repository', markdown, ok: rows.every((r) => r.ok) && storeOk };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const mod: BenchModule = { run };
export default mod;
