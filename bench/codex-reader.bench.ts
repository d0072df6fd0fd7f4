// Codex reader benchmark: opening a generated ~50 MB rollout shaped like what 0.169 writes (session_meta with its
// base instructions, per turn the injected context, world_state, turn_context, reasoning, exec_command and apply_patch
// calls with big outputs, item_completed / token_count events, rollbacks and compactions with replacement_history)
// against a raw JSON.parse of every line of the same file, interleaved in one run because the machine is shared.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCodexSession } from '../src/core/sources/codex';
import { prng as rng } from '../test/support/prng';
import { parseEveryLine, timeAgainstReference } from './bench-tools';
import { median, type BenchModule, type BenchSection } from './types';

const THREAD = '01a20aad-def5-7222-afbb-2e7d1a0e4edf';
const WORDS = 'the model reads a file then edits it and runs the tests until they pass so the change can be reviewed'.split(' ');

/** Writes `turns` prompts' worth of rollout; returns the number of lines. */
export function generate(file: string, turns: number): number {
  const r = rng(11);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const lines: string[] = [];
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  const line = (type: string, payload: Record<string, unknown>) => {
    clock += 300;
    lines.push(JSON.stringify({ timestamp: new Date(clock).toISOString(), ordinal: lines.length, type, payload }));
  };
  line('session_meta', {
    id: THREAD,
    session_id: THREAD,
    timestamp: new Date(clock).toISOString(),
    cwd: '/bench/repo',
    originator: 'codex_exec',
    cli_version: '0.169.0',
    source: 'exec',
    model_provider: 'openai',
    base_instructions: text(3500),
    git: { commit_hash: 'abc', branch: 'main' },
  });
  const history: Record<string, unknown>[] = [];
  let call = 0;
  for (let turn = 0; turn < turns; turn++) {
    const turnId = `01a20aad-${(turn >> 16).toString(16).padStart(4, '0')}-7${(turn & 0xfff).toString(16).padStart(3, '0')}-8000-${turn.toString(16).padStart(12, '0')}`;
    const meta = { internal_chat_message_metadata_passthrough: { turn_id: turnId } };
    line('event_msg', { type: 'task_started', turn_id: turnId, model_context_window: 258400 });
    line('response_item', {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: `<permissions instructions>${text(120)}</permissions instructions>` }],
    });
    line('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>/bench/repo</cwd>\n  <shell>bash</shell>\n</environment_context>` }],
    });
    line('world_state', { full: turn === 0, state: { current_date: '2026-11-01', environments: { local: { cwd: '/bench/repo', shell: 'bash' } } } });
    line('turn_context', {
      turn_id: turnId,
      cwd: '/bench/repo',
      approval_policy: 'never',
      model: 'gpt-5.5',
      sandbox_policy: { type: 'danger-full-access' },
      collaboration_mode: { mode: 'default' },
    });
    const prompt = { type: 'message', role: 'user', content: [{ type: 'input_text', text: text(40) }] };
    line('response_item', { ...prompt, ...meta });
    line('event_msg', { type: 'item_completed', turn_id: turnId, item: { type: 'UserMessage', id: `u${turn}`, content: [{ type: 'text', text: 'x' }] } });
    history.push(prompt);
    const steps = 1 + Math.floor(r() * 3);
    for (let s = 0; s < steps; s++) {
      line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: text(60) }], encrypted_content: 'e'.repeat(800), ...meta });
      const id = `call_${++call}`;
      if (r() < 0.7) {
        line('response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: `npm test -- ${text(5)}`, workdir: '/bench/repo' }),
          call_id: id,
          ...meta,
        });
        line('event_msg', {
          type: 'item_completed',
          turn_id: turnId,
          item: { type: 'CommandExecution', id, command: ['/bin/bash', '-lc', 'npm test'], aggregated_output: text(200) },
        });
        line('response_item', {
          type: 'function_call_output',
          call_id: id,
          output: `Chunk ID: 1\nProcess exited with code 0\nOutput:\n${text(900 + Math.floor(r() * 1500))}`,
          ...meta,
        });
      } else {
        const patch = `*** Begin Patch\n*** Update File: src/f${turn % 40}.ts\n@@\n-${text(10)}\n+${text(10)}\n*** End Patch\n`;
        line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: id, ...meta });
        line('event_msg', {
          type: 'item_completed',
          turn_id: turnId,
          item: {
            type: 'FileChange',
            id,
            changes: { [`/bench/repo/src/f${turn % 40}.ts`]: { type: 'update', unified_diff: `@@ -1 +1 @@\n-${text(10)}\n+${text(10)}\n`, move_path: null } },
          },
        });
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: id,
          output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM x\n',
          ...meta,
        });
      }
      line('token_usage_record', { thread_id: THREAD, turn_id: turnId, usage: { input_tokens: 1000, output_tokens: 200 } });
      line('event_msg', {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: 1000 * turn, output_tokens: 200 * turn }, last_token_usage: { input_tokens: 1000, output_tokens: 200 } },
      });
    }
    const reply = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: text(80) }] };
    line('event_msg', { type: 'item_completed', turn_id: turnId, item: { type: 'AgentMessage', id: `a${turn}`, content: [{ type: 'Text', text: 'x' }] } });
    line('response_item', { ...reply, ...meta });
    history.push(reply);
    line('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: 'done' });
    if (turn > 10 && r() < 0.02) line('event_msg', { type: 'thread_rolled_back', num_turns: 1 + Math.floor(r() * 3) });
    if (turn > 0 && turn % 400 === 0) {
      const summary = `Summary: ${text(600)}`;
      line('compacted', {
        message: summary,
        replacement_history: [
          ...history.slice(-20).filter((h) => h.role === 'user'),
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: summary }] },
        ],
      });
      line('event_msg', { type: 'context_compacted' });
    }
  }
  line('event_msg', { type: 'thread_name_updated', thread_name: 'Benchmark session' });
  writeFileSync(file, lines.join('\n') + '\n');
  return lines.length;
}

