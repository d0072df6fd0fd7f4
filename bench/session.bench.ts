// Session store benchmark (issue 2): a generated session with many branches; load time against raw JSON.parse of
// every line, context of the deepest leaf, append latency without fsync. References are measured in the same run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '../src/core/session/session-manager';
import { median, percentile, type BenchModule, type BenchSection } from './types';
import { prng as rng } from '../test/support/prng';

const WORDS = 'the session tree keeps every branch so a rewind never loses work and the model sees one path only'.split(' ');

/** Writes a session of `count` entries: mostly linear turns, a branch from a random earlier entry ~2% of the time,
 *  tool calls and results, model / thinking changes, labels, custom records and compactions. Returns the deepest leaf. */
function generate(file: string, count: number): { deepest: string; depth: number } {
  const r = rng(42);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const lines: string[] = [JSON.stringify({ type: 'session', version: 3, id: 'bench-session', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/bench' })];
  const ids: string[] = [];
  const depth: number[] = [];
  const parents: number[] = [];
  let leaf = -1;
  for (let i = 0; i < count; i++) {
    const id = (i + 1).toString(16).padStart(8, '0');
    if (i > 0 && r() < 0.02) leaf = Math.floor(r() * i); // branch from an earlier entry
    const parentId = leaf < 0 ? null : ids[leaf]!;
    const base = { id, parentId, timestamp: new Date(1767225600000 + i * 1000).toISOString() };
    const k = r();
    let entry: Record<string, unknown>;
    if (k < 0.35) entry = { type: 'message', ...base, message: { role: 'user', content: text(20), timestamp: i } };
    else if (k < 0.7)
      entry = {
        type: 'message',
        ...base,
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: text(40) },
            { type: 'toolCall', id: `t${i}`, name: 'read', arguments: { path: `/bench/f${i % 97}.ts` } },
          ],
          provider: 'anthropic',
          model: 'claude',
          usage: { input: 100, output: 50 },
          stopReason: 'toolUse',
          timestamp: i,
        },
      };
    else if (k < 0.93)
      entry = {
        type: 'message',
        ...base,
        message: { role: 'toolResult', toolCallId: `t${i - 1}`, toolName: 'read', content: [{ type: 'text', text: text(60) }], isError: false, timestamp: i },
      };
    else if (k < 0.95) entry = { type: 'model_change', ...base, model: `anthropic/m${i % 3}` };
    else if (k < 0.97) entry = { type: 'thinking_level_change', ...base, thinkingLevel: ['off', 'low', 'high'][i % 3] };
    else if (k < 0.98 && leaf >= 0) entry = { type: 'label', ...base, targetId: ids[leaf], label: `l${i}` };
    else if (k < 0.995 || leaf < 0) entry = { type: 'custom', ...base, customType: 'agent-rewind/bench', data: { i } };
    else {
      // compaction keeping a recent ancestor
      let kept = leaf;
      for (let s = 0; s < 5 && parents[kept]! >= 0; s++) kept = parents[kept]!;
      entry = { type: 'compaction', ...base, summary: text(80), firstKeptEntryId: ids[kept], tokensBefore: 100000 };
    }
    ids.push(id);
    parents.push(leaf);
    depth.push(leaf < 0 ? 1 : depth[leaf]! + 1);
    lines.push(JSON.stringify(entry));
    leaf = i;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  let best = 0;
  for (let i = 1; i < depth.length; i++) if (depth[i]! > depth[best]!) best = i;
  return { deepest: ids[best]!, depth: depth[best]! };
}

function rawParse(file: string): number {
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
  return n;
}

const ms = (x: number) => (x < 1 ? x.toFixed(3) : x.toFixed(1)) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const count = quick ? 5_000 : 100_000;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-session-'));
  try {
    const file = join(dir, 'big.jsonl');
    const { deepest, depth } = generate(file, count);
    const reps = quick ? 3 : 7;

    // load vs raw parse, interleaved so both see the same machine load
    const loads: number[] = [];
    const raws: number[] = [];
    let session: SessionManager | undefined;
    for (let i = 0; i < reps; i++) {
      // the previous copy is released first, so both sides start from the same heap
      if (session) await session.close();
      session = undefined;
      let t = performance.now();
      rawParse(file);
      raws.push(performance.now() - t);
      t = performance.now();
      session = await SessionManager.open(file, { home: dir, deferUntilAssistant: false });
      loads.push(performance.now() - t);
      if (session.getEntries().length !== count) throw new Error(`loaded ${session.getEntries().length} of ${count} entries`);
    }
    const s = session!;

    // context of the deepest leaf vs a bare parent walk over a prebuilt map
    const byId = new Map(s.getEntries().map((e) => [e.id, e]));
    const ctxTimes: number[] = [];
    const walkTimes: number[] = [];
    let messages = 0;
    for (let i = 0; i < 21; i++) {
      let t = performance.now();
      let n = 0;
      for (let e = byId.get(deepest); e; e = e.parentId ? byId.get(e.parentId) : undefined) n++;
      walkTimes.push(performance.now() - t);
      if (n !== depth) throw new Error(`walk found ${n}, expected ${depth}`);
      t = performance.now();
      messages = s.buildSessionContext(deepest).messages.length;
      ctxTimes.push(performance.now() - t);
    }

    // append (serialize + write to the OS, no fsync) vs a raw write of the same bytes
    const appendTimes: number[] = [];
    const rawTimes: number[] = [];
    const fh = await open(join(dir, 'raw.jsonl'), 'a');
    const appends = quick ? 200 : 2000;
    for (let i = 0; i < appends; i++) {
      const message = { role: i % 2 ? 'assistant' : 'user', content: `append ${i} ${'x'.repeat(200)}` };
      let t = performance.now();
      const id = s.appendMessage(message);
      await s.drain();
      appendTimes.push(performance.now() - t);
      const line = JSON.stringify(s.getEntry(id)) + '\n';
      t = performance.now();
      await fh.write(line);
      rawTimes.push(performance.now() - t);
    }
    await fh.close();
    await s.close();

    const load = median(loads);
    const raw = median(raws);
    const ctx = median(ctxTimes);
    const walk = median(walkTimes);
    const app = percentile(appendTimes, 50);
    const rawApp = percentile(rawTimes, 50);
    const rows = [
      {
        figure: `load ${count.toLocaleString('en')} entries (median of ${reps})`,
        value: load,
        ref: raw,
        refName: 'raw JSON.parse of every line',
        target: 'ratio ≤ 2',
        ok: load <= 2 * raw,
      },
      {
        figure: `context of the deepest leaf (depth ${depth}, ${messages} messages)`,
        value: ctx,
        ref: walk,
        refName: 'bare parent walk',
        target: '< 20 ms',
        ok: ctx < 20,
      },
      { figure: `append p50, no fsync (${appends} appends)`, value: app, ref: rawApp, refName: 'raw write of the same line', target: '< 1 ms', ok: app < 1 },
    ];
    const markdown = [
      '| figure | value | reference | ratio | target | ok |',
      '|---|---:|---|---:|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.figure} | ${ms(r.value)} | ${ms(r.ref)} (${r.refName}) | ${(r.value / r.ref).toFixed(2)}× | ${r.target} | ${r.ok ? 'ok' : '**missed**'} |`,
      ),
      '',
      `Session: ${count.toLocaleString('en')} entries, ~2% of them branching from a random earlier entry, generated with a fixed seed (bench/session.bench.ts).`,
    ].join('\n');
    return { title: 'Sessions', markdown, ok: rows.every((r) => r.ok) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { run } satisfies BenchModule;
