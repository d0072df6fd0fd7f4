// Gemini CLI reader benchmark: opening a generated session of 5,000 message records shaped like what 0.61 writes (a
// metadata line, the context `$set`, per turn the prompt, replies written once without and once with their tool calls
// (shell output, write_file / replace with their diff), the tool results as user records, a `$set lastUpdated` after
// every record, a resume's `$set messages` of the whole history now and then, a `/rewind` now and then) against a raw
// JSON.parse of every line of the same file, interleaved in one run because the machine is shared.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGeminiSession } from '../src/core/sources/gemini/reader';
import { prng as rng } from '../test/support/prng';
import { parseEveryLine, timeAgainstReference } from './bench-tools';
import { median, type BenchModule, type BenchSection } from './types';

const SESSION = '5e0b1d2c-3f4a-4b6c-8d7e-9f0a1b2c3d4e';
const WORDS = 'the model reads a file then edits it and runs the tests until they pass so the change can be reviewed'.split(' ');

/** Writes message records until there are `messages` of them; returns the number of lines. */
export function generate(file: string, messages: number): { lines: number; records: number } {
  const r = rng(25);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const lines: string[] = [];
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  const time = () => new Date((clock += 250)).toISOString();
  const history: Record<string, unknown>[] = [];
  let records = 0;
  let id = 0;
  const uuid = () => `00000000-0000-4000-8000-${(++id).toString(16).padStart(12, '0')}`;
  const put = (rec: Record<string, unknown>) => {
    lines.push(JSON.stringify(rec));
    records++;
    const at = history.findIndex((h) => h.id === rec.id);
    if (at >= 0) history[at] = rec;
    else history.push(rec);
    lines.push(JSON.stringify({ $set: { lastUpdated: time() } }));
  };
  lines.push(JSON.stringify({ sessionId: SESSION, projectHash: 'f'.repeat(64), startTime: time(), lastUpdated: time(), kind: 'main' }));
  const context = {
    id: 'c'.repeat(32),
    timestamp: time(),
    type: 'user',
    content: [{ text: `<session_context>\n- **Workspace Directories:**\n  - /bench/repo\n${text(400)}` }],
  };
  history.push(context);
  lines.push(JSON.stringify({ $set: { messages: [context] } }));
  let turn = 0;
  while (records < messages) {
    turn++;
    const prompt = uuid();
    put({ id: prompt, timestamp: time(), type: 'user', content: [{ text: text(40) }] });
    const steps = 1 + Math.floor(r() * 3);
    for (let s = 0; s < steps && records < messages; s++) {
      const reply = {
        id: uuid(),
        timestamp: time(),
        type: 'gemini',
        content: '',
        thoughts: [{ subject: 'Plan', description: text(30) }],
        tokens: { input: 1000, output: 200, total: 1200 },
        model: 'gemini-3.8-flash',
      };
      put(reply);
      const callId = `call_${turn}_${s}`;
      const shell = r() < 0.6;
      const output = shell ? `Output: ${text(300 + Math.floor(r() * 600))}` : 'Successfully modified file: /bench/repo/src/f.ts (1 replacements).';
      const call = {
        id: callId,
        name: shell ? 'run_shell_command' : 'replace',
        args: shell ? { command: `npm test -- ${text(5)}` } : { file_path: `/bench/repo/src/f${turn % 40}.ts`, old_string: text(10), new_string: text(10) },
        result: [{ functionResponse: { id: callId, name: shell ? 'run_shell_command' : 'replace', response: { output } } }],
        status: 'success',
        timestamp: time(),
        resultDisplay: shell
          ? output
          : {
              fileDiff: `Index: f.ts\n--- f.ts\n+++ f.ts\n@@ -1 +1 @@\n-${text(10)}\n+${text(10)}\n`,
              fileName: 'f.ts',
              originalContent: text(200),
              newContent: text(200),
            },
      };
      put({ ...reply, toolCalls: [call] });
      put({ id: uuid(), timestamp: time(), type: 'user', content: [{ functionResponse: call.result[0]!.functionResponse }] });
    }
    put({
      id: uuid(),
      timestamp: time(),
      type: 'gemini',
      content: text(80),
      thoughts: [],
      tokens: { input: 1000, output: 200, total: 1200 },
      model: 'gemini-3.8-flash',
    });
    if (turn > 5 && r() < 0.02) {
      lines.push(JSON.stringify({ $rewindTo: prompt }));
      history.splice(history.findIndex((h) => h.id === prompt));
    }
    // a resume now and then: the whole history rewritten in one `$set messages`
    if (turn % 150 === 0) lines.push(JSON.stringify({ $set: { sessionId: SESSION } }), JSON.stringify({ $set: { messages: history } }));
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return { lines: lines.length, records };
}

const ms = (x: number) => x.toFixed(1) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const messages = quick ? 500 : 5000;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-gemini-'));
  try {
    const home = join(dir, '.gemini');
    const chats = join(home, 'tmp', 'repo', 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, `session-2026-11-01T00-00-${SESSION.slice(0, 8)}.jsonl`);
    const { lines, records } = generate(file, messages);
    const mb = statSync(file).size / 2 ** 20;
    const reps = quick ? 3 : 7;
    let entries = 0;
    let pathLength = 0;
    const times = await timeAgainstReference(
      reps,
      () => parseEveryLine(file),
      async () => {
        const s = await readGeminiSession(file, { home });
        entries = s.getEntries().length;
        pathLength = s.getPath().length;
      },
    );
    const read = median(times.ours);
    const raw = median(times.reference);
    // a quick run's small file is mostly fixed costs: the ratio is held on the full run's 5,000 messages
    const ok = quick || read <= 2 * raw;
    const markdown = [
      '| figure | value | reference | ratio | target | ok |',
      '|---|---:|---|---:|---|---|',
      `| open a ${mb.toFixed(1)} MB session (${records.toLocaleString('en')} message records, ${lines.toLocaleString('en')} lines → ${entries.toLocaleString('en')} entries; p50 of ${reps}) | ${ms(read)} | ${ms(raw)} (raw JSON.parse of every line) | ${(read / raw).toFixed(2)}× | ${quick ? 'ratio ≤ 2 (full run only)' : 'ratio ≤ 2'} | ${read <= 2 * raw ? 'ok' : quick ? '(quick)' : '**missed**'} |`,
      '',
      `Session: ${messages.toLocaleString('en')} message records shaped like Gemini CLI 0.61 writes them (each reply with tool calls written twice, tool results as user records, \`$set lastUpdated\` after each record, a resume's whole-history \`$set messages\` every 150 prompts, ~2% \`/rewind\`s); active path ${pathLength.toLocaleString('en')} entries; fixed seed (bench/gemini-reader.bench.ts).`,
    ].join('\n');
    return { title: 'Gemini CLI sessions', markdown, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { run } satisfies BenchModule;
