// The workspace timeline (issue 27): `history` and `blame` of a file on a 10,000-snapshot timeline of a 50,000-file
// workspace (target < 100 ms each, p50), what attribution adds to a dry run of 1,000 changed files (target < 5 %),
// and the timeline's bytes per snapshot; and the claim lookup a dry run makes first, with many sessions present
// (claim-lookup.ts: no session read when no change needs a claim, one when one does).
//
// How the timeline is built, fast: one real first snapshot (FileCheckpointer) of the generated workspace; then every
// later snapshot is written the way a snapshot writes one, without scanning the workspace: the changed blobs and the
// trees on their paths go into packs through the store's own PackWriter (one pack per 500 snapshots, where real
// snapshots write one each and compaction merges them), the record through SnapshotRecords.put and the timeline line
// through Timeline.append, so records, lines and objects are byte for byte the formats real snapshots write. The
// workspace files are then set to the last snapshot's contents, so "now" is that snapshot.
//
// Sessions: two agents' sessions take turns (a prompt start, then a turn end with 3 changed files); every fifth prompt
// is preceded by a hand edit of one file (the user's interval). A fifth of the changes go to 20 "hot" files, so a hot
// file has about 150 changes in the full run; the rest go to files picked at random (most of those changed once).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files';
import { SnapshotRecords } from '../src/core/files/snapshot-records';
import { Timeline } from '../src/core/files/timeline';
import { TimelineChanges } from '../src/core/files/timeline-changes';
import { hashObject, ObjectStore, type PackWriter } from '../src/core/files/store/object-store';
import { encodeTree, readTree, type TreeEntry } from '../src/core/files/store/tree';
import { bundleCli, editRandomFiles, fmtMs, now, sleep } from './bench-tools';
import { claimLookup, claimLookupRows } from './claim-lookup';
import { median, percentile, type BenchModule, type BenchSection } from './types';
import { generateWorkspace, prng } from './workspace-generator';

const SESSION_A = 'bench-session-a';
const SESSION_B = 'bench-session-b';
const HOT = 20;
const load = () => loadavg()[0]!;
const mark = (ok: boolean) => (ok ? '✅' : '❌');

/** The workspace's folders as stored, loaded lazily from a root tree, changed in memory and written back as trees. */
class TreeEditor {
  private readonly dirs = new Map<string, Map<string, TreeEntry>>();
  private readonly dirty = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private root: string,
  ) {}

  private async dir(rel: string): Promise<Map<string, TreeEntry>> {
    let d = this.dirs.get(rel);
    if (d) return d;
    let hash = this.root;
    if (rel !== '') {
      const parent = await this.dir(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
      const e = parent.get(rel.slice(rel.lastIndexOf('/') + 1));
      if (e?.kind !== 'dir') throw new Error(`${rel} is not a folder of the snapshot`);
      hash = e.hash;
    }
    d = new Map((await readTree(this.store, hash)).map((e) => [e.name, e]));
    this.dirs.set(rel, d);
    return d;
  }

  async setFile(w: PackWriter, path: string, data: Buffer): Promise<void> {
    const folder = path.slice(0, path.lastIndexOf('/'));
    const name = path.slice(path.lastIndexOf('/') + 1);
    const blob = hashObject('blob', data);
    if (!w.has(blob) && !this.store.has(blob)) await w.add('blob', blob, data);
    const d = await this.dir(folder);
    d.set(name, { name, kind: 'file', mode: d.get(name)?.mode ?? 0o644, hash: blob, size: data.length });
    for (let f = folder; ; f = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '') {
      this.dirty.add(f);
      if (f === '') break;
    }
  }

  /** Writes the changed folders' trees, deepest first; returns the new root. */
  async commitTrees(w: PackWriter): Promise<string> {
    const order = [...this.dirty].sort((a, b) => (b === '' ? -1 : b.split('/').length) - (a === '' ? -1 : a.split('/').length));
    for (const rel of order) {
      const entries = [...this.dirs.get(rel)!.values()];
      const data = encodeTree(entries);
      const hash = hashObject('tree', data);
      if (!w.has(hash) && !this.store.has(hash)) await w.add('tree', hash, data);
      if (rel === '') this.root = hash;
      else {
        const parent = this.dirs.get(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '')!;
        const name = rel.slice(rel.lastIndexOf('/') + 1);
        parent.set(name, { ...parent.get(name)!, hash });
      }
    }
    this.dirty.clear();
    return this.root;
  }
}

