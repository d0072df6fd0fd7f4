// The request-to-snapshot lag of VS Code's own chat (issue 24, acceptance 3), measured in real VS Code: code-server
// 4.139.1, its built-in agent mode and the scripted model of the chat flow (support/vschat.chattest-0.0.1), a warm-up
// request then LAG_REQUESTS measured ones, each making one file with create_file and one with run_in_terminal, twice:
//   hooks    our hooks installed by the CLI: UserPromptSubmit takes the snapshot (its record's time) before the model is
//            called;
//   no hooks the extension's watcher on chatSessions takes it when the request appears in VS Code's log (written about
//            every 5 s), late, while the agent works.
// For every request: its submit time (the log's `timestamp`), the time of its snapshot (the record's createdAt: the
// workspace has been read by then), the scripted model's calls for it and which of them came before the snapshot.
// Each path is its own flow file (agent-lag-vscode-chat-*.e2e.ts: one code-server each, under the runner's time limit per
// file); each writes its figures to lag-<path>.json in $AGENT_REWIND_VSCHAT_LAG_OUT (bench/lag-vscode-chat.bench.ts runs
// both and writes BENCHMARKS.md), else in the run's results folder. Run: `npm run test:e2e -- lag-vscode-chat` or
// `npm run bench -- lag-vscode-chat`.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files/file-checkpointer';
import { readLateSnapshotRecords } from '../../../src/core/sources/vscode-chat/late-snapshots';
import { replayMutationLog } from '../../../src/core/sources/vscode-chat/mutation-log';
import { readVsChatSession } from '../../../src/core/sources/vscode-chat/reader';
import { e2eEnv } from './env';
import { createFile, newScriptedChatRun, openScriptedChat, runInTerminal, writeChatScript, type ScriptedStep } from './scripted-chat';
import { resultsDir, type VsCode } from './vscode';
import { waitFor } from './wait';

export const LAG_REQUESTS = Number(process.env.AGENT_REWIND_VSCHAT_LAG_REQUESTS ?? 12);
/** Between two requests, as a person reads the answer: VS Code's log write of one request is not merged with the
 *  next one's (the no-hooks fallback snapshots only the newest request it sees). */
export const PAUSE_MS = 6_000;

export interface LagSample {
  marker: string;
  requestId: string;
  /** The request's submit time (VS Code's timestamp). */
  sentAtMs: number;
  /** When the snapshot read the workspace (its record's createdAt); absent: no snapshot. */
  snapshotAtMs?: number;
  /** The anchor it is stored under: a hook's prompt anchor or the request id (the no-hooks fallback). */
  anchor?: string;
  /** The scripted model's calls for this request: when, and whether before the snapshot. */
  modelCalls: { round: number; atMs: number }[];
  /** For the no-hooks fallback: when the extension recorded the snapshot as taken (after its pack was written). */
  lateTakenAtMs?: number;
}

export interface LagRun {
  path: 'hooks' | 'no-hooks';
  samples: LagSample[];
}

function step(workspace: string, n: number): ScriptedStep {
  const marker = `LAG-${String(n).padStart(2, '0')}`;
  return {
    marker,
    prompt: `${marker}: write two files`,
    calls: [createFile(workspace, `edit-${n}.txt`, `edit ${n}\n`), runInTerminal(workspace, `printf 'term ${n}\\n' > term-${n}.txt`)],
    reply: 'Written.',
  };
}

/** The driver's and the model's logs and the Agent Rewind output channel (what the extension did), kept with the run's
 *  results: the instance folder goes with the run. */
function keepLogs(vs: VsCode, out: string, path: LagRun['path']): void {
  const dir = resultsDir('vscode-chat-lag', path);
  for (const f of ['driver.log', 'model-calls.jsonl']) if (existsSync(join(out, f))) copyFileSync(join(out, f), join(dir, f));
  // the extension host's logs, Agent Rewind's output channel among them
  const logs = join(vs.server.userDataDir, 'logs');
  for (const f of vs.server.extensionHostLogs()) copyFileSync(f, join(dir, relative(logs, f).replace(/[^\w.-]+/g, '-')));
}

