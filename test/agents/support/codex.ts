// Runs the real Codex CLI (installed by scripts/agents/codex.mjs) offline against fake-openai.ts's Responses API: a
// CODEX_HOME with the config real-agents.md verified, and `codex exec` / `codex exec resume` as child processes
// (bounded in time, stdin closed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgentProcess } from './agent-process';

export function writeCodexConfig(codexHome: string, baseUrl: string): void {
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
}

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The thread id from the `thread.started` JSON event. */
  threadId?: string;
}

/** `codex exec --json … <args>` in `cwd`; hooks run without the TUI's trust step (exec skips untrusted hooks). */
export async function runCodex(
  bin: string,
  args: string[],
  opts: { cwd: string; codexHome: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CodexRun> {
  const r = await runAgentProcess(process.execPath, [bin, 'exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--json', ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, CODEX_HOME: opts.codexHome, FAKE_OPENAI_API_KEY: 'sk-test', NO_COLOR: '1' },
    timeoutMs: opts.timeoutMs ?? 90_000,
  });
  const m = /"type":"thread\.started","thread_id":"([^"]+)"/.exec(r.stdout);
  return { ...r, ...(m ? { threadId: m[1] } : {}) };
}
