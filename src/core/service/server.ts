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
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { acquireFileLock, LockBusyError, type HeldLock } from '../file-lock';
import { FileCheckpointer } from '../files/file-checkpointer';
import type { WatchLimitReport } from '../files/scan/watch-limit';
import type { FileCheckpointerOptions } from '../files/types';
import { cliCheckpointerOptions } from '../settings/settings-file';
import { HookEndpoint } from './hook-endpoint';
import { checkpointOptionsKey } from './options-key';
import { hookSocketPath, infoPath, MAX_SOCKET_PATH, serviceLockPath, socketPath } from './paths';
import { probe } from './ping';
import { QuietCollector } from './quiet-collection';
import {
  isLate,
  LineReader,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  requestSchema,
  type PingValue,
  type RefusalCode,
  type ServiceOrigin,
  type ServiceRequest,
  type ServiceResponse,
} from './protocol';
import { ensureSecret, ensureServiceDir, sameSecret } from './secret';
import { bindingPath, listenOwnSocket, removeOwnSocket, type SocketFile } from './socket-file';

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
  /** Called once per served folder when the system's watch limit leaves some of its folders unwatched (the message
   *  is logged too): the extension shows it as a notification, with the fix. */
  onWatchLimit?: (workspace: string, report: WatchLimitReport) => void;
  /** Log every request answered (method, folder, outcome, time). */
  trace?: boolean;
  /** Answer the agents' hooks over HTTP on <home>/service/hook.sock (default true; never on Windows). */
  hookEndpoint?: boolean;
  /** The options a fresh `agent-rewind hook` process would use for a folder (default: the settings file's,
   *  cliCheckpointerOptions): a hook is answered only when they are the served checkpointer's. */
  hookOptions?: (root: string, warn: (message: string) => void) => FileCheckpointerOptions;
  /** @internal tests: when a quiet service collects its garbage (quiet-collection.ts's defaults otherwise). */
  quietCollection?: { quietMs?: number; minGrowthBytes?: number };
  /** Who started it (`agent-rewind serve --status` shows it): default `serve`. */
  origin?: ServiceOrigin;
  /** How many folders a `serve` request may bring it to (default MAX_SERVED_FOLDERS). */
  maxWorkspaces?: number;
}

/** A `serve` request adds a folder up to this many: each costs a watcher and its tree's memory. */
export const MAX_SERVED_FOLDERS = 64;

export class ServiceRunningError extends Error {
  constructor(
    readonly running: PingValue | undefined,
    readonly socket: string,
    /** The lock holder's pid when the home's service lock is what refused the start; null while the holder has not
     *  written its name into the lock yet (it is starting this moment). */
    readonly lockedBy?: number | null,
  ) {
    super(
      running
        ? `a checkpoint service is already running for this home (pid ${running.pid}, serving ${running.workspaces.join(', ') || 'no folder'}) at ${socket}`
        : lockedBy !== undefined
          ? `a checkpoint service is already running for this home (${lockedBy === null ? 'starting' : `pid ${lockedBy}, starting or not answering`} at ${socket})`
          : `a checkpoint service is already listening at ${socket}`,
    );
  }
}

interface Served {
  cp: FileCheckpointer;
  key: string;
  /** A folder added by a `serve` request: its watcher starting. */
  watching?: Promise<void>;
}

/** A request being answered: until when its caller waits (moved on by its liveness pings), and whether it has gone. */
interface Call {
  method: string;
  deadline: number;
  gone: boolean;
}

export class CheckpointService {
  readonly socket: string;
  /** The hook endpoint's socket, when it listens. */
  hookSocket: string | undefined;
  private server: Server | undefined;
  /** The socket file this service made (removed on stop only while it is still that file). */
  private socketFile: SocketFile | undefined;
  /** The home's service lock, held from start to stop. */
  private lock: HeldLock | undefined;
  private hooks: HookEndpoint | undefined;
  private secret = '';
  private readonly served = new Map<string, Served>();
  private readonly sockets = new Set<Socket>();
  /** Requests being answered, by their call id (what a liveness ping names to extend one). */
  private readonly calls = new Map<string, Call>();
  private idleTimer: NodeJS.Timeout | undefined;
  /** When the idle timer armed last fires (epoch ms), for a ping's idleLeftMs. */
  private idleDueAt = 0;
  private inFlight = 0;
  /** Hook clients connected and not gone: each is a request in flight or on its way (its body still coming). */
  private hookConnections = 0;
  /** Frees what requests left behind once the service goes quiet (quiet-collection.ts). */
  private readonly quiet: QuietCollector;
  /** Requests taken on (pings left out), hooks included: what `serve --status` shows, and how a test sees it used. */
  private answered = 0;
  private stopping: Promise<void> | undefined;
  private readonly startedAt = new Date().toISOString();
  private readonly stoppedPromise: Promise<void>;
  private resolveStopped!: () => void;

