// Runs a real agent CLI as a child process the way the agent tests need it: bounded in time (killed after timeoutMs),
// stdin closed or given the prompt, stdout and stderr collected for the assertion messages.
import { spawn } from 'node:child_process';

export interface AgentProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runAgentProcess(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs: number },
): Promise<AgentProcessResult> {
  return new Promise((ok) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr });
    });
  });
}
