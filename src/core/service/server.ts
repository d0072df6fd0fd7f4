// The checkpoint service: one long-lived process (or the extension host's worker thread) that keeps a
// FileCheckpointer per served workspace folder warm — its scanned tree, and an fs.watch watcher behind the cookie
// barrier — and answers snapshot / rewind / undo / list requests from the CLI and the agents' hooks, which would
// otherwise re-check the whole tree from a fresh process each time (as git's fsmonitor daemon or watchman do).
//
// Security: a Unix socket (a named pipe on Windows) in <home>/service (0700), the socket 0600; every request carries
// the per-user secret (<home>/service/secret, 0600); a request names its folder as a realpath and is refused unless
// that exact folder is served (no path from a request is ever resolved or followed); lines are size-limited and
// validated with zod. The agents' hooks may also come in over HTTP on a second socket beside it (hook-endpoint.ts),
// under the same secret and folder rules.
import { chmodSync, existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { FileCheckpointer } from '../files/file-checkpointer';
import type { FileCheckpointerOptions } from '../files/types';
import { cliCheckpointerOptions } from '../settings/settings-file';
import { HookEndpoint } from './hook-endpoint';
import { checkpointOptionsKey } from './options-key';
import { hookSocketPath, infoPath, MAX_SOCKET_PATH, socketPath } from './paths';
import { probe } from './ping';
import { LineReader, MAX_REQUEST_BYTES, requestSchema, type PingValue, type RefusalCode, type ServiceRequest, type ServiceResponse } from './protocol';
import { ensureSecret, ensureServiceDir, sameSecret } from './secret';

export interface CheckpointServiceOptions {
  home: string;
  /** The folders served (any path to them; they are resolved once, at start). */
  workspaces: string[];
  /** A folder's checkpointer options: a function (the CLI's, from the settings file: what a hook would use), or
   *  options besides the folder and the home (FileCheckpointer's defaults when left out). */
  checkpointer?: Omit<FileCheckpointerOptions, 'workspaceRoot' | 'home'> | ((workspaceRoot: string) => FileCheckpointerOptions);
  /** Stops by itself after this long without a request (0 or undefined: never). */
  idleMs?: number;
  /** Watch folders for changes (default true); off, every snapshot re-checks the whole tree like a fresh process. */
  watch?: boolean;
  log?: (message: string) => void;
  /** Log every request answered (method, folder, outcome, time). */
  trace?: boolean;
  /** Answer the agents' hooks over HTTP on <home>/service/hook.sock (default true; never on Windows). */
  hookEndpoint?: boolean;
  /** The options a fresh `agent-rewind hook` process would use for a folder (default: the settings file's,
   *  cliCheckpointerOptions): a hook is answered only when they are the served checkpointer's. */
  hookOptions?: (root: string, warn: (message: string) => void) => FileCheckpointerOptions;
}

export class ServiceRunningError extends Error {
  constructor(
    readonly running: PingValue | undefined,
    readonly socket: string,
  ) {
    super(
      running
        ? `a checkpoint service is already running for this home (pid ${running.pid}, serving ${running.workspaces.join(', ') || 'no folder'}) at ${socket}`
        : `a checkpoint service is already listening at ${socket}`,
    );
  }
}

interface Served {
  cp: FileCheckpointer;
  key: string;
}

export class CheckpointService {
  readonly socket: string;
  /** The hook endpoint's socket, when it listens. */
  hookSocket: string | undefined;
  private server: Server | undefined;
  private hooks: HookEndpoint | undefined;
  private secret = '';
  private readonly served = new Map<string, Served>();
  private readonly sockets = new Set<Socket>();
  private idleTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private stopping: Promise<void> | undefined;
  private readonly startedAt = new Date().toISOString();
  private readonly stoppedPromise: Promise<void>;
  private resolveStopped!: () => void;

  constructor(private readonly opts: CheckpointServiceOptions) {
    this.socket = socketPath(opts.home);
    this.stoppedPromise = new Promise((r) => (this.resolveStopped = r));
  }

  /** The folders served (realpaths). */
  get workspaces(): string[] {
    return [...this.served.keys()];
  }

  /** Resolves once the service has stopped (idle time, stop(), a signal handled by the caller). */
  get stopped(): Promise<void> {
    return this.stoppedPromise;
  }

  /** Opens the folders, starts their watchers and listens. Throws ServiceRunningError when one already answers. */
  async start(): Promise<void> {
    if (process.platform !== 'win32' && Buffer.byteLength(this.socket) > MAX_SOCKET_PATH)
      throw new Error(`the socket path ${this.socket} is too long for a Unix socket; use a shorter --home`);
    ensureServiceDir(this.opts.home);
    this.secret = ensureSecret(this.opts.home);
    const running = await probe(this.socket, this.secret);
    if (running !== false) throw new ServiceRunningError(running === true ? undefined : running, this.socket);
    for (const w of this.opts.workspaces) {
      const c = this.opts.checkpointer;
      const options: FileCheckpointerOptions =
        typeof c === 'function' ? { ...c(w), workspaceRoot: w, home: this.opts.home } : { ...c, workspaceRoot: w, home: this.opts.home };
      const cp = new FileCheckpointer(options);
      if (this.served.has(cp.workspaceRoot)) continue;
      this.served.set(cp.workspaceRoot, { cp, key: checkpointOptionsKey(options, cp.workspaceRoot) });
    }
    // a socket left by a service that died: nobody answered it above
    if (process.platform !== 'win32' && existsSync(this.socket)) unlinkSync(this.socket);
    const server = createServer((s) => this.onConnection(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // owner-only from the start: the folder is 0700 already, and the socket is made under a 0177 umask
      const old = setUmask(0o177);
      try {
        server.listen(this.socket, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        if (old !== undefined) setUmask(old);
      }
    });
    if (process.platform !== 'win32') chmodSync(this.socket, 0o600);
    this.server = server;
    server.on('error', (err) => this.log(`server error: ${err.message}`));
    await this.listenForHooks();
    writeFileSync(
      infoPath(this.opts.home),
      JSON.stringify({ pid: process.pid, workspaces: this.workspaces, startedAt: this.startedAt, socket: this.socket }) + '\n',
      { mode: 0o600 },
    );
    this.armIdle();
    // warm up: the first snapshot of a folder then only looks at what the watcher reported
    if (this.opts.watch !== false) {
      await Promise.all(
        [...this.served].map(([root, s]) =>
          s.cp.startWatching().catch((err: Error) => this.log(`cannot watch ${root} (its snapshots check the whole tree): ${err.message}`)),
        ),
      );
    }
  }

  /** The hook endpoint beside the socket (POSIX): the launcher's sh + perl / curl fast path. Without it hooks still reach
   *  the service through a Node process, so a failure here is logged, not fatal. */
  private async listenForHooks(): Promise<void> {
    if (process.platform === 'win32' || this.opts.hookEndpoint === false) return;
    const path = hookSocketPath(this.opts.home);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return this.log(`no hook endpoint: the socket path ${path} is too long for a Unix socket`);
    const home = this.opts.home;
    const endpoint = new HookEndpoint({
      home,
      secret: this.secret,
      served: (root) => this.served.get(root),
      cliOptions: this.opts.hookOptions ?? ((root, warn) => cliCheckpointerOptions(home, root, warn)),
      begin: () => this.inFlight++,
      end: () => {
        this.inFlight--;
        this.armIdle();
      },
      log: (m) => this.log(m),
      trace: this.opts.trace,
    });
    try {
      await endpoint.listen(path, setUmask);
      this.hooks = endpoint;
      this.hookSocket = path;
    } catch (err) {
      this.log(`no hook endpoint at ${path}: ${(err as Error).message}`);
    }
  }

  private log(m: string): void {
    this.opts.log?.(m);
  }

  private armIdle(): void {
    if (!this.opts.idleMs) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0) return this.armIdle();
      this.log(`idle for ${Math.round(this.opts.idleMs! / 1000)} s: stopping`);
      void this.stop();
    }, this.opts.idleMs);
  }

  private onConnection(s: Socket): void {
    if (this.stopping) return void s.destroy();
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => s.destroy());
    // requests on one connection are answered in order
    let chain = Promise.resolve();
    const reader = new LineReader(
      MAX_REQUEST_BYTES,
      (line) => {
        chain = chain.then(async () => {
          const response = await this.handleLine(line);
          if (!s.destroyed) s.write(JSON.stringify(response) + '\n');
          if (!response.ok && (response.code === 'unauthorized' || response.code === 'bad-request')) s.end();
        });
      },
      () => {
        s.end(
          JSON.stringify({ id: 0, ok: false, code: 'too-large', message: `a request is limited to ${MAX_REQUEST_BYTES} bytes` } satisfies ServiceResponse) +
            '\n',
        );
      },
    );
    s.on('data', (c) => reader.push(c));
  }

  /** One request line → its response (never throws). */
  async handleLine(line: string): Promise<ServiceResponse> {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return refuse(0, 'bad-request', 'not JSON');
    }
    const rid = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number' ? (raw as { id: number }).id : 0;
    // the secret first: someone without it learns nothing, not even what is wrong with the request
    const secret = raw && typeof raw === 'object' ? (raw as { secret?: unknown }).secret : undefined;
    if (typeof secret !== 'string' || !sameSecret(secret, this.secret)) return refuse(rid, 'unauthorized', 'wrong or missing secret');
    const parsed = requestSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return refuse(rid, 'bad-request', `invalid request: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    this.inFlight++;
    const t = performance.now();
    let outcome = 'ok';
    try {
      return { id: rid, ok: true, value: await this.dispatch(parsed.data) };
    } catch (err) {
      outcome = err instanceof Refusal ? err.code : 'failed';
      if (err instanceof Refusal) return refuse(rid, err.code, err.message);
      return refuse(rid, 'failed', (err as Error)?.message ?? String(err));
    } finally {
      this.inFlight--;
      this.armIdle();
      if (this.opts.trace)
        this.log(`${parsed.data.method} ${'workspace' in parsed.data ? parsed.data.workspace : ''} ${outcome} ${(performance.now() - t).toFixed(1)} ms`);
    }
  }

  private async dispatch(r: ServiceRequest): Promise<unknown> {
    if (r.method === 'ping') return { pid: process.pid, workspaces: this.workspaces, startedAt: this.startedAt } satisfies PingValue;
    // the folder as the client resolved it, compared as a string: nothing from a request is ever followed
    const s = this.served.get(r.workspace);
    if (!s) throw new Refusal('not-served', `this checkpoint service does not serve ${r.workspace}`);
    if (r.optionsKey !== s.key) throw new Refusal('options-differ', `the checkpoint service of ${r.workspace} runs with other file-checkpoint options`);
    switch (r.method) {
      case 'snapshot':
        return s.cp.snapshot(r.sessionId, r.anchorId, r.kind);
      case 'rewindFiles':
        return s.cp.rewindFiles(r.sessionId, r.anchorId, r.opts);
      case 'undoLastRewind':
        return s.cp.undoLastRewind(r.sessionId);
      case 'listSnapshots':
        return s.cp.listSnapshots(r.sessionId);
    }
  }

  /** Stops listening, lets the requests in flight finish, saves each folder's stat cache and stops the watchers. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      const server = this.server;
      this.server = undefined;
      // close() waits for open connections: idle clients are told to go first
      const closed = server ? new Promise<void>((r) => server.close(() => r())) : Promise.resolve();
      const hooks = this.hooks?.close();
      this.hooks = undefined;
      for (const s of this.sockets) s.end();
      const deadline = Date.now() + 30_000;
      while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const s of this.sockets) s.destroy();
      hooks?.drop();
      await closed;
      await hooks?.closed;
      await Promise.all([...this.served.values()].map((s) => s.cp.dispose().catch(() => undefined)));
      this.served.clear();
      try {
        unlinkSync(infoPath(this.opts.home));
      } catch {
        /* already gone */
      }
      this.resolveStopped();
    })();
    return this.stopping;
  }
}

class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

function refuse(id: number, code: RefusalCode, message: string): ServiceResponse {
  return { id, ok: false, code, message };
}

/** process.umask(mask), where a process may set it (not on Windows, not in a worker thread: there the 0700 folder
 *  and the chmod after listen keep the socket owner-only). */
function setUmask(mask: number): number | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    return process.umask(mask);
  } catch {
    return undefined;
  }
}
