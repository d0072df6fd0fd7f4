// The agents' hooks, answered by the checkpoint service itself: an HTTP endpoint on a second Unix socket
// (<home>/service/hook.sock, 0600, in the 0700 folder), so the hook process can be `sh` + `curl` (the launcher's fast
// path, launcher-script.ts) instead of a Node start-up that costs more than the snapshot. POST /hook/<agent id>, for
// every agent of the registry with hooks; the body is the per-user secret (line 1), the project folder the agent gave
// its hook (line 2: the value of its hooks' projectDirVariable, may be empty) and the hook's stdin JSON as the agent
// wrote it. The very same handler as `agent-rewind hook <agent>` runs here (the agent's hooks.handle: validation,
// anchors, prompt records, logs), with this service's warm checkpointer of the folder.
//
// Every request carries the moment its client gives up, `X-Agent-Rewind-Deadline: <epoch seconds>` (protocol.ts,
// LATE_MARGIN_MS): the hook is not acted on after it, nor once the client has closed its connection, and its snapshot
// is not recorded when the client gave up while the workspace was being read (a service resumed from SIGSTOP took a
// prompt's snapshot after the agent had edited files, issue 22).
//
// Status codes, which the launcher acts on: 200 done; 400 bad input (logged; a fresh process would find the same);
// 401 wrong secret; 500 the snapshot failed (logged). The client falls back to the fresh-process hook on 409 (folder
// not served, or not with the options a CLI hook would use; no deadline, from an older launcher; past the deadline),
// 413 (a body over the limit), 503 (stopping) and 404: nothing was written in those cases. No path from a request is followed except the workspace resolution the CLI hook
// does itself; its realpath must be a folder this service serves.
import { chmodSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FileCheckpointer } from '../files/file-checkpointer';
import type { FileCheckpointerOptions } from '../files/types';
import { resolveWorkspaceRoot } from '../files/workspace-root';
import type { AgentHooks } from '../sources/agent';
import { HookProblem, SnapshotDeclined, type HookSnapshot } from '../sources/hook-snapshot';
import { agentById, hookHandlerFor } from '../sources/registry';
import { checkpointOptionsKey } from './options-key';
import { isLate } from './protocol';
import { sameSecret } from './secret';
import { listenOwnSocket, removeOwnSocket, type SocketFile } from './socket-file';

/** A hook's stdin is its prompt and a few ids; the fresh-process hook (32 MiB) takes anything larger. */
export const MAX_HOOK_BODY_BYTES = 8 * 1024 * 1024;
/** The header with the moment the client gives up, in seconds since the epoch. */
export const DEADLINE_HEADER = 'x-agent-rewind-deadline';
const MAX_DIR_BYTES = 4096;

export interface HookEndpointOptions {
  home: string;
  secret: string;
  /** The checkpointer of a served folder and the key of its options, by realpath. */
  served(realRoot: string): { cp: FileCheckpointer; key: string } | undefined;
  /** The options a fresh `agent-rewind hook` process would use for this folder (the settings file's). */
  cliOptions(root: string, warn: (message: string) => void): FileCheckpointerOptions;
  /** Called around each hook handled (the service's in-flight count and idle timer). */
  begin(): void;
  end(): void;
  /** Called when a client connects and when its connection closes: a request on its way (its client connected, its
   *  body not read yet) is what the service's idle work must not start before (quiet-collection.ts). */
  connected?(): void;
  disconnected?(): void;
  log(message: string): void;
  trace?: boolean;
}

export interface HookAnswer {
  status: 200 | 400 | 401 | 404 | 409 | 413 | 500 | 503;
  code: string;
  /** The folder snapshotted (its realpath), when it got that far. */
  workspace?: string;
  /** How long the checkpointer's snapshot took (the rest is the hook's own work: input, settings, prompt record). */
  snapshotMs?: number;
}

export class HookEndpoint {
  private server: Server | undefined;
  private socketFile: SocketFile | undefined;
  private stopping = false;

  constructor(private readonly opts: HookEndpointOptions) {}

