// Runs the real OpenCode CLI (installed by scripts/agents/opencode.mjs) offline against fake-openai.ts's Chat Completions
// API: HOME and the XDG folders under one test folder, the provider given through OPENCODE_CONFIG_CONTENT (the
// config real-agents-2.md verified), npm kept offline (its plugin install otherwise retries for ~70 s), and
// `opencode run` as a child process with the prompt on stdin (an argument would be stored in literal quotes).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runAgentProcess } from './agent-process';

export interface OpenCodeEnv {
  /** HOME, XDG_* live under it. */
  root: string;
  env: NodeJS.ProcessEnv;
  /** $XDG_DATA_HOME/opencode: opencode.db and its snapshots. */
  dataDir: string;
  /** $XDG_CONFIG_HOME/opencode: the user's config folder (plugins/). */
  configDir: string;
}

export function openCodeEnv(root: string, baseUrl: string): OpenCodeEnv {
  const dirs = {
    HOME: join(root, 'home'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_STATE_HOME: join(root, 'state'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const config = {
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: baseUrl, apiKey: 'fake-key' },
        models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 128000, output: 8192 } } },
      },
    },
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
    permission: { edit: 'allow', bash: 'allow', webfetch: 'allow', external_directory: 'allow' },
  };
  return {
    root,
    dataDir: join(dirs.XDG_DATA_HOME, 'opencode'),
    configDir: join(dirs.XDG_CONFIG_HOME, 'opencode'),
    env: {
      ...dirs,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      npm_config_offline: 'true',
      NO_COLOR: '1',
    },
  };
}

export interface OpenCodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The session id of the JSON events. */
  sessionId?: string;
}

/** `opencode run --format json <args>` in `cwd` with `prompt` on stdin. */
export async function runOpenCode(
  bin: string,
  args: string[],
  prompt: string,
  opts: { cwd: string; oc: OpenCodeEnv; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<OpenCodeRun> {
  const r = await runAgentProcess(bin, ['run', '--format', 'json', ...args], {
    cwd: opts.cwd,
    // the hooks must not start a checkpoint service that outlives the test (run-agent-tests.mjs sets it off)
    env: {
      PATH: process.env.PATH,
      ...(process.env.AGENT_REWIND_SERVICE_AUTOSTART ? { AGENT_REWIND_SERVICE_AUTOSTART: process.env.AGENT_REWIND_SERVICE_AUTOSTART } : {}),
      ...opts.oc.env,
      ...opts.env,
    },
    input: prompt,
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  const m = /"sessionID":"(ses_[^"]+)"/.exec(r.stdout);
  return { ...r, ...(m ? { sessionId: m[1] } : {}) };
}
