// The rewind's claim lookup (engine/turn-writes.ts) with many sessions present, for the timeline bench: a workspace of
// 1,000 files whose timeline holds one prompt and turn per Claude Code session (N sessions, each transcript with 20
// prompts of Write calls, so reading one costs what a real session's read does), then a new prompt of the first
// session (its turn open). A rewind to the first session's first prompt meets every session's turn. Measured: the
// lookup when no change in nobody's time follows a turn end (nothing read), when one session's tool wrote a file
// right after its turn end (that session read; then again, its records cached), and what the lookup did before
// (every session with a prompt since listed, opened and asked), beside the files layer's own dry run.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files';
import { ClaudeSource } from '../src/core/sources/claude/claude-source';
import type { SourceContext } from '../src/core/sources/source-adapter';
import type { SessionView } from '../src/core/sources/session-view';
import { turnWritesSince, writesOfTurns, type TurnWritesContext } from '../src/core/engine/turn-writes';
import { fmtMs, now } from './bench-tools';
import { median } from './types';
import { generateWorkspace } from './workspace-generator';

const PROMPTS_PER_SESSION = 20;

/** A sample's wall-clock and CPU time (the process's, all threads), in ms. */
interface Sample {
  ms: number;
  cpu: number;
}
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function timed<T>(out: Sample[], run: () => Promise<T>): Promise<T> {
  const c = cpuMs();
  const t = now();
  const value = await run();
  out.push({ ms: now() - t, cpu: cpuMs() - c });
  return value;
}
const userAnchor = { checkpointingEnabled: true, kind: 'user-message' as const };

/** A Claude Code transcript of `prompts` prompts, each with a Write of `file(k)`; prompt k's promptId is `${id}-p${k}`. */
function transcript(sessionId: string, cwd: string, file: (k: number) => string): string {
  const lines: object[] = [];
  let parent: string | null = null;
  let n = 0;
  let clock = Date.parse('2026-11-27T10:00:00Z');
  const line = (fields: Record<string, unknown>) => {
    const uuid = `${sessionId}-u${++n}`;
    clock += 1000;
    lines.push({
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId,
      version: '2.1.330',
      timestamp: new Date(clock).toISOString(),
      uuid,
      ...fields,
    });
    parent = uuid;
  };
  for (let k = 0; k < PROMPTS_PER_SESSION; k++) {
    line({ type: 'user', promptId: `${sessionId}-p${k}`, message: { role: 'user', content: `prompt ${k}: make ${file(k)}` } });
    const path = join(cwd, file(k));
    line({
      type: 'assistant',
      message: {
        id: `m${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'tool_use', id: `t${n}`, name: 'Write', input: { file_path: path, content: 'x'.repeat(2000) } }],
      },
    });
    line({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n - 1}`, content: 'ok' }] },
      toolUseResult: { stdout: 'ok' },
    });
    line({ type: 'assistant', message: { id: `m${n}`, type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: `done ${k}` }] } });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

export interface ClaimLookupFigures {
  sessions: number;
  promptsPerSession: number;
  /** p50 of each series: wall-clock and CPU time. */
  dryRun: Sample;
  skipped: Sample;
  skippedRead: number;
  oneCold: Sample;
  oneWarm: Sample;
  oneRead: number;
  every: Sample;
  everyRead: number;
}

