// Claude Code reader benchmark: opening a generated ~50 MB transcript (turns with thinking / text / tool_use groups,
// big tool results, attachment and progress lines, file-history lines, rewinds and compactions) against a raw
// JSON.parse of every line of the same file, interleaved in one run because the machine is shared and noisy.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClaudeSession } from '../src/core/sources/claude';
import { prng as rng } from '../test/support/prng';
import { parseEveryLine, timeAgainstReference } from './bench-tools';
import { median, type BenchModule, type BenchSection } from './types';

const SESSION_ID = '0b0b0b0b-1111-4222-8333-444444444444';
const WORDS = 'the model reads a file then edits it and runs the tests until they pass so the change can be reviewed'.split(' ');

/** Writes `turns` prompts' worth of transcript; returns the number of lines. */
export function generate(file: string, turns: number): number {
  const r = rng(7);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const lines: string[] = [];
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  let n = 0;
  const base = (parent: string | null, extra: Record<string, unknown>) => {
    const uuid = `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
    clock += 700;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: 'external',
        cwd: '/bench/repo',
        sessionId: SESSION_ID,
        version: '2.1.330',
        gitBranch: 'main',
        timestamp: new Date(clock).toISOString(),
        ...extra,
        uuid,
      }),
    );
    return uuid;
  };
  const prompts: (string | null)[] = [];
  let leaf: string | null = null;
  for (let turn = 0; turn < turns; turn++) {
    let parent: string | null = leaf;
    if (turn > 10 && r() < 0.02) parent = prompts[turn - 1 - Math.floor(r() * 5)]!; // a rewind
    if (turn > 0 && turn % 400 === 0 && leaf) {
      const b = base(null, {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        logicalParentUuid: leaf,
        compactMetadata: { trigger: 'auto', preTokens: 150000 },
      });
      parent = base(b, {
        type: 'user',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: { role: 'user', content: `This session is being continued from a previous conversation. ${text(600)}` },
      });
    }
    const promptId = `p-${turn}`;
    lines.push(
      JSON.stringify({
        type: 'file-history-snapshot',
        messageId: `fh-${turn}`,
        isSnapshotUpdate: false,
        snapshot: {
          messageId: `fh-${turn}`,
          timestamp: new Date(clock).toISOString(),
          trackedFileBackups: {
            [`/bench/repo/src/f${turn % 40}.ts`]: { backupFileName: `h${turn % 40}@v${turn}`, version: turn, backupTime: new Date(clock).toISOString() },
          },
        },
      }),
    );
    lines.push(JSON.stringify({ type: 'queue-operation', operation: 'dequeue', sessionId: SESSION_ID, timestamp: new Date(clock).toISOString() }));
    const prompt = base(parent, { type: 'user', promptId, message: { role: 'user', content: text(40) } });
    prompts.push(parent);
    let p = prompt;
    for (let k = 0; k < 3; k++)
      p = base(p, { type: 'attachment', attachment: { type: 'hook_additional_context', content: [text(30)], hookName: 'UserPromptSubmit' } });
    const steps = 1 + Math.floor(r() * 3);
    for (let s = 0; s < steps; s++) {
      const msgId = `msg_${turn}_${s}`;
      const asst = (block: unknown, stop: string | null) =>
        base(p, {
          type: 'assistant',
          requestId: `req_${turn}_${s}`,
          message: {
            id: msgId,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet',
            content: [block],
            stop_reason: stop,
            usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 50000 },
          },
        });
      p = asst({ type: 'thinking', thinking: text(150), signature: 'x'.repeat(300) }, null);
      p = asst({ type: 'text', text: text(60) }, null);
      const calls = 1 + Math.floor(r() * 2);
      const ids: string[] = [];
      for (let c = 0; c < calls; c++) {
        const id = `toolu_${turn}_${s}_${c}`;
        ids.push(id);
        p = asst(
          { type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- ${text(5)}`, description: text(6) } },
          c === calls - 1 ? 'tool_use' : null,
        );
      }
      for (const id of ids) {
        for (let g = 0; g < 2; g++)
          p = base(p, {
            type: 'progress',
            data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: 'PreToolUse:Bash', command: text(8) },
            parentToolUseID: id,
            toolUseID: id,
          });
        const out = text(600 + Math.floor(r() * 1200));
        p = base(p, {
          type: 'user',
          promptId,
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out, is_error: false }] },
          toolUseResult: { stdout: out, stderr: '', interrupted: false },
          sourceToolAssistantUUID: p,
        });
      }
    }
    p = base(p, {
      type: 'assistant',
      requestId: `req_${turn}_end`,
      message: {
        id: `msg_${turn}_end`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet',
        content: [{ type: 'text', text: text(80) }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
    });
    p = base(p, { type: 'system', subtype: 'turn_duration', durationMs: 12345 });
    leaf = p;
  }
  lines.push(JSON.stringify({ type: 'ai-title', aiTitle: 'Benchmark session', sessionId: SESSION_ID }));
  writeFileSync(file, lines.join('\n') + '\n');
  return lines.length;
}

const ms = (x: number) => x.toFixed(1) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const turns = quick ? 100 : 1000;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-claude-'));
  try {
    const project = join(dir, 'projects', '-bench-repo');
    mkdirSync(project, { recursive: true });
    const file = join(project, `${SESSION_ID}.jsonl`);
    const lineCount = generate(file, turns);
    const mb = statSync(file).size / 2 ** 20;
    const reps = quick ? 3 : 5;
    let entries = 0;
    let pathLength = 0;
    const times = await timeAgainstReference(
      reps,
      () => parseEveryLine(file),
      async () => {
        const s = await readClaudeSession(file);
        entries = s.getEntries().length;
        pathLength = s.getPath().length;
      },
    );
    const read = median(times.ours);
    const raw = median(times.reference);
    const rows = [
      {
        figure: `open a ${mb.toFixed(1)} MB transcript (${lineCount.toLocaleString('en')} lines → ${entries.toLocaleString('en')} entries; p50 of ${reps})`,
        value: read,
        ref: raw,
        target: 'ratio ≤ 2',
        ok: read <= 2 * raw,
      },
      { figure: 'same, absolute', value: read, ref: raw, target: quick ? '(full run only)' : '< 1000 ms', ok: quick || read < 1000 },
    ];
    const markdown = [
      '| figure | value | reference | ratio | target | ok |',
      '|---|---:|---|---:|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.figure} | ${ms(r.value)} | ${ms(r.ref)} (raw JSON.parse of every line) | ${(r.value / r.ref).toFixed(2)}× | ${r.target} | ${r.ok ? 'ok' : '**missed**'} |`,
      ),
      '',
      `Transcript: ${turns.toLocaleString('en')} prompts with thinking / text / tool_use groups, 0.6–1.8k-word tool results, attachment, progress and file-history lines, ~2% rewinds and a compaction every 400 prompts; active path ${pathLength.toLocaleString('en')} entries; fixed seed (bench/claude-reader.bench.ts).`,
    ].join('\n');
    return { title: 'Claude Code transcripts', markdown, ok: rows.every((r) => r.ok) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { run } satisfies BenchModule;
