// A first snapshot at monorepo scale and a restore of 1,000 changed files (issue 26, item 4), against a Cline-style
// shadow git repository on the same tree, same run. Targets, judged on p50 (p95 and the 1-minute load beside):
// the first snapshot of 200,000 files ≤ 0.5× git's first commit (`git add . && git commit`); the restore of 1,000
// changed files, undo data and journal included, ≤ 300 ms. CPU time is reported beside the wall clock: on two cores
// shared with other work a side's wall time is mostly its wait for a core, its CPU time much less so.
// AGENT_REWIND_BENCH_FIRST_FILES (default 200000) and AGENT_REWIND_BENCH_FIRST_ROUNDS (default 2) size the first part;
// AGENT_REWIND_BENCH_FIRST_ROUNDS=0 leaves it out (its row then says so), for a run of the restore alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rename, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files';
import { editRandomFiles, fmtMs, git, now, sleep } from './bench-tools';
import { median, percentile, type BenchModule, type BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

const load = () => loadavg()[0]!;
const p50 = (xs: number[]) => median(xs);
const p95 = (xs: number[]) => percentile(xs, 95);
const loadText = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
const mark = (ok: boolean) => (ok ? '✅' : '❌');
/** How long the restore part waits for the first store's background compaction before it starts anyway. */
const COMPACTION_WAIT_MS = 5 * 60_000;

/** CPU time (user + system, ms) of this process's reaped children so far, from /proc (Linux); undefined elsewhere. */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[13]) + Number(f[14])) * 1000) / 100; // cutime + cstime, in USER_HZ (100 on Linux)
  } catch {
    return undefined;
  }
}

const ownCpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** How many of the floor's files are in flight on the thread pool at once. */
const FLOOR_IN_FLIGHT = 8;

/**
 * The file system's part of a restore, for scale: each of `paths` replaced by `content` through a new temp file beside
 * it and a rename over it, as the restore writes (so that no reader ever sees half a file), at most `inFlight` at once
 * through the thread pool; nothing else (no snapshot, journal, undo or check). Wall and CPU ms.
 */
async function replaceFloor(root: string, paths: string[], content: Buffer, tag: string, inFlight = FLOOR_IN_FLIGHT): Promise<{ ms: number; cpu: number }> {
  const c = ownCpuMs();
  const t = now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < paths.length; i = next++) {
      const dest = join(root, paths[i]!);
      const tmp = `${dest}.floor-${tag}`;
      const fh = await open(tmp, 'wx', 0o644);
      try {
        await fh.write(content);
      } finally {
        await fh.close();
      }
      await rename(tmp, dest);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { ms: now() - t, cpu: ownCpuMs() - c };
}