  /** Listens on `path` (a stale socket there is replaced: the caller holds the home's service lock), owner-only. */
  async listen(path: string, setUmask: (mask: number) => number | undefined): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('connection', (socket: Socket) => {
      this.opts.connected?.();
      socket.once('close', () => this.opts.disconnected?.());
    });
    // a client that never finishes its request does not hold a connection for long
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    this.socketFile = await listenOwnSocket(server, path, setUmask);
    chmodSync(path, 0o600);
    server.on('error', (err) => this.opts.log(`hook endpoint error: ${err.message}`));
    this.server = server;
  }

  /** Stops accepting; hooks in flight finish (the service waits for them), then every connection is closed. */
  close(): { closed: Promise<void>; drop(): void } {
    this.stopping = true;
    const server = this.server;
    this.server = undefined;
    if (!server) return { closed: Promise.resolve(), drop: () => {} };
    const socketFile = this.socketFile;
    this.socketFile = undefined;
    // only its own socket file: another service's at the same path is never removed
    const closed = new Promise<void>((r) => server.close(() => r())).then(() => removeOwnSocket(socketFile));
    server.closeIdleConnections();
    return { closed, drop: () => server.closeAllConnections() };
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const id = /^\/hook\/([a-z][a-z0-9-]*)$/.exec(req.url ?? '')?.[1];
    const agent = id === undefined ? undefined : agentById(id);
    const send = (a: HookAnswer) => {
      if (res.headersSent) return;
      const body = JSON.stringify({ code: a.code });
      res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body);
    };
    if (req.method !== 'POST' || !agent?.hooks) {
      req.resume();
      return send({ status: 404, code: 'not-found' });
    }
    if (this.stopping) {
      req.resume();
      return send({ status: 503, code: 'stopping' });
    }
    const deadlineText = req.headers[DEADLINE_HEADER];
    const deadline = typeof deadlineText === 'string' && /^\d{1,12}$/.test(deadlineText) ? Number(deadlineText) * 1000 : undefined;
    if (deadline === undefined) {
      // a launcher written before deadlines: its Node hook asks again with one
      req.resume();
      return send({ status: 409, code: 'no-deadline' });
    }
    let gone = false;
    res.on('close', () => (gone = !res.writableFinished));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_HOOK_BODY_BYTES) {
      req.resume();
      return send({ status: 413, code: 'too-large' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_HOOK_BODY_BYTES) tooLarge = true;
      if (!tooLarge) chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (tooLarge) return send({ status: 413, code: 'too-large' });
      this.opts.begin();
      const t = performance.now();
      const stillWanted = () => {
        if (gone) throw new SnapshotDeclined('late', 'the hook client went away before its snapshot was recorded');
        if (isLate(deadline)) throw new SnapshotDeclined('late', `the hook client gave up at ${new Date(deadline).toISOString()}`);
      };
      void this.handle(agent.hooks!, Buffer.concat(chunks), stillWanted)
        .catch((err: Error): HookAnswer => {
          this.opts.log(`hook ${agent.id}: ${err?.message ?? String(err)}`);
          return { status: 500, code: 'failed' };
        })
        .then((a) => {
          this.opts.end();
          const of = a.snapshotMs !== undefined ? ` (snapshot ${a.snapshotMs.toFixed(1)} ms)` : '';
          const ms = performance.now() - t;
          // answered first: the hook waits for the answer, not for this line
          send(a);
          if (this.opts.trace || a.status === 500 || a.code === 'late')
            this.opts.log(`hook ${agent.id} ${a.workspace ?? '-'} ${a.code} ${ms.toFixed(1)} ms${of}`);
        });
    });
  }

  /** One hook request's body → its answer (the snapshot taken, or why not). `stillWanted` throws SnapshotDeclined
   *  ('late') once the client has given up: checked before anything is done and before the snapshot is recorded. */
  async handle(installedFor: AgentHooks, body: Buffer, stillWanted: () => void = () => {}): Promise<HookAnswer> {
    const nl1 = body.indexOf(10);
    // the secret first: someone without it learns nothing, not even what is wrong with the body
    if (!sameSecret(body.subarray(0, nl1 < 0 ? body.length : nl1).toString('latin1'), this.opts.secret)) return { status: 401, code: 'unauthorized' };
    const nl2 = nl1 < 0 ? -1 : body.indexOf(10, nl1 + 1);
    if (nl2 < 0) return { status: 400, code: 'bad-request' };
    const dir = body.subarray(nl1 + 1, nl2).toString('utf8');
    if (dir.length > MAX_DIR_BYTES || dir.includes('\u0000')) return { status: 400, code: 'bad-request' };
    const text = body.subarray(nl2 + 1).toString('utf8');
    // an editor that runs every agent's hook files sends its own input through another agent's: it goes to its handler
    const hooks = hookHandlerFor(installedFor, text);
    const home = this.opts.home;
    let workspace: string | undefined;
    let snapshotMs: number | undefined;
    // as a fresh process would, but with this service's checkpointer of the folder; declined before anything is written
    const snapshot: HookSnapshot = async ({ root, sessionId, anchorId, kind }) => {
      const warn = (m: string) => hooks.logProblem(home, m);
      let options: FileCheckpointerOptions;
      let real: string;
      try {
        options = this.opts.cliOptions(root, warn);
        real = resolveWorkspaceRoot(root);
      } catch (err) {
        throw new HookProblem((err as Error).message);
      }
      const s = this.opts.served(real);
      if (!s) throw new SnapshotDeclined('not-served', `this checkpoint service does not serve ${real}`);
      if (checkpointOptionsKey(options, real) !== s.key)
        throw new SnapshotDeclined('options-differ', `the checkpoint service of ${real} runs with other options`);
      workspace = real;
      stillWanted();
      const t = performance.now();
      try {
        return { summary: await s.cp.snapshot(sessionId, anchorId, kind, stillWanted), realRoot: real };
      } finally {
        snapshotMs = performance.now() - t;
      }
    };
    try {
      const env = dir && hooks.projectDirVariable ? { [hooks.projectDirVariable]: dir } : {};
      const { status } = await hooks.handle(text, { home, env, snapshot });
      if (status === 'done') return { status: 200, code: 'ok', workspace, snapshotMs };
      return status === 'bad-input' ? { status: 400, code: 'bad-request', workspace } : { status: 500, code: 'failed', workspace, snapshotMs };
    } catch (err) {
      if (err instanceof SnapshotDeclined) return { status: 409, code: err.code, workspace };
      throw err;
    }
  }
}
