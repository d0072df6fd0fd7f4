// "Rewind to here" on an OpenCode prompt, conversation part: OpenCode's own fork, never a write of ours into its
// database. OpenCode forks a session at a message through its server API (`POST /session/<id>/fork {messageID}`: a new
// session holding copies of the messages before that one, titled "<title> (fork #n)"), which `opencode run --session
// <new id>` then continues. So a server is started for the session's folder (`opencode serve --pure`: no plugins,
// so ours takes no snapshot; on 127.0.0.1, a port of its choosing, a random password), asked once, and stopped.
// It reads the user's database but none of their config: a server that loads a config folder starts an npm install
// into it under a lock in OpenCode's state folder, which a stopped server leaves behind, and the user's next `opencode`
// then waited a minute for it to go stale (and the project's `.opencode/` got an install of ours).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OC_ID } from './rows';

/** How long the server may take to start (it loads its config and database first; seconds on a loaded machine). */
const START_MS = 60_000;
const REQUEST_MS = 30_000;

export class OpenCodeForkError extends Error {}

export interface OpenCodeForkOptions {
  /** The opencode executable and any arguments before `serve` (default: `opencode` on PATH). */
  command: readonly string[];
  /** The session's folder: the server runs there. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** The opencode command: `$AGENT_REWIND_OPENCODE_COMMAND` (an executable's path) when set, else `opencode`. */
export function openCodeCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const configured = env.AGENT_REWIND_OPENCODE_COMMAND?.trim();
  return [configured || 'opencode'];
}

/** The server's environment: the user's, with config and state folders of its own under `scratch` (its installs and
 *  their locks land there) and no project config (nothing installed into the project's `.opencode/`). */
export function forkServerEnv(env: NodeJS.ProcessEnv, password: string, scratch: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    OPENCODE_SERVER_PASSWORD: password,
    XDG_CONFIG_HOME: join(scratch, 'config'),
    XDG_STATE_HOME: join(scratch, 'state'),
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
  };
  delete out.OPENCODE_CONFIG_DIR;
  return out;
}

function startServer(opts: OpenCodeForkOptions, password: string, scratch: string): { child: ChildProcess; url: Promise<string> } {
  const [program, ...args] = opts.command;
  const child = spawn(program!, [...args, 'serve', '--pure', '--hostname', '127.0.0.1', '--port', '0'], {
    cwd: opts.cwd,
    env: forkServerEnv(opts.env ?? process.env, password, scratch),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise<string>((ok, fail) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new OpenCodeForkError(`OpenCode's server did not start within ${START_MS / 1000} s`)), START_MS);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
      if (out.length > 64 * 1024) out = out.slice(-1024);
    });
    child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(new OpenCodeForkError(`cannot start ${program} (${e.message}); set AGENT_REWIND_OPENCODE_COMMAND to the opencode executable`));
    });
    // 'close', not 'exit': its stderr is read to the end by then, so the reason it gives is in the message
    child.on('close', (code) => {
      clearTimeout(timer);
      fail(new OpenCodeForkError(`OpenCode's server exited (${code}) before it listened${err.trim() ? `: ${err.trim()}` : ''}`));
    });
  });
  return { child, url };
}

function post(url: string, password: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((ok, fail) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      {
        method: 'POST',
        timeout: REQUEST_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': data.length,
          authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text = (text + c).slice(0, 1024 * 1024)));
        res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new OpenCodeForkError(`OpenCode's server did not answer within ${REQUEST_MS / 1000} s`)));
    req.on('error', fail);
    req.end(data);
  });
}

/** Forks `sessionId` at the user message `messageId` (the new session holds what came before it) through OpenCode's
 *  server; resolves to the new session's id. */
export async function forkOpenCodeSession(sessionId: string, messageId: string, opts: OpenCodeForkOptions): Promise<string> {
  if (!OC_ID.test(sessionId) || !OC_ID.test(messageId)) throw new OpenCodeForkError('not an OpenCode session or message id');
  if (!(await stat(opts.cwd).catch(() => undefined))?.isDirectory())
    throw new OpenCodeForkError(`the session's folder ${opts.cwd} is not there any more: OpenCode's server is started there to fork it`);
  const password = randomBytes(24).toString('hex');
  const scratch = await mkdtemp(join(tmpdir(), 'agent-rewind-opencode-'));
  const { child, url } = startServer(opts, password, scratch);
  try {
    const base = await url;
    const r = await post(`${base}/session/${sessionId}/fork`, password, { messageID: messageId });
    let id: unknown;
    try {
      id = (JSON.parse(r.text) as { id?: unknown }).id;
    } catch {
      id = undefined;
    }
    if (r.status !== 200 || typeof id !== 'string' || !OC_ID.test(id))
      throw new OpenCodeForkError(`OpenCode refused to fork the session (HTTP ${r.status}): ${r.text.slice(0, 500)}`);
    return id;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(scratch, { recursive: true, force: true });
  }
}