export async function measure(path: LagRun['path']): Promise<LagRun> {
  const env = e2eEnv();
  const run = newScriptedChatRun(`vschat-lag-${path}`);
  const { out } = run;
  let vs: VsCode | undefined;
  try {
    vs = await openScriptedChat(
      `agent-lag-vscode-chat-${path}`,
      run,
      ({ workspace, home }) => {
        writeFileSync(join(workspace, 'readme.txt'), 'lag\n');
        if (path === 'hooks') {
          const installed = spawnSync(process.execPath, [join(env.repo, 'dist', 'cli.js'), 'hooks', 'install', 'vscode-chat', '--cwd', workspace], {
            cwd: workspace,
            encoding: 'utf8',
            env: { ...process.env, AGENT_REWIND_HOME: home },
          });
          assert.equal(installed.status, 0, installed.stderr);
        }
        const warmUp = { ...step(workspace, 0), marker: 'LAG-WARMUP', prompt: 'LAG-WARMUP: write two files' };
        const steps = [warmUp, ...Array.from({ length: LAG_REQUESTS }, (_, i) => step(workspace, i + 1))];
        writeChatScript(run, workspace, steps, PAUSE_MS);
      },
      (m) => console.log(`vscode-chat lag: ${m}`),
    );
    const { workspace, home } = vs;
    // Agent Rewind's views are never shown here: the extension starts with the window (onStartupFinished) and watches
    // VS Code's chat log from then. When it started only with its Sessions view, a run like this one snapshotted
    // 0 of 3 requests without hooks
    await waitFor(
      'the driver to send every prompt',
      () => existsSync(join(out, 'done.json')) || existsSync(join(out, 'error.json')),
      (LAG_REQUESTS + 1) * 60_000,
    );
    if (existsSync(join(out, 'error.json'))) assert.fail(`the driver failed: ${readFileSync(join(out, 'error.json'), 'utf8')}`);
    const storage = dirname((JSON.parse(readFileSync(join(out, 'storage.json'), 'utf8')) as { fsPath: string }).fsPath);
    let log = '';
    await waitFor(
      'the chat log to hold every request, complete',
      () => {
        const dir = join(storage, 'chatSessions');
        const file = existsSync(dir) ? readdirSync(dir).find((n) => n.endsWith('.jsonl')) : undefined;
        if (!file) return false;
        log = join(dir, file);
        const requests = (replayMutationLog(readFileSync(log)).state?.requests ?? []) as { message: { text: string }; modelState?: { value: number } }[];
        const mine = requests.filter((r) => /LAG-\d/.test(r.message.text));
        return mine.length === LAG_REQUESTS && mine.every((r) => r.modelState?.value === 1);
      },
      120_000,
    );
    await new Promise((r) => setTimeout(r, 3_000)); // the extension's last snapshot run on the last log write
    keepLogs(vs, out, path);
    // read once VS Code (and the extension with it) is gone: nothing writes the store while it is read
    const closing = vs;
    vs = undefined;
    await closing.close();

    const session = await readVsChatSession(log, { home, roots: [workspace] });
    const fc = new FileCheckpointer({ workspaceRoot: workspace, home });
    let snapshots: Map<string, number>;
    try {
      snapshots = new Map(
        (await fc.listSnapshots(session.sessionId)).filter((r) => r.kind === 'user-message').map((r) => [r.anchorId, Date.parse(r.createdAt)] as const),
      );
    } finally {
      await fc.dispose();
    }
    const late = readLateSnapshotRecords(home, session.sessionId);
    const calls = readFileSync(join(out, 'model-calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { marker: string; round: number; atMs: number });
    const samples: LagSample[] = [];
    for (const r of session.requests()) {
      const marker = /LAG-\d+/.exec(r.text)?.[0];
      if (!marker || r.removed) continue;
      const anchor = session.checkpointKeysOf(r.requestId).find((k) => snapshots.has(k));
      const lateRec = late.get(r.requestId);
      samples.push({
        marker,
        requestId: r.requestId,
        sentAtMs: r.timestamp,
        ...(anchor ? { anchor, snapshotAtMs: snapshots.get(anchor)! } : {}),
        modelCalls: calls.filter((c) => c.marker === marker).map((c) => ({ round: c.round, atMs: c.atMs })),
        ...(lateRec ? { lateTakenAtMs: lateRec.takenAtMs } : {}),
      });
    }
    return { path, samples };
  } catch (e) {
    if (vs) {
      await vs.page.screenshot({ path: join(resultsDir('vscode-chat-lag', path), 'page.png') }).catch(() => {});
      keepLogs(vs, out, path);
    }
    throw e;
  } finally {
    await vs?.close();
  }
}

/** Writes a path's figures where the bench (or a person) finds them. */
export function writeLagFigures(run: LagRun): string {
  const dir = process.env.AGENT_REWIND_VSCHAT_LAG_OUT || resultsDir('vscode-chat-lag');
  const file = join(dir, `lag-${run.path}.json`);
  writeFileSync(file, JSON.stringify({ requests: LAG_REQUESTS, pauseMs: PAUSE_MS, run }, null, 2));
  return file;
}
