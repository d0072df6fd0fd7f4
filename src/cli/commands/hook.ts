// `agent-rewind hook <agent>`: what an agent's hooks run (see `agent-rewind hooks install <agent>`). It reads the
// hook's JSON on stdin and hands it to that agent's hook handler (the registry's, by id: src/core/sources/registry.ts),
// with a fresh process's snapshot (service/fresh-hook-snapshot.ts).
//
// A hook must never get in the agent's way: it ALWAYS exits 0 (exit 2 would block Claude Code's prompt) and prints
// NOTHING (a prompt hook's stdout is given to the model). Every problem goes to one line of the agent's log,
// <home>/logs/<agent>-hooks.log (an unknown agent: hooks.log). stdin is bounded (size and time: a writer that never
// closes it cannot hang the hook), and the whole run has a deadline below the agents' 30 s hook timeout. Its module
// graph stays small: no catalog, no sql.js.
import type { Command } from '../command';
import { resolveHome } from '../../core/home';
import { appendHookLog } from '../../core/sources/hook-log';

/** stdin larger than this is refused (a prompt with pasted logs is big; 32 MiB is far beyond any real one). */
export const MAX_STDIN_BYTES = 32 * 1024 * 1024;
/** How long the hook waits for stdin to end. Claude Code writes it at once and closes it. */
export const STDIN_TIMEOUT_MS = 5_000;
/** The whole run, stdin included: the hook gives up (exit 0, logged) just before Claude Code's 30 s timeout kills it. */
export const RUN_DEADLINE_MS = 28_000;
export interface StdinResult {
  text?: string;
  problem?: string;
}

/** Reads a stream to its end, at most maxBytes, for at most timeoutMs. The stream is destroyed afterwards. */
export function readBounded(stream: NodeJS.ReadableStream & { destroy?: () => void }, maxBytes: number, timeoutMs: number): Promise<StdinResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (r: StdinResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.removeAllListeners('end');
      stream.removeAllListeners('error');
      stream.on('error', () => {});
      try {
        stream.destroy?.();
      } catch {
        /* already closed */
      }
      resolve(r);
    };
    const timer = setTimeout(() => finish({ problem: `stdin was not closed within ${timeoutMs} ms (${size} bytes read)` }), timeoutMs);
    stream.on('data', (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > maxBytes) return finish({ problem: `stdin is larger than ${maxBytes} bytes` });
      chunks.push(b);
    });
    stream.on('end', () => finish({ text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', (err: Error) => finish({ problem: `cannot read stdin: ${err.message}` }));
  });
}

/** The hook's whole run; resolves to 0 in every case. */
export async function runAgentHook(argv: string[], io: { stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv }): Promise<number> {
  // `--home DIR` may follow the agent (the launcher's args are ours to choose); nothing else is accepted
  const homeAt = argv.indexOf('--home');
  const home = resolveHome(homeAt >= 0 ? argv[homeAt + 1] : undefined, io.env);
  let logProblem = (message: string) => appendHookLog(home, 'hooks.log', message);
  try {
    const [{ agentById, hookAgents, hookHandlerFor }, { freshProcessSnapshot }] = await Promise.all([
      import('../../core/sources/registry'),
      import('../../core/service/fresh-hook-snapshot'),
    ]);
    const installedFor = agentById(argv[0] ?? '')?.hooks;
    if (!installedFor) {
      logProblem(
        `unknown agent ${JSON.stringify(argv[0] ?? '')} (usage: agent-rewind hook ${hookAgents()
          .map((a) => a.id)
          .join('|')})`,
      );
      return 0;
    }
    logProblem = (message) => installedFor.logProblem(home, message);
    const stdin = await readBounded(io.stdin, MAX_STDIN_BYTES, STDIN_TIMEOUT_MS);
    if (stdin.problem) {
      logProblem(stdin.problem);
      return 0;
    }
    // an editor that runs every agent's hook files sends its own input through another agent's: it goes to its handler
    const hooks = hookHandlerFor(installedFor, stdin.text ?? '');
    logProblem = (message) => hooks.logProblem(home, message);
    await hooks.handle(stdin.text ?? '', { home, env: io.env, snapshot: freshProcessSnapshot(home, logProblem) });
  } catch (err) {
    logProblem((err as Error)?.message ?? String(err));
  }
  return 0;
}

export const hookCommand: Command = {
  usage: "hook <agent>   (run by an agent's hooks: reads the hook JSON on stdin, prints nothing, always exits 0)",
  async raw(argv) {
    const homeAt = argv.indexOf('--home');
    const home = resolveHome(homeAt >= 0 ? argv[homeAt + 1] : undefined);
    // a last guard: whatever hangs (a store lock held elsewhere…), the hook ends quietly before the agent's timeout
    const guard = setTimeout(() => {
      appendHookLog(home, 'hooks.log', `gave up after ${RUN_DEADLINE_MS} ms`);
      process.exit(0);
    }, RUN_DEADLINE_MS);
    guard.unref();
    process.on('uncaughtException', (err) => {
      appendHookLog(home, 'hooks.log', `uncaught: ${err?.message ?? err}`);
      process.exit(0);
    });
    process.on('unhandledRejection', (err) => {
      appendHookLog(home, 'hooks.log', `unhandled: ${(err as Error)?.message ?? err}`);
      process.exit(0);
    });
    const code = await runAgentHook(argv, { stdin: process.stdin, env: process.env });
    clearTimeout(guard);
    return code;
  },
  async run() {
    /* never called: main runs raw() */
  },
};
