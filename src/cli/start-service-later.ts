// A snapshot (a hook's, a command's) that found no checkpoint service serving its folder starts one for the next:
// a detached `agent-rewind serve --auto` (serve.ts), as git starts its fsmonitor daemon on first use. Nothing waits
// for it: the process that spawns it has written its snapshot already, and exits as before. The detached process
// starts the service, or, when one runs (or wins the start at the same moment: the home's service lock decides), asks
// it to serve this folder too. Off with agentRewind.checkpointService.autoStart: false,
// AGENT_REWIND_SERVICE_AUTOSTART=off or AGENT_REWIND_SERVICE=off (settings.ts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { SERVICE_MALLOC_ENV, SERVICE_NODE_ARGS } from '../core/service';
import { loadCliSettings } from './cli-settings';

export function startServiceLater(home: string, workspaceRoot: string): void {
  // only the CLI's own script starts one (a test running the CLI's code in its own process has none to start)
  const cli = process.argv[1];
  if (!cli || basename(cli) !== 'cli.js') return;
  const { checkpointService } = loadCliSettings(home).settings;
  if (!checkpointService.autoStart) return;
  // a young generation sized for a long-lived process, not for throughput (service-heap.ts)
  const args = [
    ...SERVICE_NODE_ARGS,
    cli,
    'serve',
    '--auto',
    '--workspace',
    workspaceRoot,
    '--idle-minutes',
    String(checkpointService.idleMinutes),
    '--home',
    home,
  ];
  // its own session (detached): the agent ending the hook's process group does not end the service
  const env = { ...process.env, ...SERVICE_MALLOC_ENV };
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env, ...(existsSync(home) ? { cwd: home } : {}) });
  child.on('error', () => undefined);
  child.unref();
}