/** Whole files read once, so that both sides start from the same page cache (whoever went first paid the cold reads). */
async function warm(root: string, files: string[]): Promise<void> {
  if (files.length === 0) return;
  execFileSync('sync');
  for (const f of files) await readFile(join(root, f));
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const firstCount = quick ? 2000 : Number(process.env.AGENT_REWIND_BENCH_FIRST_FILES ?? 200_000);
  const firstRounds = quick ? 1 : Number(process.env.AGENT_REWIND_BENCH_FIRST_ROUNDS ?? 2);
  const restoreFiles = quick ? 2000 : 50_000;
  const restoreCount = quick ? 200 : 1000;
  const restoreRounds = quick ? 3 : 7;
  const base = await mkdtemp(join(tmpdir(), 'arw-first-bench-'));
  try {
    // 1. first snapshots: a new store and a new shadow repository each round, read-only on the generated tree; the
    // order alternates, and the disk is synced between the two, so neither pays for the other's writes
    const gen = firstRounds > 0 ? await generateWorkspace(firstCount) : { root: '', files: [], totalBytes: 0 };
    await warm(gen.root, gen.files);
    const ours: number[] = [];
    const ourCpu: number[] = [];
    const ref: number[] = [];
    const refCpu: number[] = [];
    const loads: number[] = [];
    let stored = { files: 0, newBytes: 0 };
    for (let r = 0; r < firstRounds; r++) {
      const gitDir = join(base, `shadow-${r}.git`);
      const home = join(base, `home-${r}`);
      const runGit = () => {
        git(gitDir, gen.root, ['init', '-q']);
        for (const [k, v] of [
          ['gc.auto', '0'],
          ['user.name', 'bench'],
          ['user.email', 'bench@example.invalid'],
          ['commit.gpgSign', 'false'],
        ] as const)
          git(gitDir, gen.root, ['config', k, v]);
        loads.push(load());
        const c = childrenCpuMs();
        const t = now();
        git(gitDir, gen.root, ['add', '.']);
        git(gitDir, gen.root, ['commit', '-q', '--no-verify', '-m', 'first']);
        ref.push(now() - t);
        const c2 = childrenCpuMs();
        if (c !== undefined && c2 !== undefined) refCpu.push(c2 - c);
      };
      const runOurs = async () => {
        const fc = new FileCheckpointer({ workspaceRoot: gen.root, home });
        const c = ownCpuMs();
        const t = now();
        const s = await fc.snapshot('first', 'first');
        ours.push(now() - t);
        ourCpu.push(ownCpuMs() - c); // its hashing thread included (one process)
        stored = { files: s.files, newBytes: s.newBytes };
        await fc.dispose();
      };
      if (r % 2 === 0) {
        runGit();
        execFileSync('sync');
        await runOurs();
      } else {
        await runOurs();
        execFileSync('sync');
        runGit();
      }
      await rm(home, { recursive: true, force: true });
      await rm(gitDir, { recursive: true, force: true });
      execFileSync('sync');
    }

    console.log(
      `first snapshot: ours ${ours.map(fmtMs).join(', ')} (CPU ${ourCpu.map(fmtMs).join(', ')}); git ${ref.map(fmtMs).join(', ')} (CPU ${refCpu.map(fmtMs).join(', ')})`,
    );

    // 2. restore of 1,000 changed files on a copy of a smaller tree (the files bench's): a tracked checkpointer (the
    // extension's, the service's), a different set of files changed each round, its dry run first as the UI does
    const rgen = await generateWorkspace(restoreFiles);
    const ws = join(base, 'ws');
    execFileSync('cp', ['-a', rgen.root, ws]);
    await warm(ws, rgen.files);
    // the floor's own copy, where nothing watches: the same files replaced each round, right after the restore
    const floorWs = join(base, 'floor-ws');
    execFileSync('cp', ['-a', rgen.root, floorWs]);
    await warm(floorWs, rgen.files);
    const floor: number[] = [];
    const floorCpu: number[] = [];
    const home = join(base, 'home-restore');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.startWatching();
    await fc.snapshot('s', 'first');
    await sleep(2100); // past the racy window of the files just copied: the target's hashes are settled ones
    await fc.snapshot('s', 'target');
    // the compaction the first snapshot made due (its own low-priority thread, as in a service right after a first
    // snapshot) is waited for, up to COMPACTION_WAIT_MS: it is not the restore's work, and while it runs it takes a
    // core and reads the packs the restore reads; how long it took, or that it was still running, is reported
    const compactStart = now();
    const compacted = await Promise.race([
      fc.whenCompacted().then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), COMPACTION_WAIT_MS).unref()),
    ]);
    const compactWait = now() - compactStart;
    const anchor = { checkpointingEnabled: true, kind: 'user-message' as const };
    const restore: number[] = [];
    const restoreCpu: number[] = [];
    const restoreLoads: number[] = [];
    for (let r = 0; r < restoreRounds; r++) {
      const edited = await editRandomFiles(ws, rgen.files, restoreCount, 1000 + (7000 + r), `edit ${7000 + r}`);
      await sleep(50);
      const dry = await fc.rewindFiles('s', 'target', { dryRun: true, anchor });
      restoreLoads.push(load());
      const c = ownCpuMs();
      const t = now();
      const real = await fc.rewindFiles('s', 'target', { anchor });
      restore.push(now() - t);
      restoreCpu.push(ownCpuMs() - c);
      const f = await replaceFloor(floorWs, edited, await readFile(join(ws, edited[0]!)), String(r));
      floor.push(f.ms);
      floorCpu.push(f.cpu);
      if (dry.filesChanged.length !== restoreCount || real.filesChanged.length !== restoreCount)
        throw new Error(`expected ${restoreCount} changed files, dry run saw ${dry.filesChanged.length}, restore ${real.filesChanged.length}`);
    }
    await fc.dispose();

    console.log(
      `first snapshot: ours ${ours.map(fmtMs).join(', ')} (CPU ${ourCpu.map(fmtMs).join(', ')}); git ${ref.map(fmtMs).join(', ')} (CPU ${refCpu.map(fmtMs).join(', ')}); load ${loads.map((l) => l.toFixed(1)).join(', ')}`,
    );
    console.log(
      `restore: ${restore.map(fmtMs).join(', ')} (CPU ${restoreCpu.map(fmtMs).join(', ')}); load ${restoreLoads.map((l) => l.toFixed(1)).join(', ')}; floor ${floor.map(fmtMs).join(', ')} (CPU ${floorCpu.map(fmtMs).join(', ')})`,
    );
    const ratio = p50(ours) / p50(ref);
    const firstOk = firstRounds === 0 || ratio <= 0.5;
    const restoreOk = p50(restore) <= 300;
    const cpuText = (xs: number[]) => (xs.length ? `${fmtMs(p50(xs))} / ${fmtMs(p95(xs))}` : 'n/a');
    const markdown = [
      '| measure | agent-rewind p50 / p95 | CPU time p50 / p95 | reference p50 / p95 | its CPU time | ratio p50 / p95 | target | met | load (1 min) |',
      '|---|---:|---:|---:|---:|---:|---|:-:|---|',
      firstRounds === 0
        ? `| first snapshot, ${firstCount.toLocaleString('en')} files | not measured in this run (AGENT_REWIND_BENCH_FIRST_ROUNDS=0) | | | | | ≤ 0.5× | – | |`
        : `| first snapshot, ${firstCount.toLocaleString('en')} files (${(gen.totalBytes / 1e6).toFixed(0)} MB; ${firstRounds} runs) | ${fmtMs(p50(ours))} / ${fmtMs(p95(ours))} | ${cpuText(ourCpu)} | ${fmtMs(p50(ref))} / ${fmtMs(p95(ref))} (git's first commit) | ${cpuText(refCpu)} | ${ratio.toFixed(3)}× / ${(p95(ours) / p95(ref)).toFixed(3)}× | ≤ 0.5× | ${mark(firstOk)} | ${loadText(loads)} |`,
      `| restore of ${restoreCount.toLocaleString('en')} changed files of ${restoreFiles.toLocaleString('en')}, undo data and journal included (${restoreRounds} runs) | ${fmtMs(p50(restore))} / ${fmtMs(p95(restore))} | ${cpuText(restoreCpu)} | ${fmtMs(p50(floor))} / ${fmtMs(p95(floor))} (floor below) | ${cpuText(floorCpu)} | ${(p50(restore) / p50(floor)).toFixed(2)}× / ${(p95(restore) / p95(floor)).toFixed(2)}× | ≤ 300 ms | ${mark(restoreOk)} | ${loadText(restoreLoads)} |`,
      `| floor: the same ${restoreCount.toLocaleString('en')} files replaced through a temp file and a rename each, ${FLOOR_IN_FLIGHT} at a time on the thread pool, nothing else | ${fmtMs(p50(floor))} / ${fmtMs(p95(floor))} | ${cpuText(floorCpu)} | | | | | | |`,
      '',
      `Notes: the first snapshot is \`FileCheckpointer.snapshot\` in this process (its hashing thread included in its CPU time), into a new store each run; ${stored.files > 0 ? `it stored ${(stored.newBytes / 1e6).toFixed(0)} MB for ${stored.files.toLocaleString('en')} files` : 'not run this time'} (blobs as they are while the disk keeps up, Huffman-coded while it does not; a compaction recompresses them later, off the snapshot's time). The reference is \`git add . && git commit\` of a new shadow repository on the same tree (gc.auto 0), its CPU time that of its processes. Every file was read once before the first run, the disk synced between the two sides, and the order alternated. ` +
        `The restore is \`rewindFiles\` of a tracked checkpointer (as the extension and the service run it) after its dry run, with the pre-restore snapshot, the journal and the undo record written and fsynced. The floor is the file system's part of it alone, measured right after each restore on a copy of the same tree that nothing watches: the same files, each written to a new temp file beside it and renamed over it (as the restore writes, so that no reader ever sees half a file), ${FLOOR_IN_FLIGHT} in flight through the thread pool, with nothing read, checked, journalled or kept for undo; its ratio is the restore's time over it. ${compacted ? `The restore started after the compaction its first snapshot made due had finished (${fmtMs(compactWait)} of waiting)` : `The compaction its first snapshot made due was still running after ${fmtMs(compactWait)} of waiting, so it ran beside the restores (its own low-priority thread; its CPU time counts in the process's)`}. Load is the 1-minute load average when each sample started (median, min–max), on ${cpus().length} cores shared with other work.`,
    ].join('\n');
    return {
      title: `First snapshot at ${firstCount.toLocaleString('en')} files and restore of ${restoreCount.toLocaleString('en')} files`,
      markdown,
      ok: firstOk && restoreOk,
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const mod: BenchModule = { run };
export default mod;
