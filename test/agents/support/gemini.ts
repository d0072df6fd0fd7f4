// Runs the real Gemini CLI (installed by scripts/agents/gemini-cli.mjs) offline against the fake Gemini REST API: a
// GEMINI_CLI_HOME with the settings real-agents-2.md verified (API-key auth, no telemetry, no update checks), and
// `gemini -p … --yolo -o json` as a child process (bounded in time, stdin closed), the workspace trusted through
// GEMINI_CLI_TRUST_WORKSPACE so the project's settings, and so its hooks, are loaded.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgentProcess } from './agent-process';

export function writeGeminiSettings(cliHome: string): void {
  mkdirSync(join(cliHome, '.gemini'), { recursive: true });
  writeFileSync(
    join(cliHome, '.gemini', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      },
      null,
      2,
    ) + '\n',
  );
}

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  sessionId?: string;
  response?: string;
}

export async function runGemini(
  bin: string,
  args: string[],
  opts: { cwd: string; cliHome: string; baseUrl: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<GeminiRun> {
  const r = await runAgentProcess(process.execPath, [bin, ...args, '--yolo', '-o', 'json'], {
    cwd: opts.cwd,
    env: {
      ...process.env,
      ...opts.env,
      GEMINI_CLI_HOME: opts.cliHome,
      GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
      GEMINI_API_KEY: 'fake-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      NO_COLOR: '1',
    },
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  let parsed: { session_id?: string; response?: string } = {};
  try {
    parsed = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  } catch {
    /* not JSON: the caller shows stdout */
  }
  return {
    ...r,
    ...(parsed.session_id ? { sessionId: parsed.session_id } : {}),
    ...(parsed.response !== undefined ? { response: parsed.response } : {}),
  };
}
