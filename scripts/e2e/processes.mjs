// Starts long-running helpers (code-server) in their own process group and stops the whole group, so nothing
// outlives a run: not on failure, not on Ctrl-C. Every process started by a run carries AGENT_REWIND_E2E_RUN in its
// environment; killRunProcesses() finds leftovers by that marker (e.g. a browser whose test process was killed).
import { spawn } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync } from 'node:fs';

const running = new Set();

/** Spawns `cmd` detached (its own process group) with stdout+stderr appended to logFile. */
export function startProcess(cmd, args, { env, cwd, logFile }) {
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const handle = {
    pid: child.pid,
    child,
    exited,
    exitCode: () => child.exitCode,
    stop: () => stopGroup(child, exited),
  };
  running.add(handle);
  exited.then(() => running.delete(handle));
  return handle;
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

async function stopGroup(child, exited) {
  if (child.pid === undefined) return;
  signalGroup(child.pid, 'SIGTERM');
  // Give it a moment to exit cleanly, then make sure the whole group (its extension host, watchers) is gone.
  const timeout = new Promise((resolve) => setTimeout(resolve, 5000, 'timeout').unref());
  if ((await Promise.race([exited, timeout])) === 'timeout') signalGroup(child.pid, 'SIGKILL');
  else signalGroup(child.pid, 'SIGKILL'); // children that ignored SIGTERM but share the group
}

export async function stopAll() {
  await Promise.all([...running].map((h) => h.stop()));
}

/** Kills every process whose environment carries AGENT_REWIND_E2E_RUN=<runId> (never this process); returns them. */
export function killRunProcesses(runId) {
  const marker = `AGENT_REWIND_E2E_RUN=${runId}`;
  const killed = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (!environ.split('\0').includes(marker)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 160);
    } catch {
      /* exited meanwhile */
    }
    try {
      process.kill(pid, 'SIGKILL');
      killed.push({ pid, cmd });
    } catch {
      /* exited meanwhile */
    }
  }
  return killed;
}

let stopping = false;
/** True once stopAllOnSignals() is shutting down (children exiting then is expected, not a failure). */
export function stoppingOnSignal() {
  return stopping;
}

/** Stops everything this process started when it is interrupted, then exits with the conventional code. */
export function stopAllOnSignals() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      stopping = true;
      stopAll().finally(() => process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal]));
    });
  }
}
