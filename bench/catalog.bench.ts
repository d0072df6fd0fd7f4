// Catalog benchmark (issue 5): a generated corpus of 100 sessions in one session folder. Search through the catalog
// against the reference a catalog replaces, a linear scan (read, parse and match every file), measured in the same
// run; also the cost of building the index once and of a refresh that finds nothing changed, and how long indexing
// holds the event loop at most (the extension host must never be blocked for more than 50 ms). Run it alone: it
// reports the longest block both as wall time and as CPU time, since other processes on a shared machine stretch
// the wall figure.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../src/core/catalog';
import { median, type BenchSection } from './types';
import { prng as rng } from '../test/support/prng';

const WORDS = (
  'parser session branch rewind checkpoint file test build error fix refactor module import export type function ' +
  'class interface return value string number array object promise async await config setting folder path read write ' +
  'line diff patch commit review deploy cache index query result render view panel tree node message user agent tool'
).split(' ');
/** Each appears in a few sessions only: what people search for. */
const RARE = ['zanzibar', 'quetzal', 'fjord', 'obsidian', 'marzipan'];

function generateCorpus(dir: string, sessions: number, messagesPerSession: number): void {
  const r = rng(7);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  for (let s = 0; s < sessions; s++) {
    const id = `bench-${String(s).padStart(4, '0')}`;
    const t0 = Date.UTC(2026, 0, 1) + s * 3_600_000;
    const lines = [JSON.stringify({ type: 'session', version: 3, id, timestamp: new Date(t0).toISOString(), cwd: '/bench/project' })];
    let parent: string | null = null;
    for (let m = 0; m < messagesPerSession; m++) {
      const eid = `${String(s).padStart(4, '0')}${String(m).padStart(4, '0')}`;
      const role = m % 3 === 0 ? 'user' : m % 3 === 1 ? 'assistant' : 'toolResult';
      let body = text(role === 'toolResult' ? 120 : 30);
      if (r() < 0.01) body += ` ${RARE[Math.floor(r() * RARE.length)]}`;
      const content = role === 'user' ? body : [{ type: 'text', text: body }];
      const message = role === 'toolResult' ? { role, toolCallId: `t${m}`, toolName: 'read', content, isError: false } : { role, content };
      lines.push(JSON.stringify({ type: 'message', id: eid, parentId: parent, timestamp: new Date(t0 + m * 1000).toISOString(), message }));
      parent = eid;
    }
    writeFileSync(join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`), lines.join('\n') + '\n');
  }
}

/** The reference: what answering a search costs without an index. */
function linearScan(dir: string, word: string): number {
  let hits = 0;
  const needle = word.toLowerCase();
  for (const name of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { type: string; message?: { content?: unknown } };
      if (e.type !== 'message') continue;
      const c = e.message?.content;
      const t = typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('\n') : '';
      if (t.toLowerCase().includes(needle)) hits++;
    }
  }
  return hits;
}

/** The longest stretch between two turns of the event loop, in wall time and in CPU time this process used meanwhile.
 *  On a shared machine the wall figure also counts time the process was not scheduled at all; the CPU figure does
 *  not (it may count other threads of the process, e.g. the garbage collector's). */
function watchBlocks(): { stop(): { wallMs: number; cpuMs: number } } {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  let maxWall = 0;
  let maxCpu = 0;
  const tick = setInterval(() => {
    const w = performance.now();
    const c = process.cpuUsage(cpu);
    maxWall = Math.max(maxWall, w - wall);
    maxCpu = Math.max(maxCpu, (c.user + c.system) / 1000);
    wall = w;
    cpu = process.cpuUsage();
  }, 1);
  return {
    stop() {
      clearInterval(tick);
      return { wallMs: maxWall, cpuMs: maxCpu };
    },
  };
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = fn();
  return { ms: performance.now() - t, value };
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const sessions = quick ? 20 : 100;
  const perSession = quick ? 60 : 150;
  const root = mkdtempSync(join(tmpdir(), 'ar-bench-catalog-'));
  try {
    const folder = join(root, 'sessions');
    mkdirSync(folder);
    generateCorpus(folder, sessions, perSession);
    const input = [{ path: folder, source: 'agent-rewind' as const }];

    // warm-up on a throwaway folder: module loading (tsx compiles on first use) and JIT are not what is measured
    const warm = join(root, 'warm');
    mkdirSync(warm);
    generateCorpus(warm, 2, 30);
    const warmCatalog = await Catalog.open({ home: join(root, 'warm-home') });
    await warmCatalog.refresh([{ path: warm, source: 'agent-rewind' }]);
    warmCatalog.search(WORDS[0]!);
    await warmCatalog.close();

    const catalog = await Catalog.open({ home: join(root, 'home') });
    const blocks = watchBlocks();
    const build = await timeAsync(() => catalog.refresh(input));
    const { wallMs: maxBlockMs, cpuMs: maxBlockCpuMs } = blocks.stop();
    const scanOnce = time(() => linearScan(folder, RARE[0]!)).ms;
    const noopTimes: number[] = [];
    for (let i = 0; i < 5; i++) noopTimes.push((await timeAsync(() => catalog.refresh(input))).ms);
    const noop = median(noopTimes);

    const searchTimes: number[] = [];
    const scanTimes: number[] = [];
    let agree = true;
    for (const word of RARE) {
      for (let i = 0; i < 3; i++) searchTimes.push(time(() => catalog.search(word, { limit: 10_000, perSession: 10_000 })).ms);
      const indexed = catalog.search(`${word} `, { limit: 10_000, perSession: 10_000 }).length;
      const scanned = time(() => linearScan(folder, word));
      scanTimes.push(scanned.ms);
      // the same messages must be found both ways, or the speed-up means nothing
      agree &&= indexed === scanned.value;
    }
    const save = await timeAsync(() => catalog.save());
    await catalog.close();

    const search = median(searchTimes);
    const scan = median(scanTimes);
    const speedup = scan / search;
    const rows = [
      [
        'search (median, 5 rare words)',
        `${search.toFixed(2)} ms`,
        `linear scan ${scan.toFixed(1)} ms`,
        `${speedup.toFixed(0)}× faster`,
        '≥ 10× faster',
        speedup >= 10 && agree,
      ],
      ['same hits as the scan', agree ? 'yes' : 'no', '', '', 'yes', agree],
      [
        'build the index from nothing',
        `${build.ms.toFixed(0)} ms`,
        `one linear scan ${scanOnce.toFixed(0)} ms`,
        `${(build.ms / scanOnce).toFixed(1)}×`,
        '(one-time cost)',
        true,
      ],
      [
        'refresh with nothing changed',
        `${noop.toFixed(1)} ms`,
        `one linear scan ${scanOnce.toFixed(0)} ms`,
        `${(scanOnce / noop).toFixed(0)}× faster`,
        '≥ 5× faster',
        scanOnce / noop >= 5,
      ],
      [
        'longest event-loop block while indexing (CPU time)',
        `${maxBlockCpuMs.toFixed(0)} ms`,
        `wall clock ${maxBlockMs.toFixed(0)} ms`,
        '',
        '≤ 50 ms',
        maxBlockCpuMs <= 50,
      ],
      ['save (whole db, atomic)', `${save.ms.toFixed(0)} ms`, '', '', '(after a refresh, debounced)', true],
    ] as const;
    const markdown = [
      `Corpus: ${sessions} sessions × ${perSession} messages (${build.value.indexed} indexed).`,
      '',
      '| measure | catalog | reference | ratio | target | met |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows.map(([m, v, ref, ratio, target, ok]) => `| ${m} | ${v} | ${ref} | ${ratio} | ${target} | ${ok ? 'yes' : '**no**'} |`),
    ].join('\n');
    return { title: 'Session catalog (search)', markdown, ok: rows.every((r) => r[5]) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
