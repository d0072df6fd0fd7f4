// File checkpoints (docs/ARCHITECTURE.md, file checkpoints) against a Cline-style shadow git repository on the same generated tree, same run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { FileCheckpointer } from '../src/core/files';
import { SessionManager } from '../src/core/session';
import { median, type BenchModule, type BenchSection } from './types';
import { generateWorkspace, prng } from './workspace-generator';

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes on disk, like `du -s --block-size=1`. */
async function du(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = await lstat(p);
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
  init(): void {
    this.git(['init', '-q']);
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

/** Appends a line to `count` files picked deterministically (a different set each round). */
async function changeFiles(ws: string, files: string[], count: number, round: number): Promise<string[]> {
  const rand = prng(1000 + round);
  const picked = new Set<string>();
  while (picked.size < count) picked.add(files[Math.floor(rand() * files.length)]!);
  for (const f of picked) {
    const p = join(ws, f);
    await writeFile(p, (await readFile(p, 'utf8')) + `// edit ${round}\n`);
  }
  return [...picked];
}

const fmtS = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtMB = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const mark = (ok: boolean) => (ok ? '✅' : '❌');

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 3 : 5;
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
    await build({
      entryPoints: [join(__dirname, '../src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: cli,
      logLevel: 'error',
    });
    const session = SessionManager.create(ws, { home, deferUntilAssistant: false });
    const anchors: string[] = [];
    for (let i = 0; i < 3 + rounds * 2 + sizeRounds + 2; i++)
      anchors.push(session.appendMessage({ role: 'user', content: `message ${i}`, timestamp: Date.now() }));
    await session.flush();
    const sessionFile = session.sessionFile!;
    let next = 0;
    const anchor = () => anchors[next++]!;

    // 1. first snapshot
    const gitFirst = await git.checkpoint('first');
    execFileSync('sync'); // git's 50,000 new object files written back before our turn, not during it
    const first = new FileCheckpointer({ workspaceRoot: ws, home });
    let t = now();
    const firstSummary = await first.snapshot(session.sessionId, anchor());
    const oursFirst = now() - t;
    await first.dispose();

    // 2. incremental, in-process: fs.watch watcher + tracker
    const tracked = new FileCheckpointer({ workspaceRoot: ws, home });
    t = now();
    await tracked.startWatching();
    const watchSetup = now() - t;
    await tracked.snapshot(session.sessionId, anchor()); // the tracker's first (full) check
    const gitSecond: number[] = [];
    const oursTracked: number[] = [];
    const trackedHashed: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await changeFiles(ws, gen.files, 10, r);
      await sleep(20); // watcher latency
      t = now();
      const s = await tracked.snapshot(session.sessionId, anchor());
      oursTracked.push(now() - t);
      trackedHashed.push(s.hashedFiles);
      gitSecond.push(await git.checkpoint(`tracked ${r}`));
    }

    // 3. the same through the CLI: a fresh process each time, persisted stat cache, no watcher
    const oursCli: number[] = [];
    const gitCli: number[] = [];
    const cliSnapshot = (id: string) => {
      const r = spawnSync(process.execPath, [cli, 'snapshot', sessionFile, '--anchor', id, '--workspace', ws, '--home', home, '--json'], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`CLI snapshot failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as { hashedFiles: number };
    };
    await tracked.dispose(); // saves the stat cache for fresh processes
    cliSnapshot(anchor()); // brings the persisted stat cache up to date
    for (let r = 0; r < rounds; r++) {
      await changeFiles(ws, gen.files, 10, 100 + r);
      t = now();
      cliSnapshot(anchor());
      oursCli.push(now() - t);
      gitCli.push(await git.checkpoint(`cli ${r}`));
    }

    // 3b. the floor of any fresh Node process: start-up alone, and start-up plus one lstat per file (relative paths,
    // nothing read, hashed or written); what a CLI snapshot must do comes on top of the second
    const pathList = join(base, 'paths.json');
    await writeFile(pathList, JSON.stringify(gen.files));
    const lstatOnly = `const fs = require('fs'); for (const p of JSON.parse(fs.readFileSync(${JSON.stringify(pathList)}, 'utf8'))) fs.lstatSync(p, { throwIfNoEntry: false });`;
    const floorStart: number[] = [];
    const floorLstat: number[] = [];
    for (let r = 0; r < rounds; r++) {
      t = now();
      spawnSync(process.execPath, ['-e', '0'], { cwd: ws });
      floorStart.push(now() - t);
      t = now();
      spawnSync(process.execPath, ['-e', lstatOnly], { cwd: ws });
      floorLstat.push(now() - t);
    }

    // 4. store size after many small checkpoints
    const sizing = new FileCheckpointer({ workspaceRoot: ws, home });
    await sizing.startWatching();
    await sizing.snapshot(session.sessionId, anchor());
    for (let r = 0; r < sizeRounds; r++) {
      await changeFiles(ws, gen.files, 10, 1000 + r);
      await sleep(20);
      await sizing.snapshot(session.sessionId, `size-${r}`);
      await git.checkpoint(`size ${r}`);
    }
    const storeBytes = await du(sizing.storeDir);
    const gitBytes = await du(join(base, 'shadow.git'));

    // 5. dry run and restore of many changed files (in-process, watcher-fed)
    const target = anchor();
    await sizing.snapshot(session.sessionId, target);
    await git.checkpoint('restore target');
    await changeFiles(ws, gen.files, restoreCount, 5000);
    await sleep(50);
    const userAnchor = { checkpointingEnabled: true, kind: 'user-message' as const };
    t = now();
    const dry = await sizing.rewindFiles(session.sessionId, target, { dryRun: true, anchor: userAnchor });
    const dryMs = now() - t;
    t = now();
    const real = await sizing.rewindFiles(session.sessionId, target, { anchor: userAnchor });
    const restoreMs = now() - t;
    await sizing.dispose();
    if (dry.filesChanged.length !== restoreCount || real.filesChanged.length !== restoreCount) {
      throw new Error(`expected ${restoreCount} changed files, dry run saw ${dry.filesChanged.length}, restore ${real.filesChanged.length}`);
    }
    // the same 1,000 changes again (same content), then what the shadow-git tools do for a preview and a restore
    await changeFiles(ws, gen.files, restoreCount, 5000);
    const gitDiffMs = git.timed(['diff', '--stat', 'HEAD']);
    const gitRestoreMs = git.timed(['reset', '-q', '--hard', 'HEAD']) + git.timed(['clean', '-q', '-fd']);

    const mTracked = median(oursTracked);
    const mGitSecond = median(gitSecond);
    const mCli = median(oursCli);
    const mGitCli = median(gitCli);
    const mFloorStart = median(floorStart);
    const mFloorLstat = median(floorLstat);
    const rows = [
      {
        what: `first snapshot (${fileCount.toLocaleString('en')} files, ${fmtMB(gen.totalBytes)})`,
        ours: fmtS(oursFirst),
        ref: `${fmtS(gitFirst)} (first commit)`,
        ratio: oursFirst / gitFirst,
        target: '≤ 1×',
        ok: oursFirst <= gitFirst,
      },
      {
        what: `snapshot after 10 changed files, in-process watcher + tracker (median of ${rounds})`,
        ours: fmtS(mTracked),
        ref: `${fmtS(mGitSecond)} (next commit)`,
        ratio: mTracked / mGitSecond,
        target: '≤ 0.1×',
        ok: mTracked * 10 <= mGitSecond,
      },
      {
        what: `snapshot after 10 changed files, CLI fresh process + stat cache (median of ${rounds})`,
        ours: fmtS(mCli),
        ref: `${fmtS(mGitCli)} (next commit)`,
        ratio: mCli / mGitCli,
        target: '≤ 1×',
        ok: mCli <= mGitCli,
      },
      {
        what: `dry run of ${restoreCount.toLocaleString('en')} changed files (per-file line counts)`,
        ours: fmtS(dryMs),
        ref: `${fmtS(gitDiffMs)} (git diff --stat)`,
        ratio: dryMs / gitDiffMs,
        target: '< 1 s',
        ok: dryMs < 1000,
      },
      {
        what: `restore of ${restoreCount.toLocaleString('en')} changed files (pre-restore snapshot + journal included)`,
        ours: fmtS(restoreMs),
        ref: `${fmtS(gitRestoreMs)} (reset --hard + clean)`,
        ratio: restoreMs / gitRestoreMs,
        target: '< 1 s',
        ok: restoreMs < 1000,
      },
      {
        what: `store size after ${sizeRounds} more snapshots of 10 changed files`,
        ours: fmtMB(storeBytes),
        ref: fmtMB(gitBytes),
        ratio: storeBytes / gitBytes,
        target: '≤ 1×',
        ok: storeBytes <= gitBytes,
      },
    ];
    const markdown = [
      '| measure | agent-rewind | Cline-style shadow git | ratio | target | met |',
      '|---|---:|---:|---:|---:|:-:|',
      ...rows.map((r) => `| ${r.what} | ${r.ours} | ${r.ref} | ${Number.isNaN(r.ratio) ? '—' : `${r.ratio.toFixed(3)}×`} | ${r.target} | ${mark(r.ok)} |`),
      '',
      `Notes: the dry-run and restore targets are absolute (< 1 s); the git figures beside them are for scale only (git keeps no undo and overwrites your own edits). Store and shadow repository sizes are bytes on disk (\`du\`-style, block-rounded) after every checkpoint of the run (${1 + rounds * 2 + sizeRounds + 3} snapshots vs ${2 + rounds * 2 + sizeRounds} commits). ` +
        `The first snapshot stored ${fmtMB(firstSummary.newBytes)} for ${firstSummary.files.toLocaleString('en')} files. ` +
        `Watcher set-up (once per session, not in the figures): ${fmtS(watchSetup)}; files re-read per tracked snapshot: ${trackedHashed.join(', ')}. ` +
        `CLI times are wall-clock for the whole process (Node start included). ` +
        `The floor of any fresh Node process on this machine, same run (median of ${rounds}): start-up alone ${fmtS(mFloorStart)} (${(mFloorStart / mGitCli).toFixed(2)}× git's next commit); start-up plus one lstat per file and nothing else ${fmtS(mFloorLstat)} (${(mFloorLstat / mGitCli).toFixed(2)}×). ` +
        `Git may run its automatic gc in the background; the bench waits for it between measurements.`,
    ].join('\n');
    return { title: 'File checkpoints vs a Cline-style shadow git repository', markdown, ok: rows.every((r) => r.ok) };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const mod: BenchModule = { run };
export default mod;
