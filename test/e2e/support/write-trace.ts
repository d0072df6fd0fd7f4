// What a process did to files, by path, from strace (Debian's strace; the e2e setup installs it): the VS Code chat flow
// shows with it that agent-rewind, the CLI and the extension host alike, never opens VS Code's own files for writing,
// so whatever rewrites them is VS Code.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The calls that create, change or remove a file or folder by path (and open, whose flags say which). */
const CALLS = [
  'open',
  'openat',
  'creat',
  'rename',
  'renameat',
  'renameat2',
  'unlink',
  'unlinkat',
  'truncate',
  'mkdir',
  'mkdirat',
  'rmdir',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'chmod',
  'fchmodat',
  'chown',
  'fchownat',
  'lchown',
  'utimensat',
];
const STRACE_ARGS = ['-f', '-qq', '-s', '4096', '-e', `trace=${CALLS.join(',')}`];

/** Runs a command under strace; its trace goes to `traceFile`. */
export function traceCommand(cmd: string, args: string[], traceFile: string, opts: { cwd: string; env: NodeJS.ProcessEnv }) {
  return spawnSync('strace', [...STRACE_ARGS, '-o', traceFile, cmd, ...args], { ...opts, encoding: 'utf8' });
}

/** The processes (every thread of them) whose command line and environment hold these strings. */
export function findProcesses(cmdline: string, environ: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(cmdline) && readFileSync(`/proc/${name}/environ`, 'latin1').includes(environ))
        out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Attaches strace to running processes, every thread, and to the threads they start; stop() detaches it. */
export async function attachTrace(pids: number[], traceFile: string): Promise<{ stop(): Promise<void> }> {
  const tids = pids.flatMap((pid) => readdirSync(`/proc/${pid}/task`));
  const child: ChildProcess = spawn('strace', [...STRACE_ARGS, '-o', traceFile, ...tids.flatMap((t) => ['-p', t])], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise((r) => setTimeout(r, 1_500)); // attached to every thread
  if (child.exitCode !== null) throw new Error(`strace could not attach to ${pids.join(', ')} (exit ${child.exitCode})`);
  return {
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

export interface PathCalls {
  /** Calls that write (or could have written) a path under the folder: an open for writing, a rename, a removal. */
  writes: string[];
  /** Opens for reading only. */
  reads: string[];
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;

/** The traced calls that name a path under `folder` (whether or not they succeeded). */
export function callsUnder(trace: string, folder: string): PathCalls {
  const out: PathCalls = { writes: [], reads: [] };
  const inside = (p: string) => p === folder || p.startsWith(`${folder}/`);
  for (const line of trace.split('\n')) {
    const m = /^(?:\d+\s+)?(\w+)\((.*)$/.exec(line.trim());
    if (!m || !CALLS.includes(m[1]!)) continue;
    const paths = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1]!);
    if (!paths.some(inside)) continue;
    if ((m[1] === 'open' || m[1] === 'openat') && !WRITE_FLAGS.test(m[2]!)) out.reads.push(line.trim());
    else out.writes.push(line.trim());
  }
  return out;
}
