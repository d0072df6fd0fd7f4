// A snapshot (a hook's, a command's) that found no checkpoint service serving its folder starts one for the next:
// a detached `agent-rewind serve --auto` (serve.ts), as git starts its fsmonitor daemon on first use. It is spawned
// once the process has nothing left to do ('beforeExit': its snapshot written, its stat index saved, its output
// flushed), so that the new service neither takes a core from the hook's last writes nor loads a stat index the
// hook is still writing, and the hook's process touches (and copies on write) nothing of its memory after the fork.
// Nothing waits for it. The detached process starts the service, or, when one runs (or wins the start at the same
// moment: the home's service lock decides), asks it to serve this folder too. A process that ends with
// process.exit() (a hook past its deadline) starts none. Off with agentRewind.checkpointService.autoStart: false,
// AGENT_REWIND_SERVICE_AUTOSTART=off or AGENT_REWIND_SERVICE=off (settings.ts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
// the module itself, not the service's index: a hook's process must not evaluate the service's server
import { SERVICE_MALLOC_ENV, SERVICE_NODE_ARGS } from '../core/service/service-heap';
import { loadCliSettings } from '../core/settings/settings-file';

/** What the start needs of its process (a test gives its own). */
export interface StarterProcess {
  /** The CLI's script (process.argv[1]). */
  script: string | undefined;
  /** Where 'beforeExit' is heard (process). */
  once(event: 'beforeExit', listener: () => void): unknown;
  spawn: typeof spawn;
}

const thisProcess: StarterProcess = {
  get script() {
    return process.argv[1];
  },
  once: (event, listener) => process.once(event, listener),
  spawn,
};

/** The folders to start a service for, per home, until the process has nothing left to do. */
const pending = new Map<string, { idleMinutes: number; folders: Set<string> }>();

export function startServiceLater(home: string, workspaceRoot: string, proc: StarterProcess = thisProcess): void {
  // only the CLI's own script starts one (a test running the CLI's code in its own process has none to start)
  const cli = proc.script;
  if (!cli || basename(cli) !== 'cli.js') return;
  const { checkpointService } = loadCliSettings(home).settings;
  if (!checkpointService.autoStart) return;
  const queued = pending.get(home);
  if (queued) {
    queued.folders.add(workspaceRoot);
    return;
  }
  pending.set(home, { idleMinutes: checkpointService.idleMinutes, folders: new Set([workspaceRoot]) });
  proc.once('beforeExit', () => {
    const start = pending.get(home);
    pending.delete(home);
    if (start) spawnService(proc, cli, home, start.folders, start.idleMinutes);
  });
}

function spawnService(proc: StarterProcess, cli: string, home: string, folders: Set<string>, idleMinutes: number): void {
  // a young generation sized for a long-lived process, not for throughput (service-heap.ts)
  const args = [...SERVICE_NODE_ARGS, cli, 'serve', '--auto'];
  for (const folder of folders) args.push('--workspace', folder);
  args.push('--idle-minutes', String(idleMinutes), '--home', home);
  // its own session (detached): the agent ending the hook's process group does not end the service
  const env = { ...process.env, ...SERVICE_MALLOC_ENV };
  try {
    const child = proc.spawn(process.execPath, args, { detached: true, stdio: 'ignore', env, ...(existsSync(home) ? { cwd: home } : {}) });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    /* the snapshot is done: a service that could not be started only means the next one is slow too */
  }
}
