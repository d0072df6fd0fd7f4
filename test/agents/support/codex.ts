// Runs the real Codex CLI (installed by scripts/agents/codex.mjs) offline against the fake Responses API: a
// CODEX_HOME with the config real-agents.md verified, and `codex exec` / `codex exec resume` as child processes
// (bounded in time, stdin closed).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
export function runCodex(
  bin: string,
  args: string[],
  opts: { cwd: string; codexHome: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CodexRun> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [bin, 'exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--json', ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, CODEX_HOME: opts.codexHome, FAKE_OPENAI_API_KEY: 'sk-test', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = /"type":"thread\.started","thread_id":"([^"]+)"/.exec(stdout);
      ok({ code, stdout, stderr, ...(m ? { threadId: m[1] } : {}) });
    });
  });
}