/** The same rollout with a space after every colon and comma (`"type": "event_msg"`), line for line. */
function writeSpaced(from: string, to: string): void {
  const text = readFileSync(from, 'utf8');
  const out = text.split('\n').map((l) => (l ? JSON.stringify(JSON.parse(l), null, 1).replace(/\n\s*/g, ' ') : l));
  writeFileSync(to, out.join('\n'));
}

const ms = (x: number) => x.toFixed(1) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const turns = quick ? 100 : 2500;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-codex-'));
  try {
    const home = join(dir, 'codexhome');
    const folder = join(home, 'sessions', '2026', '11', '01');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `rollout-2026-11-01T00-00-00-${THREAD}.jsonl`);
    const lineCount = generate(file, turns);
    const mb = statSync(file).size / 2 ** 20;
    const reps = quick ? 3 : 5;
    let entries = 0;
    let pathLength = 0;
    // the same turns with spaces after the colons, in its own home (one thread per home); it was quadratic
    const spacedHome = join(dir, 'spacedhome');
    const spacedFolder = join(spacedHome, 'sessions', '2026', '11', '01');
    mkdirSync(spacedFolder, { recursive: true });
    const spacedFile = join(spacedFolder, `rollout-2026-11-01T00-00-00-${THREAD}.jsonl`);
    writeSpaced(file, spacedFile);
    const spacedMb = statSync(spacedFile).size / 2 ** 20;
    const times = await timeAgainstReference(
      reps,
      () => parseEveryLine(file),
      async () => {
        const s = await readCodexSession(file, { home });
        entries = s.getEntries().length;
        pathLength = s.getPath().length;
      },
    );
    // the spaced layout against the compact one opened, in turns the same way
    const spacedTimes = await timeAgainstReference(
      reps,
      () => readCodexSession(file, { home }),
      async () => {
        const spaced = await readCodexSession(spacedFile, { home: spacedHome });
        if (spaced.getEntries().length !== entries) throw new Error('the spaced layout read differently from the compact one');
      },
    );
    const spacedReads = spacedTimes.ours;
    const read = median(times.ours);
    const raw = median(times.reference);
    const rows = [
      {
        figure: `open a ${mb.toFixed(1)} MB rollout (${lineCount.toLocaleString('en')} lines → ${entries.toLocaleString('en')} entries; p50 of ${reps})`,
        value: read,
        ref: raw,
        target: 'ratio ≤ 2',
        ok: read <= 2 * raw,
      },
      { figure: 'same, absolute', value: read, ref: raw, target: quick ? '(full run only)' : '< 1000 ms', ok: quick || read < 1000 },
      {
        figure: `open the same turns written with spaces after the colons (${spacedMb.toFixed(1)} MB; p50 of ${reps})`,
        value: median(spacedReads),
        ref: median(spacedTimes.reference),
        refLabel: 'the compact layout opened',
        target: 'ratio ≤ 1.5 (was quadratic)',
        ok: median(spacedReads) <= 1.5 * median(spacedTimes.reference),
      },
    ];
    const markdown = [
      '| figure | value | reference | ratio | target | ok |',
      '|---|---:|---|---:|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.figure} | ${ms(r.value)} | ${ms(r.ref)} (${'refLabel' in r ? r.refLabel : 'raw JSON.parse of every line'}) | ${(r.value / r.ref).toFixed(2)}× | ${r.target} | ${r.ok ? 'ok' : '**missed**'} |`,
      ),
      '',
      `Rollout: ${turns.toLocaleString('en')} prompts shaped like Codex 0.169 writes them (injected context, world_state, turn_context, reasoning, exec_command and apply_patch calls with 0.9–2.4k-word outputs, item_completed / token_count events), ~2% rollbacks and a compaction with replacement_history every 400 prompts; active path ${pathLength.toLocaleString('en')} entries; fixed seed (bench/codex-reader.bench.ts).`,
    ].join('\n');
    return { title: 'Codex rollouts', markdown, ok: rows.every((r) => r.ok) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { run } satisfies BenchModule;