/** A line of the file replaced or a line inserted, at a seeded place: what an agent's or a hand edit does. */
function editText(data: Buffer, rand: () => number, note: string): Buffer {
  const lines = data.toString('utf8').split(/(?<=\n)/);
  const at = Math.floor(rand() * lines.length);
  if (rand() < 0.5) lines[at] = `  ${note};\n`;
  else lines.splice(at, 0, `  ${note};\n`);
  return Buffer.from(lines.join(''));
}

interface Built {
  points: number;
  buildMs: number;
  hotFiles: string[];
  randomFiles: string[];
  changesOf: Map<string, number>;
}

/** The timeline after the first real snapshot: `count` more snapshots written as described at the top. */
async function buildTimeline(ws: string, storeDir: string, files: string[], firstRoot: string, count: number): Promise<Built> {
  const t0 = now();
  const rand = prng(7);
  const store = await ObjectStore.open(storeDir);
  const records = new SnapshotRecords(storeDir);
  const timeline = new Timeline(storeDir, records);
  const changes = new TimelineChanges(storeDir);
  const editor = new TreeEditor(store, firstRoot);
  const hotFiles = Array.from({ length: HOT }, (_, i) => files[Math.floor((i * files.length) / HOT)]!);
  const content = new Map<string, Buffer>();
  const changesOf = new Map<string, number>();
  /** The files this snapshot changed, with their new blobs: its line of the changed-path index. */
  const changedNow = new Map<string, string>();
  const randomFiles: string[] = [];
  const start = Date.now() - count * 1000;
  let w = store.newPack();
  let prompt = 0;
  let root = firstRoot;
  const change = async (path: string, note: string) => {
    const before = content.get(path) ?? (await readFile(join(ws, path)));
    const after = editText(before, rand, note);
    content.set(path, after);
    changesOf.set(path, (changesOf.get(path) ?? 0) + 1);
    await editor.setFile(w, path, after);
    changedNow.set(path, hashObject('blob', after));
  };
  for (let i = 0; i < count; i++) {
    const promptStart = i % 2 === 1; // the first (real) snapshot is prompt 0's start: this ends on a turn end
    const sessionId = prompt % 2 === 0 ? SESSION_A : SESSION_B;
    if (promptStart && prompt % 5 === 4) await change(files[Math.floor(rand() * files.length)]!, `hand edit before prompt ${prompt}`);
    if (!promptStart)
      for (let k = 0; k < 3; k++) {
        const path = rand() < 0.2 ? hotFiles[Math.floor(rand() * HOT)]! : files[Math.floor(rand() * files.length)]!;
        if (!hotFiles.includes(path) && randomFiles.length < 50) randomFiles.push(path);
        await change(path, `prompt ${prompt} change ${k}`);
      }
    const previousRoot = root;
    root = await editor.commitTrees(w);
    if (i % 500 === 499 || i === count - 1) {
      await w.commit(false);
      w = store.newPack();
    }
    const rec = {
      v: 1 as const,
      sessionId,
      anchorId: promptStart ? `prompt-${prompt}` : `prompt-${prompt}:turn-end`,
      kind: promptStart ? ('user-message' as const) : ('turn-end' as const),
      root,
      createdAt: new Date(start + i * 1000).toISOString(),
      files: files.length,
      totalBytes: 0,
    };
    await records.put(rec);
    timeline.append(rec);
    // the line a snapshot writes after its point (FileCheckpointer computes it from the trees; their pack is not
    // written yet here, and the paths are known)
    if (root !== previousRoot) changes.append({ from: previousRoot, to: root, paths: [...changedNow] });
    changedNow.clear();
    if (!promptStart) prompt++;
  }
  await w.abort().catch(() => {});
  for (const [path, data] of content) await writeFile(join(ws, path), data);
  return { points: count, buildMs: now() - t0, hotFiles, randomFiles, changesOf };
}