  constructor(private readonly opts: CheckpointServiceOptions) {
    this.socket = socketPath(opts.home);
    this.quiet = new QuietCollector({
      ...opts.quietCollection,
      busy: () => this.inFlight > 0 || this.hookConnections > 0,
      ...(opts.trace ? { log: (m) => this.log(m) } : {}),
    });
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

  /** Opens the folders, starts their watchers and listens. Throws ServiceRunningError when one already runs. */
  async start(): Promise<void> {
    const longest = Math.max(Buffer.byteLength(this.socket), Buffer.byteLength(bindingPath(this.socket)) + 4);
    if (process.platform !== 'win32' && longest > MAX_SOCKET_PATH)
      throw new Error(`the socket path ${this.socket} is too long for a Unix socket; use a shorter --home`);
    ensureServiceDir(this.opts.home);
    this.secret = ensureSecret(this.opts.home);
    // One service per home, decided by an exclusively created lock file held for the service's whole life (taken
    // over at once when its holder died): two starts at the same moment both found no socket answering and both
    // listened, and stopping one then removed the other's socket.
    try {
      this.lock = await acquireFileLock(serviceLockPath(this.opts.home), { timeoutMs: 0 });
    } catch (err) {
      if (!(err instanceof LockBusyError)) throw err;
      const running = await probe(this.socket, this.secret);
      const pid = Number(/^(\d+)@/.exec(err.owner)?.[1]);
      // an owner not written yet (another start between its lock's creation and its write) is still the lock's refusal
      throw new ServiceRunningError(typeof running === 'object' ? running : undefined, this.socket, Number.isFinite(pid) ? pid : null);
    }
    try {
      await this.startHoldingLock();
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  private async startHoldingLock(): Promise<void> {
    // a service of an older version takes no lock: it still answers here
    const running = await probe(this.socket, this.secret);
    if (running !== false) throw new ServiceRunningError(running === true ? undefined : running, this.socket);
    for (const w of this.opts.workspaces) {
      const options = this.optionsFor(w);
      const cp = new FileCheckpointer(options);
      if (this.served.has(cp.workspaceRoot)) continue;
      this.served.set(cp.workspaceRoot, { cp, key: checkpointOptionsKey(options, cp.workspaceRoot) });
    }
    const server = createServer((s) => this.onConnection(s));
    if (process.platform === 'win32') {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.socket, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } else {
      // a socket left by a service that died (nobody answered it above) is replaced by the rename
      this.socketFile = await listenOwnSocket(server, this.socket, setUmask);
      chmodSync(this.socket, 0o600);
    }
    this.server = server;
    server.on('error', (err) => this.log(`server error: ${err.message}`));
    await this.listenForHooks();
    this.writeInfo();
    this.armIdle();
    // warm up: the first snapshot of a folder then only looks at what the watcher reported
    if (this.opts.watch !== false) {
      await Promise.all(
        [...this.served].map(([root, s]) =>
          s.cp
            .startWatching((report) => this.sayWatchLimit(root, report))
            .catch((err: Error) => this.log(`cannot watch ${root} (its snapshots check the whole tree): ${err.message}`)),
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
      begin: () => {
        this.inFlight++;
        this.answered++;
      },
      end: () => {
        this.inFlight--;
        this.requestEnded();
      },
      connected: () => this.hookConnections++,
      disconnected: () => {
        // the last one gone (an answered hook's connection closes after its answer): the quiet moment starts now
        if (--this.hookConnections === 0) this.quiet.settled();
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

  private optionsFor(folder: string): FileCheckpointerOptions {
    const c = this.opts.checkpointer;
    return typeof c === 'function' ? { ...c(folder), workspaceRoot: folder, home: this.opts.home } : { ...c, workspaceRoot: folder, home: this.opts.home };
  }

  /** service.json: who runs and what it serves (for a second start's message and people; a ping says the same). */
  private writeInfo(): void {
    writeFileSync(
      infoPath(this.opts.home),
      JSON.stringify({ pid: process.pid, workspaces: this.workspaces, startedAt: this.startedAt, socket: this.socket, origin: this.opts.origin ?? 'serve' }) +
        '\n',
      { mode: 0o600 },
    );
  }

  /**
   * Serves one more folder (a `serve` request: a hook or CLI command found it not served and did its work itself).
   * The folder is named by its realpath as the client resolved it and must resolve to exactly that here (nothing else
   * is followed); it is served only with the options the client would use, so every answer is still the snapshot the
   * client would have taken. Answered once its watcher runs.
   */
  private async serveFolder(workspace: string, optionsKey: string): Promise<{ workspaces: string[] }> {
    const known = this.served.get(workspace);
    if (known) {
      if (known.key !== optionsKey) throw new Refusal('options-differ', `this checkpoint service serves ${workspace} with other file-checkpoint options`);
      await known.watching;
      return { workspaces: this.workspaces };
    }
    if (this.stopping) throw new Refusal('failed', 'the checkpoint service is stopping');
    const most = this.opts.maxWorkspaces ?? MAX_SERVED_FOLDERS;
    if (this.served.size >= most) throw new Refusal('too-large', `this checkpoint service serves ${most} folders already`);
    let options: FileCheckpointerOptions;
    let cp: FileCheckpointer;
    try {
      options = this.optionsFor(workspace);
      cp = new FileCheckpointer(options);
    } catch (err) {
      throw new Refusal('failed', (err as Error).message);
    }
    if (cp.workspaceRoot !== workspace) throw new Refusal('bad-request', `${workspace} is not the real path of a folder`);
    const key = checkpointOptionsKey(options, cp.workspaceRoot);
    if (key !== optionsKey) throw new Refusal('options-differ', `the checkpoint service would serve ${workspace} with other file-checkpoint options`);
    const served: Served = { cp, key };
    this.served.set(workspace, served);
    this.writeInfo();
    this.log(`serving ${workspace} too`);
    if (this.opts.watch !== false)
      served.watching = cp
        .startWatching((report) => this.sayWatchLimit(workspace, report))
        .catch((err: Error) => this.log(`cannot watch ${workspace} (its snapshots check the whole tree): ${err.message}`));
    await served.watching;
    return { workspaces: this.workspaces };
  }

  /** The ping's answer: who runs, what it serves, its memory and its idle timer. */
  /** Once per folder: the system's watch limit left some of its folders unwatched (checked at every request now). */
  private sayWatchLimit(workspace: string, report: WatchLimitReport): void {
    this.log(report.message);
    this.opts.onWatchLimit?.(workspace, report);
  }

  private pingValue(): PingValue {
    const idleMs = this.opts.idleMs ?? 0;
    const watchLimit = [...this.served].flatMap(([workspace, s]) => {
      const r = s.cp.watchLimit;
      return r ? [{ workspace, folders: r.folders, message: r.message }] : [];
    });
    return {
      pid: process.pid,
      workspaces: this.workspaces,
      startedAt: this.startedAt,
      origin: this.opts.origin ?? 'serve',
      rssBytes: process.memoryUsage.rss(),
      requests: this.answered,
      idleMs,
      ...(idleMs ? { idleLeftMs: this.inFlight > 1 ? idleMs : Math.max(0, this.idleDueAt - Date.now()) } : {}),
      ...(watchLimit.length ? { watchLimit } : {}),
    };
  }

  /** A request other than a ping was answered. */
  private requestEnded(): void {
    this.armIdle();
    this.quiet.settled();
  }

  private armIdle(): void {
    if (!this.opts.idleMs) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleDueAt = Date.now() + this.opts.idleMs;
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0) return this.armIdle();
      this.log(`idle for ${Math.round(this.opts.idleMs! / 1000)} s: stopping`);
      void this.stop();
    }, this.opts.idleMs);
  }

  private onConnection(s: Socket): void {
    if (this.stopping) return void s.destroy();
    this.sockets.add(s);
    // a connection that closes is a caller that has given up: what it asked for is not done after that
    const open = new Set<Call>();
    s.on('close', () => {
      this.sockets.delete(s);
      for (const c of open) c.gone = true;
    });
    s.on('error', () => s.destroy());
    // requests on one connection are answered in order
    let chain = Promise.resolve();
    const reader = new LineReader(
      MAX_REQUEST_BYTES,
      (line) => {
        chain = chain.then(async () => {
          const response = await this.handleLine(line, open);
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

  /** One request line → its response (never throws). `open`: the requests of its connection (see onConnection). */
  async handleLine(line: string, open?: Set<Call>): Promise<ServiceResponse> {
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
    const v = (raw as { v?: unknown }).v;
    if (v !== PROTOCOL_VERSION) return refuse(rid, 'version', `this checkpoint service speaks protocol ${PROTOCOL_VERSION}, not ${JSON.stringify(v)}`);
    const parsed = requestSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return refuse(rid, 'bad-request', `invalid request: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const req = parsed.data;
    const call: Call = { method: req.method, deadline: req.deadline, gone: false };
    const callId = 'call' in req ? req.call : undefined;
    if (callId) this.calls.set(callId, call);
    open?.add(call);
    this.inFlight++;
    if (req.method !== 'ping' && req.method !== 'serve' && req.method !== 'stop') this.answered++;
    const t = performance.now();
    let outcome = 'ok';
    try {
      if (req.method !== 'ping') stillWanted(call)(); // a ping does nothing: it is answered however late
      return { id: rid, ok: true, value: await this.dispatch(req, stillWanted(call)) };
    } catch (err) {
      outcome = err instanceof Refusal ? err.code : 'failed';
      if (err instanceof Refusal && err.code === 'late') this.log(`${req.method} not done: ${err.message}`);
      if (err instanceof Refusal) return refuse(rid, err.code, err.message);
      return refuse(rid, 'failed', (err as Error)?.message ?? String(err));
    } finally {
      if (callId && this.calls.get(callId) === call) this.calls.delete(callId);
      open?.delete(call);
      this.inFlight--;
      // a ping is no use of the service (`serve --status`, a client's liveness check): it does not keep it from idling out
      if (req.method !== 'ping') this.requestEnded();
      if (this.opts.trace)
        this.log(`${parsed.data.method} ${'workspace' in parsed.data ? parsed.data.workspace : ''} ${outcome} ${(performance.now() - t).toFixed(1)} ms`);
    }
  }

  private async dispatch(r: ServiceRequest, guard: () => void): Promise<unknown> {
    if (r.method === 'ping') {
      // the request it names is still waited for, until the next ping could give up on it: only a ping on time says so
      const c = r.extend && this.calls.get(r.extend.call);
      if (c && !c.gone && !isLate(r.deadline)) c.deadline = Math.max(c.deadline, r.extend!.deadline);
      return this.pingValue();
    }
    if (r.method === 'stop') {
      // after this answer is written (the stop waits for the requests in flight, this one included)
      setTimeout(() => {
        this.log('asked to stop');
        void this.stop();
      }, 0);
      return { pid: process.pid };
    }
    if (r.method === 'serve') return this.serveFolder(r.workspace, r.optionsKey);
    // the folder as the client resolved it, compared as a string: nothing from a request is ever followed
    const s = this.served.get(r.workspace);
    if (!s) throw new Refusal('not-served', `this checkpoint service does not serve ${r.workspace}`);
    if (r.optionsKey !== s.key) throw new Refusal('options-differ', `the checkpoint service of ${r.workspace} runs with other file-checkpoint options`);
    switch (r.method) {
      case 'snapshot':
        return s.cp.snapshot(r.sessionId, r.anchorId, r.kind, guard);
      case 'rewindFiles':
        return s.cp.rewindFiles(r.sessionId, r.anchorId, r.opts, r.opts.dryRun ? undefined : guard);
      case 'undoLastRewind':
        return s.cp.undoLastRewind(r.sessionId, guard);
      case 'listSnapshots':
        return s.cp.listSnapshots(r.sessionId);
    }
  }

  /** Stops listening, lets the requests in flight finish, saves each folder's stat cache and stops the watchers. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.quiet.dispose();
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
      // only what this service made: never another's socket or service.json
      removeOwnSocket(this.socketFile);
      this.socketFile = undefined;
      if (this.lock) removeOwnInfo(this.opts.home);
      await this.lock?.release();
      this.lock = undefined;
      this.resolveStopped();
    })();
    return this.stopping;
  }
}

/** The check made before acting: throws 'late' once the caller has given up (its deadline passed, or it went away). */
function stillWanted(call: Call): () => void {
  return () => {
    if (call.gone) throw new Refusal('late', `the caller of this ${call.method} request went away before it was done; nothing was done`);
    if (isLate(call.deadline))
      throw new Refusal('late', `this ${call.method} request was due by ${new Date(call.deadline).toISOString()}, when its caller gave up; nothing was done`);
  };
}

class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** Removes service.json when this process wrote it. */
function removeOwnInfo(home: string): void {
  try {
    const info = JSON.parse(readFileSync(infoPath(home), 'utf8')) as { pid?: unknown };
    if (info.pid === process.pid) unlinkSync(infoPath(home));
  } catch {
    /* gone, or not ours to remove */
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
