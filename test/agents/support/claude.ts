// Runs the real Claude Code CLI in print mode (-p) against a fake Messages API (fake-anthropic.ts), with the
// environment real-agents.md verified: no telemetry, no updater, no non-essential traffic, skip-permissions allowed
// as root (IS_SANDBOX). The child gets a small explicit environment, never the caller's ANTHROPIC_* variables.
import { spawn } from 'node:child_process';

export interface RunClaudeOptions {
  /** The project folder Claude Code works in. */
  cwd: string;
  /** CLAUDE_CONFIG_DIR: transcripts, file-history and user settings go there. */
  configDir: string;
  prompt: string;
  /** The fake server's base URL (http://127.0.0.1:PORT). */
  baseUrl: string;
  /** --session-id: the id of a new session. */
  sessionId?: string;
  /** --resume <id>: continues that session. */
  resume?: string;
  /** With resume: --fork-session (a new session id, the history copied). */
  forkSession?: boolean;
  /** The claude binary (default: the harness's install, see scripts/agents/claude-code.mjs). */
  bin?: string;
  /** Extra environment for Claude Code and so for its hooks (e.g. AGENT_REWIND_HOME). */
  env?: Record<string, string>;
  /** Default 90 s; the whole process group is killed then. */
  timeoutMs?: number;
  /** Sets CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1 (Claude's own file-history). Default true. */
  fileCheckpointing?: boolean;
}

export interface ClaudeRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** stdout parsed (--output-format json), or undefined when it is not JSON. */
  json?: { session_id?: string; is_error?: boolean; result?: string; stop_reason?: string; [k: string]: unknown };
  ms: number;
}

let defaultBin: Promise<string> | undefined;
/** The harness's Claude Code binary, installed on first use. */
export function claudeBin(): Promise<string> {
  defaultBin ??= import('../../../scripts/agents/claude-code.mjs').then((m) => m.ensureClaudeCode());
  return defaultBin;
}

export function claudeEnv(o: Pick<RunClaudeOptions, 'configDir' | 'baseUrl' | 'env' | 'fileCheckpointing'>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: o.baseUrl,
    ANTHROPIC_API_KEY: 'sk-test-fake',
    CLAUDE_CONFIG_DIR: o.configDir,
    IS_SANDBOX: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...(o.fileCheckpointing === false ? {} : { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1' }),
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  // the hooks must not start a checkpoint service that outlives the test (run-agent-tests.mjs sets it)
  if (process.env.AGENT_REWIND_SERVICE_AUTOSTART) env.AGENT_REWIND_SERVICE_AUTOSTART = process.env.AGENT_REWIND_SERVICE_AUTOSTART;
  return { ...env, ...o.env };
}

export async function runClaude(o: RunClaudeOptions): Promise<ClaudeRun> {
  const bin = o.bin ?? (await claudeBin());
  const args = ['-p', o.prompt, '--dangerously-skip-permissions', '--output-format', 'json'];
  if (o.sessionId) args.push('--session-id', o.sessionId);
  if (o.resume) args.push('--resume', o.resume);
  if (o.forkSession) args.push('--fork-session');
  const started = Date.now();
  const timeoutMs = o.timeoutMs ?? 90_000;
  return new Promise<ClaudeRun>((resolve, reject) => {
    // its own process group, so a timeout also ends the hooks and shells it started
    const child = spawn(bin, args, { cwd: o.cwd, env: claudeEnv(o), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      let json: ClaudeRun['json'];
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ exitCode, signal, timedOut, stdout, stderr, json, ms: Date.now() - started });
    });
  });
}