/** The built fixture: the workspace, the home holding its store, and what the build says of it. */
interface Fixture {
  ws: string;
  home: string;
  storeDir: string;
  files: string[];
  firstMs: number;
  built: Built;
  /** Built by an earlier run and copied (AGENT_REWIND_BENCH_TIMELINE_FIXTURE). */
  reused: boolean;
}

type SavedFixture = Pick<Fixture, 'storeDir' | 'firstMs'> & { built: Omit<Built, 'changesOf'> & { changesOf: [string, number][] } };

/** The workspace and its timeline in `base` (ws, home). With AGENT_REWIND_BENCH_TIMELINE_FIXTURE=<dir> it is built
 *  once (the build takes minutes) in `<dir>/<size>/run`, kept as `pristine` beside it, and copied back to `run` by
 *  later runs (a store is found by its workspace's path, so the copy is used at the path it was built at; this run's
 *  dry runs snapshot and rewind in it). */
export async function fixture(base: string, fileCount: number, snapshotCount: number): Promise<Fixture> {
  const gen = await generateWorkspace(fileCount);
  const keep = process.env.AGENT_REWIND_BENCH_TIMELINE_FIXTURE;
  const kept = keep ? join(keep, `${fileCount}-${snapshotCount}`) : undefined;
  const dir = kept ? join(kept, 'run') : base;
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  const pristine = kept && join(kept, 'pristine');
  if (pristine && existsSync(join(pristine, 'fixture.json'))) {
    await rm(dir, { recursive: true, force: true });
    execFileSync('cp', ['-a', pristine, dir]);
    const saved = JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8')) as SavedFixture;
    return { ...saved, ws, home, files: gen.files, built: { ...saved.built, changesOf: new Map(saved.built.changesOf) }, reused: true };
  }
  if (kept) await rm(kept, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  execFileSync('cp', ['-a', gen.root, ws]);
  const t = now();
  const first = new FileCheckpointer({ workspaceRoot: ws, home });
  const firstSummary = await first.snapshot(SESSION_A, 'prompt-0', 'user-message');
  const storeDir = first.storeDir;
  await first.dispose();
  const firstMs = now() - t;
  const built = await buildTimeline(ws, storeDir, gen.files, firstSummary.root, snapshotCount - 1);
  if (pristine) {
    const saved: SavedFixture = { storeDir, firstMs, built: { ...built, changesOf: [...built.changesOf] } };
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify(saved));
    execFileSync('cp', ['-a', dir, pristine]);
  }
  return { ws, home, storeDir, files: gen.files, firstMs, built, reused: false };
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const snapshotCount = quick ? 1000 : 10_000;
  const queryRounds = quick ? 5 : 15;
  const dryRounds = quick ? 3 : 7;
  const cliRounds = quick ? 4 : 20;
  const dryCount = quick ? 200 : 1000;
  const base = await mkdtemp(join(tmpdir(), 'arw-timeline-bench-'));
  try {
    const { ws, home, storeDir, files, firstMs, built, reused } = await fixture(base, fileCount, snapshotCount);
    const gen = { files };
    let t: number;
    const timelineBytes = statSync(join(storeDir, 'timeline.jsonl')).size;
    const indexText = await readFile(join(storeDir, 'timeline-changes.jsonl'), 'utf8');
    const indexBytes = Buffer.byteLength(indexText);
    const indexLines = indexText.split('\n').length - 1;

    // history and blame: each sample on a fresh checkpointer (the timeline parsed and the packs' indexes read again,
    // as a CLI process does, without Node's start), then again on the same one (the extension's or the service's)
    const hot = built.hotFiles.slice(0, 5);
    const cold = built.randomFiles.slice(0, 5);
    const samples = { historyFresh: [] as number[], blameFresh: [] as number[], historyWarm: [] as number[], blameWarm: [] as number[] };
    /** The same samples' CPU time (the process's, all threads): what the wait for a core on a loaded machine leaves out. */
    const cpu = { historyFresh: [] as number[], blameFresh: [] as number[], historyWarm: [] as number[], blameWarm: [] as number[] };
    const cpuNow = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const perKind = { hot: { history: [] as number[], blame: [] as number[] }, cold: { history: [] as number[], blame: [] as number[] } };
    const loads: number[] = [];
    let hotEntries = 0;
    let hotLines = 0;
    for (let r = 0; r < queryRounds; r++) {
      for (const [kind, paths] of [
        ['hot', hot],
        ['cold', cold],
      ] as const) {
        const path = paths[r % paths.length]!;
        loads.push(load());
        const fc = new FileCheckpointer({ workspaceRoot: ws, home });
        let c = cpuNow();
        t = now();
        const h = await fc.fileHistory(path);
        const hMs = now() - t;
        cpu.historyFresh.push(cpuNow() - c);
        const b = await fc.blame(path);
        const fc2 = new FileCheckpointer({ workspaceRoot: ws, home });
        c = cpuNow();
        t = now();
        await fc2.blame(path);
        const bFreshMs = now() - t;
        cpu.blameFresh.push(cpuNow() - c);
        c = cpuNow();
        t = now();
        await fc2.fileHistory(path);
        const hWarmMs = now() - t;
        cpu.historyWarm.push(cpuNow() - c);
        c = cpuNow();
        t = now();
        await fc.blame(path);
        const bWarmMs = now() - t;
        cpu.blameWarm.push(cpuNow() - c);
        await fc.dispose();
        await fc2.dispose();
        samples.historyFresh.push(hMs);
        samples.blameFresh.push(bFreshMs);
        samples.historyWarm.push(hWarmMs);
        samples.blameWarm.push(bWarmMs);
        perKind[kind].history.push(hMs);
        perKind[kind].blame.push(bFreshMs);
        if (kind === 'hot' && h.entries.length === 0) throw new Error(`${path} changed ${built.changesOf.get(path)} times, history is empty`);
        if (kind === 'hot') {
          hotEntries = Math.max(hotEntries, h.entries.length);
          hotLines = Math.max(hotLines, b.lines.length);
        }
      }
    }

    // the CLI as it ships, a process per question (Node's start included): `history` and `blame` of the same files,
    // their CPU time (user + system) from bash's `times` for its finished children; one untimed run first writes the
    // CLI's code cache (src/cli/code-cache.ts), as a first run after an install does
    const cliJs = join(base, 'cli', 'cli.js');
    await bundleCli(cliJs);
    const cliRun = (command: string, path: string) => {
      const script = `"$0" "$1" ${command} "$2" --workspace "$3" --home "$4" --json > /dev/null || exit 1; times`;
      const r = spawnSync('bash', ['-c', script, process.execPath, cliJs, join(ws, path), ws, home], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`agent-rewind ${command} ${path} failed: ${r.stderr}`);
      // `times` prints the shell's user and system time, then its children's: "0m0.123s 0m0.045s"
      const [user, sys] = r.stdout
        .trim()
        .split('\n')
        .at(-1)!
        .split(' ')
        .map((x) => {
          const m = /^(\d+)m([\d.]+)s$/.exec(x);
          return m ? Number(m[1]) * 60_000 + Number(m[2]) * 1000 : NaN;
        });
      return user! + sys!;
    };
    cliRun('history', hot[0]!);
    const cliSamples = { history: [] as number[], blame: [] as number[] };
    const cliCpu = { history: [] as number[], blame: [] as number[] };
    const cliLoads: number[] = [];
    for (let r = 0; r < cliRounds; r++) {
      const path = (r % 2 ? cold : hot)[Math.floor(r / 2) % 5]!;
      for (const command of ['history', 'blame'] as const) {
        cliLoads.push(load());
        t = now();
        const ms = cliRun(command, path);
        cliSamples[command].push(now() - t);
        cliCpu[command].push(ms);
      }
    }

    // attribution's cost: dry runs of `dryCount` files session A changed in its last turn, with the timeline and
    // without it (its reads hidden: the planner then falls back to the session's turn-end rule, the dry run as it was
    // before the timeline), interleaved, the order swapped each round
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.startWatching();
    const realPoints = fc.timeline.pointsWithSession.bind(fc.timeline);
    const userAnchor = { checkpointingEnabled: true, kind: 'user-message' as const };
    const withT: number[] = [];
    const withoutT: number[] = [];
    const dryLoads: number[] = [];
    for (let r = 0; r < dryRounds; r++) {
      await fc.whenCompacted();
      const anchor = `dry-${r}`;
      await fc.snapshot(SESSION_A, anchor, 'user-message');
      await editRandomFiles(ws, gen.files, dryCount, 9000 + r, `dry ${r}`);
      await sleep(50);
      await fc.snapshot(SESSION_A, `${anchor}:turn-end`, 'turn-end');
      const runs: [string, number[]][] = [
        ['with', withT],
        ['without', withoutT],
      ];
      if (r % 2) runs.reverse();
      for (const [mode, out] of runs) {
        fc.timeline.pointsWithSession = mode === 'with' ? realPoints : async () => [];
        dryLoads.push(load());
        t = now();
        const d = await fc.rewindFiles(SESSION_A, anchor, { dryRun: true, anchor: userAnchor });
        out.push(now() - t);
        if (d.filesChanged.length !== dryCount)
          throw new Error(
            `dry run ${mode} the timeline: ${d.filesChanged.length} files, expected ${dryCount}; ${JSON.stringify({ canRewind: d.canRewind, error: d.error, user: d.userModified.length, other: d.otherSessions.length, files: d.files.length, skipped: d.skipped.slice(0, 3) })}`,
          );
      }
      fc.timeline.pointsWithSession = realPoints;
      // undone by hand (untimed): the next round's 1,000 changes are its own
      await fc.rewindFiles(SESSION_A, anchor, { anchor: userAnchor });
    }
    await fc.dispose();

    // the claim lookup a dry run makes before it (engine/turn-writes.ts), with many sessions present: its own small
    // folder (claim-lookup.ts)
    const claims = await claimLookup(base, quick ? 10 : 50, quick ? 3 : 7);

    const p50 = (xs: number[]) => median(xs);
    const p95 = (xs: number[]) => percentile(xs, 95);
    const loadText = (ls: number[]) => `${median(ls).toFixed(2)} (${Math.min(...ls).toFixed(2)}–${Math.max(...ls).toFixed(2)})`;
    const queryRows = [
      { what: '`history <path>`, fresh checkpointer', xs: samples.historyFresh, cpu: cpu.historyFresh },
      { what: '`blame <path>`, fresh checkpointer', xs: samples.blameFresh, cpu: cpu.blameFresh },
      { what: '`history <path>`, warm (same checkpointer again)', xs: samples.historyWarm, cpu: cpu.historyWarm },
      { what: '`blame <path>`, warm (same checkpointer again)', xs: samples.blameWarm, cpu: cpu.blameWarm },
    ].map((r) => ({ ...r, ok: p50(r.xs) < 100 }));
    const addedP50 = p50(withT) / p50(withoutT) - 1;
    const pairs = withT.map((x, i) => x / withoutT[i]! - 1);
    const attributionOk = addedP50 < 0.05;
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    const markdown = [
      '| measure | p50 / p95 | target | met | load (1 min) |',
      '|---|---:|---:|:-:|---|',
      ...queryRows.map(
        (r) =>
          `| ${r.what} (${r.xs.length} samples; CPU time p50 ${fmtMs(p50(r.cpu))}) | ${fmtMs(p50(r.xs))} / ${fmtMs(p95(r.xs))} | < 100 ms | ${mark(r.ok)} | ${loadText(loads)} |`,
      ),
      `| of those, fresh: a hot file (≤ ${hotEntries} history entries, ${hotLines} lines) history / blame | ${fmtMs(p50(perKind.hot.history))} / ${fmtMs(p50(perKind.hot.blame))} (p50) | | | |`,
      `| of those, fresh: a file changed once or twice, history / blame | ${fmtMs(p50(perKind.cold.history))} / ${fmtMs(p50(perKind.cold.blame))} (p50) | | | |`,
      ...(['history', 'blame'] as const).map(
        (c) =>
          `| \`agent-rewind ${c} <path> --json\`, the CLI's whole process, Node's start included (${cliSamples[c].length} samples, hot and rarely changed files alternating; CPU time p50 ${fmtMs(p50(cliCpu[c]))}) | ${fmtMs(p50(cliSamples[c]))} / ${fmtMs(p95(cliSamples[c]))} | | | ${loadText(cliLoads)} |`,
      ),
      `| dry run of ${dryCount.toLocaleString('en')} changed files with attribution (${dryRounds} runs) | ${fmtMs(p50(withT))} / ${fmtMs(p95(withT))} | | | ${loadText(dryLoads)} |`,
      `| the same, timeline hidden (the turn-end rule), interleaved | ${fmtMs(p50(withoutT))} / ${fmtMs(p95(withoutT))} | | | |`,
      `| attribution's added cost (ratio of p50s − 1; per pair: ${pairs.map(pct).join(', ')}) | ${pct(addedP50)} | < 5 % | ${mark(attributionOk)} | |`,
      ...claimLookupRows(claims),
      `| timeline size per snapshot (${(built.points + 1).toLocaleString('en')} lines, ${(timelineBytes / 1e6).toFixed(2)} MB) | ${(timelineBytes / (built.points + 1)).toFixed(0)} bytes | | | |`,
      `| its changed-path index per snapshot (${indexLines.toLocaleString('en')} lines: one per snapshot that changed something; ${(indexBytes / 1e6).toFixed(2)} MB) | ${(indexBytes / (built.points + 1)).toFixed(0)} bytes | | | |`,
      '',
      `Notes: the workspace has ${fileCount.toLocaleString('en')} files; the timeline ${(built.points + 1).toLocaleString('en')} snapshots of two sessions taking turns (a prompt start, then a turn end with 3 changed files; a hand edit of one file before every fifth prompt). ` +
        `The first snapshot is a real one (${fmtMs(firstMs)}); the other ${built.points.toLocaleString('en')} were written in ${fmtMs(built.buildMs)} in the formats real snapshots write (the store's PackWriter for blobs and trees, SnapshotRecords.put, Timeline.append), without scanning the workspace, one pack per 500 snapshots${reused ? ' (by an earlier run, whose fixture this run copied: AGENT_REWIND_BENCH_TIMELINE_FIXTURE)' : ''}. ` +
        `A fifth of the changes went to ${HOT} hot files (up to ${Math.max(...built.hotFiles.map((f) => built.changesOf.get(f) ?? 0))} changes each); history and blame samples alternate between those and files changed once or twice. ` +
        `"Fresh": a new FileCheckpointer per sample (the timeline parsed and the pack indexes read, as a CLI process does; Node's start is not included); "warm": the same one asked again (the extension, the service). ` +
        `The dry runs rewind session A's latest prompt, whose turn changed the ${dryCount.toLocaleString('en')} files, with a watcher-fed model; "timeline hidden" makes the planner fall back to the session's turn-end rule. ` +
        `The claim lookup rows: ${claims.sessions} Claude Code transcripts of ${claims.promptsPerSession} Write-making prompts each, one prompt and turn each on a 1,000-file folder's timeline, a rewind of the first session's first prompt; each sample a fresh adapter (a process's first preview; "again": the same one asked again, the session's records kept while its log is unchanged); "sessions read": other sessions opened besides the rewound one (before, every session with a prompt since was). Load is the 1-minute load average when each sample started (median, min–max), on 2 cores shared with other work.`,
    ].join('\n');
    return {
      title: 'Workspace timeline: history, blame and attribution',
      markdown,
      ok: queryRows.every((r) => r.ok) && attributionOk && claims.skippedRead === 0 && claims.oneRead === 1,
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const mod: BenchModule = { run };
export default mod;
