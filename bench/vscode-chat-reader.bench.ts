// VS Code chat reader benchmark: opening a generated ~20 MB chatSessions mutation log shaped like what VS Code 1.139
// writes for agent mode (an initial state, each request pushed, its response grown part by part with pushes and cuts,
// tool invocations with terminal output, completion sets, now and then a request edited and sent again) against a raw
// JSON.parse of every line of the same file, interleaved in one run because the machine is shared.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readVsChatSession } from '../src/core/sources/vscode-chat/reader';
import { prng as rng } from '../test/support/prng';
import { parseEveryLine, timeAgainstReference } from './bench-tools';
import { median, type BenchSection } from './types';

const WORDS = 'the agent reads a file then edits it and runs the tests in the terminal until they pass so the change can be reviewed'.split(' ');
const SESSION = '3b1f0c2e-7d4a-4e8b-9c1d-2a3b4c5d6e7f';
const uri = (path: string) => ({ $mid: 1, fsPath: path, external: `file://${path}`, path, scheme: 'file' });

/** Writes `requests` requests' worth of log; returns the number of lines. */
export function generate(file: string, requests: number): number {
  const r = rng(24);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const lines: string[] = [];
  const put = (e: unknown) => lines.push(JSON.stringify(e));
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  put({
    kind: 0,
    v: {
      version: 3,
      creationDate: clock,
      initialLocation: 'panel',
      responderUsername: '',
      sessionId: SESSION,
      hasPendingEdits: false,
      requests: [],
      pendingRequests: [],
      inputState: { attachments: [], mode: { id: 'agent', kind: 'agent' }, inputText: '', selections: [], contrib: {} },
    },
  });
  let n = 0;
  for (let q = 0; q < requests; q++) {
    clock += 60_000;
    const id = `request_${q.toString(16).padStart(8, '0')}-bench`;
    // now and then the last request is edited and sent again: a cut of the request list
    const resend = n > 2 && r() < 0.03;
    if (resend) n--;
    put({
      kind: 2,
      k: ['requests'],
      v: [
        {
          requestId: id,
          timestamp: clock,
          message: { text: text(30), parts: [{ kind: 'text', text: text(30) }] },
          variableData: { variables: [] },
          modelId: 'fakelm/fake-model',
          modeInfo: { kind: 'agent', isBuiltin: true },
          response: [],
          responseId: `response_${q}`,
          modelState: { value: 0 },
        },
      ],
      ...(resend ? { i: n } : {}),
    });
    const at = n;
    n++;
    const steps = 2 + Math.floor(r() * 4);
    const calls: unknown[] = [];
    for (let s = 0; s < steps; s++) {
      put({ kind: 2, k: ['requests', at, 'response'], v: [{ value: text(20), supportThemeIcons: false, baseUri: uri('/bench/repo/') }] });
      // the last markdown part grows: replaced through a cut
      put({ kind: 2, k: ['requests', at, 'response'], v: [{ value: text(60), supportThemeIcons: false, baseUri: uri('/bench/repo/') }], i: 2 * s });
      const callId = `call_${q}_${s}`;
      const terminal = r() < 0.6;
      calls.push({
        name: terminal ? 'run_in_terminal' : 'replace_string_in_file',
        arguments: JSON.stringify({ command: text(8) }),
        id: `${callId}__vscode-${q}`,
      });
      put({
        kind: 2,
        k: ['requests', at, 'response'],
        v: [
          {
            kind: 'toolInvocationSerialized',
            toolId: terminal ? 'run_in_terminal' : 'copilot_replaceString',
            toolCallId: callId,
            invocationMessage: { value: text(6) },
            pastTenseMessage: { value: text(6) },
            isConfirmed: { type: 1 },
            isComplete: true,
            source: { type: 'internal', label: 'Built-In' },
            ...(terminal
              ? {
                  toolSpecificData: {
                    kind: 'terminal',
                    commandLine: { original: text(8) },
                    terminalCommandState: { exitCode: 0, duration: 120 },
                    terminalCommandOutput: { text: text(700 + Math.floor(r() * 900)), lineCount: 40 },
                  },
                }
              : {}),
          },
        ],
      });
      if (!terminal)
        put({
          kind: 2,
          k: ['requests', at, 'response'],
          v: [{ kind: 'textEditGroup', uri: uri(`/bench/repo/src/f${q % 40}.ts`), edits: [[{ text: text(30), range: {} }]], done: true }],
        });
    }
    put({ kind: 1, k: ['requests', at, 'result'], v: { timings: { totalElapsed: 4000 }, metadata: { toolCallRounds: [{ response: '', toolCalls: calls }] } } });
    put({ kind: 1, k: ['requests', at, 'modelState'], v: { value: 1, completedAt: clock + 30_000 } });
    put({ kind: 1, k: ['hasPendingEdits'], v: r() < 0.5 });
  }
  put({ kind: 1, k: ['customTitle'], v: 'Benchmark chat' });
  writeFileSync(file, lines.join('\n') + '\n');
  return lines.length;
}

const ms = (x: number) => x.toFixed(1) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const requests = quick ? 100 : 1150;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-vschat-'));
  try {
    const folder = join(dir, 'User', 'workspaceStorage', 'w1', 'chatSessions');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${SESSION}.jsonl`);
    const lineCount = generate(file, requests);
    const mb = statSync(file).size / 2 ** 20;
    const reps = quick ? 3 : 7;
    const home = join(dir, 'home');
    let entries = 0;
    let path = 0;
    const times = await timeAgainstReference(
      reps,
      () => parseEveryLine(file),
      async () => {
        const s = await readVsChatSession(file, { home });
        entries = s.getEntries().length;
        path = s.getPath().length;
      },
    );
    const read = median(times.ours);
    const raw = median(times.reference);
    const ok = read <= 2 * raw;
    const markdown = [
      '| figure | value | reference | ratio | target | ok |',
      '|---|---:|---|---:|---|---|',
      `| open a ${mb.toFixed(1)} MB chat session log (${lineCount.toLocaleString('en')} lines → ${entries.toLocaleString('en')} entries; p50 of ${reps}) | ${ms(read)} | ${ms(raw)} (raw JSON.parse of every line) | ${(read / raw).toFixed(2)}× | ratio ≤ 2 | ${ok ? 'ok' : '**missed**'} |`,
      '',
      `Log: ${requests.toLocaleString('en')} agent-mode requests shaped like VS Code 1.139 writes them (each pushed, its response grown by pushes and cuts, tool invocations with 0.7–1.6k-word terminal output, edit groups, completion sets), ~3% edited and sent again (a cut of the request list, an abandoned branch); active path ${path.toLocaleString('en')} entries; fixed seed (bench/vscode-chat-reader.bench.ts). The request-to-snapshot lag is measured in real VS Code by its own bench (lag-vscode-chat).`,
    ].join('\n');
    return { title: 'VS Code chat reader', markdown, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