export async function claimLookup(base: string, sessions: number, rounds: number): Promise<ClaimLookupFigures> {
  const gen = await generateWorkspace(1000);
  const ws = join(base, 'claims-ws');
  await mkdir(ws, { recursive: true });
  execFileSync('cp', ['-a', `${gen.root}/.`, ws]);
  const configDir = join(base, 'claims-claude');
  const ids = Array.from({ length: sessions }, (_, i) => `bench-claims-${String(i).padStart(4, '0')}`);
  const ownFile = (i: number, k: number) => `written-by-${i}-${k}.txt`;
  await mkdir(join(configDir, 'projects', '-bench'), { recursive: true });
  for (const [i, id] of ids.entries())
    await writeFile(
      join(configDir, 'projects', '-bench', `${id}.jsonl`),
      transcript(id, ws, (k) => ownFile(i, k)),
    );
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base, 'claims-home') });
  for (const [i, id] of ids.entries()) {
    await fc.snapshot(id, `${id}-p0`, 'user-message');
    await writeFile(join(ws, ownFile(i, 0)), `by session ${i}\n`);
    await fc.snapshot(id, `${id}-p0:end`, 'turn-end');
  }

  /** A fresh adapter per sample (a process's first preview) or one kept (the extension's), every call counted. */
  const contextOf = (source: ClaudeSource) => {
    const read = new Set<string>();
    const sourceCtx = { workspaceRoots: [ws], warn: () => {} } as unknown as SourceContext;
    const ctx: TurnWritesContext = {
      listSessions: () => source.list(sourceCtx),
      view: async (ref) => {
        read.add(ref);
        return source.open(ref);
      },
      adapterOf: async () => source,
    };
    return { ctx, read };
  };
  const target = async (source: ClaudeSource) => ({
    view: (await source.open(join(configDir, 'projects', '-bench', `${ids[0]}.jsonl`))) as SessionView,
    adapter: source,
    anchorId: `${ids[0]}-p0`,
  });

  const figures = { dry: [] as Sample[], skipped: [] as Sample[], oneCold: [] as Sample[], oneWarm: [] as Sample[], every: [] as Sample[] };
  let skippedRead = 0;
  let oneRead = 0;
  let everyRead = 0;
  const last = ids.length - 1;
  // a new prompt of the first session ends the timeline (its turn is open): with no late change, nothing to claim
  await fc.snapshot(ids[0]!, `${ids[0]}-p1`, 'user-message');
  for (let r = 0; r < rounds; r++) {
    await timed(figures.dry, () => fc.rewindFiles(ids[0]!, `${ids[0]}-p0`, { dryRun: true, anchor: userAnchor }));
    const source = new ClaudeSource({ configDirs: [configDir] });
    const { ctx, read } = contextOf(source);
    const tg = await target(source);
    const w = await timed(figures.skipped, () => turnWritesSince(ctx, fc, tg));
    skippedRead = read.size;
    if (w.length !== 0) throw new Error(`no late change, yet ${w.length} claims`);
  }
  // the first session's turn ends; the last session's next prompt writes its file, which reaches the disk only after
  // that turn's end was snapshotted; then the first session's next prompt
  await fc.snapshot(ids[0]!, `${ids[0]}-p1:end`, 'turn-end');
  await fc.snapshot(ids[last]!, `${ids[last]}-p1`, 'user-message');
  await fc.snapshot(ids[last]!, `${ids[last]}-p1:end`, 'turn-end');
  await writeFile(join(ws, ownFile(last, 1)), `by session ${last}, written late\n`);
  await fc.snapshot(ids[0]!, `${ids[0]}-p2`, 'user-message');
  for (let r = 0; r < rounds; r++) {
    const source = new ClaudeSource({ configDirs: [configDir] });
    const { ctx, read } = contextOf(source);
    const tg = await target(source);
    for (const out of [figures.oneCold, figures.oneWarm]) {
      const w = await timed(out, () => turnWritesSince(ctx, fc, tg));
      if (w.length !== 1 || w[0]!.sessionId !== ids[last] || w[0]!.paths[0] !== ownFile(last, 1))
        throw new Error(`the late file's claim: ${JSON.stringify(w)}`);
    }
    oneRead = read.size;
    // what the lookup did before: every session with a prompt since listed, opened and asked
    const fresh = new ClaudeSource({ configDirs: [configDir] });
    const every = contextOf(fresh);
    const everyTarget = await target(fresh);
    await timed(figures.every, () =>
      writesOfTurns(
        every.ctx,
        fc,
        ids.map((id) => ({ sessionId: id, anchorId: `${id}-p0` })),
        everyTarget,
      ),
    );
    everyRead = every.read.size;
  }
  await fc.dispose();
  return {
    sessions,
    promptsPerSession: PROMPTS_PER_SESSION,
    dryRun: p50(figures.dry),
    skipped: p50(figures.skipped),
    skippedRead,
    oneCold: p50(figures.oneCold),
    oneWarm: p50(figures.oneWarm),
    oneRead,
    every: p50(figures.every),
    everyRead,
  };
}

const p50 = (xs: readonly Sample[]): Sample => ({ ms: median(xs.map((x) => x.ms)), cpu: median(xs.map((x) => x.cpu)) });
const fmt = (x: Sample) => `${fmtMs(x.ms)} (CPU ${fmtMs(x.cpu)})`;

export function claimLookupRows(f: ClaimLookupFigures): string[] {
  return [
    `| claim lookup, ${f.sessions} Claude Code sessions on a 1,000-file folder's timeline: dry run of the files alone (reference) | ${fmt(f.dryRun)} (p50) | | | |`,
    `| … the lookup, no change in nobody's time after a turn end (sessions read: ${f.skippedRead}) | ${fmt(f.skipped)} (p50) | | | |`,
    `| … the lookup, one session's file written right after its turn end, first / again (sessions read: ${f.oneRead}) | ${fmt(f.oneCold)} / ${fmt(f.oneWarm)} (p50) | | | |`,
    `| … what the lookup did before: every session with a prompt since (sessions read: ${f.everyRead}) | ${fmt(f.every)} (p50) | | | |`,
  ];
}
