// VS Code chat's request-to-snapshot lag (issue 24), measured in real VS Code: this runs the e2e flow
// test/e2e/agent-lag-vscode-chat-{hooks,no-hooks}.e2e.ts through scripts/e2e.mjs (code-server 4.139.1 in the cache folder, chromium, the
// packaged extension, VS Code's agent mode with the scripted model) and reads the figures it writes. Two paths, N
// requests each: with our hooks (UserPromptSubmit) and without (the extension's watcher on VS Code's chat log).
// No reference to divide by: the lag is against the request's own submit time, and the hooks' target is that the
// snapshot comes before the model is called. `--quick` sends 3 requests per path and writes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LagRun, LagSample } from '../test/e2e/support/chat-lag';
import { fmtMs } from './bench-tools';
import { median, percentile, type BenchSection } from './types';

const fmtS = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Tool calls the agent had finished before the snapshot: the model's call after k tool results came before it. */
function toolsBefore(s: LagSample): number {
  const before = s.modelCalls.filter((c) => s.snapshotAtMs !== undefined && c.atMs < s.snapshotAtMs);
  return before.length ? Math.max(...before.map((c) => c.round)) : 0;
}

function rows(run: LagRun): { lines: string[]; ok: boolean } {
  const taken = run.samples.filter((s) => s.snapshotAtMs !== undefined);
  const lags = taken.map((s) => s.snapshotAtMs! - s.sentAtMs);
  const firstCall = run.samples.filter((s) => s.modelCalls.length).map((s) => Math.min(...s.modelCalls.map((c) => c.atMs)) - s.sentAtMs);
  const modelBefore = taken.filter((s) => s.modelCalls.some((c) => c.atMs < s.snapshotAtMs!)).length;
  const tools = taken.map(toolsBefore);
  const label = run.path === 'hooks' ? 'with our hooks (UserPromptSubmit)' : "without hooks (the extension's watcher on the chat log)";
  const hooksOk = run.path !== 'hooks' || (taken.length === run.samples.length && modelBefore === 0);
  const lines = [
    `| ${label}: request sent → snapshot, p50 / p95 (min–max) | ${lags.length ? `${fmtS(median(lags))} / ${fmtS(percentile(lags, 95))} (${fmtS(Math.min(...lags))}–${fmtS(Math.max(...lags))})` : '–'} | ${taken.length} of ${run.samples.length} requests snapshotted |`,
    `| ${label}: request sent → the model's first call, p50 | ${firstCall.length ? fmtMs(median(firstCall)) : '–'} | |`,
    `| ${label}: requests whose model was called before the snapshot | ${modelBefore} of ${taken.length} | ${run.path === 'hooks' ? `target 0: ${hooksOk ? 'ok' : '**missed**'}` : 'no target (the fallback is late by design)'} |`,
    `| ${label}: the agent's tool calls finished before the snapshot, p50 / max (of 2 per request) | ${tools.length ? `${median(tools)} / ${Math.max(...tools)}` : '–'} | |`,
  ];
  return { lines, ok: hooksOk };
}

export async function run(opts: { quick: boolean }): Promise<BenchSection> {
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-vschat-lag-'));
  const load = loadavg()[0]!;
  try {
    const r = spawnSync(process.execPath, ['scripts/e2e.mjs', 'lag-vscode-chat'], {
      stdio: 'inherit',
      env: { ...process.env, AGENT_REWIND_VSCHAT_LAG_OUT: dir, ...(opts.quick ? { AGENT_REWIND_VSCHAT_LAG_REQUESTS: '3' } : {}) },
    });
    const files = ['hooks', 'no-hooks'].map((p) => join(dir, `lag-${p}.json`)).filter((f) => existsSync(f));
    if (files.length === 0) throw new Error(`the lag flows wrote no figures (scripts/e2e.mjs exited with ${r.status})`);
    const read = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as { requests: number; pauseMs: number; run: LagRun });
    const figures = { requests: read[0]!.requests, pauseMs: read[0]!.pauseMs, runs: read.map((x) => x.run) };
    const parts = figures.runs.map(rows);
    const ok = r.status === 0 && parts.length === 2 && parts.every((p) => p.ok);
    const markdown = [
      '| figure | value | target / note |',
      '|---|---:|---|',
      ...parts.flatMap((p) => p.lines),
      '',
      `Real VS Code: code-server 4.139.1 (VS Code 1.139.1), its built-in agent mode with the scripted model of the chat e2e, agent-rewind's packaged extension; for each path a fresh instance, one warm-up request, then ${figures.requests} requests, each one create_file and one run_in_terminal call (two small files), ${figures.pauseMs / 1000} s between a reply and the next request. "Sent" is the request's timestamp in VS Code's log; "snapshot" is the snapshot record's time (the workspace has been read); model calls are the scripted model's own log. With hooks the snapshot is the UserPromptSubmit hook's (\`agent-rewind hook vscode-chat\`, a fresh process), which VS Code awaits before it calls the model. Without hooks VS Code writes its chat log about every 5 s, so the extension sees a request only then: that snapshot holds whatever the agent did in between, and its preview says how many seconds late it was. The extension watches only once it is active (package.json activates it when its Sessions view is shown): the flows show that view first; without it nothing is snapshotted, and with it but before the storage-folder fix of the same day 0 of 3 requests of a workspace's first chat were. Load average (1 min) at the start: ${load.toFixed(1)} on 2 cores shared with other work.${r.status === 0 ? '' : ` The flow's assertions failed (exit ${r.status}): see the rows.`}`,
    ].join('\n');
    return { title: 'VS Code chat: request-to-snapshot lag (real VS Code 1.139)', markdown, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
