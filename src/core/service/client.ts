// The client side of the checkpoint service, for the CLI and the agents' hooks: ask the service of this home first,
// and when nobody answers (no socket: at once; a socket nobody accepts on: after CONNECT_TIMEOUT_MS) or the service
// does not serve this folder with these options, do what a fresh process always did — its own FileCheckpointer.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
// the in-process checkpointer (and the engine behind it) is loaded only on fallback: a hook answered by the
// service never evaluates it
import type { FileCheckpointer } from '../files/file-checkpointer';
import type { SnapshotRecord } from '../files/snapshot-records';
import type { TimelinePoint } from '../files/timeline';
import type {
  FileCheckpointerOptions,
  FileCheckpoints,
  ImportedFile,
  RewindFilesOptions,
  RewindFilesResult,
  SnapshotFileDiff,
  SnapshotId,
  FileHistory,
  TurnWrites,
  FileHunks,
  FileBlame,
  SnapshotKind,
  SnapshotSummary,
} from '../files/types';
import type { WatcherSync } from '../files/scan/watcher-sync';
import { resolveWorkspaceRoot } from '../files/workspace-root';
import { checkpointOptionsKey } from './options-key';
import { infoPath, socketPath } from './paths';
import { LineReader, MAX_RESPONSE_BYTES, PROTOCOL_VERSION, type RefusalCode, type ServiceResponse } from './protocol';
import { readSecret } from './secret';
import { probe } from './ping';
import { serviceStarter } from './service-starter';

/** The fallback decision: a connect attempt to a socket that exists gets this long. */
export const CONNECT_TIMEOUT_MS = 20;

/**
 * A request may take long (a first snapshot of a big tree), so it has no time limit of its own; instead, each time it
 * has waited `silenceMs`, the client pings the service on a second connection, and a service that does not answer that
 * ping within `pingMs` (stopped, stuck in a loop, its socket wedged) is given up on: the call then fails (or falls back
 * to this process, as for a lost connection) instead of waiting forever.
 */
export interface Liveness {
  silenceMs: number;
  pingMs: number;
}
export const DEFAULT_LIVENESS: Liveness = { silenceMs: 10_000, pingMs: 5_000 };

export class ServiceRefusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** The connection was lost after the request was sent: the service may or may not have done it. */
export class ServiceLost extends Error {}

/** The service stopped answering during a request, even a ping (see Liveness): the request may or may not be done. */
export class ServiceStuck extends ServiceLost {}

/** One connection to the service; requests go one at a time. */
export class ServiceClient {
  private nextId = 0;
  private waiting: { id: number; resolve(r: ServiceResponse): void; reject(e: Error): void } | undefined;
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly secret: string,
    private readonly home: string,
    private readonly liveness: Liveness,
  ) {
    const reader = new LineReader(
      MAX_RESPONSE_BYTES,
      (line) => {
        const w = this.waiting;
        if (!w) return;
        this.waiting = undefined;
        try {
          w.resolve(JSON.parse(line) as ServiceResponse);
        } catch {
          w.reject(new ServiceLost('the checkpoint service sent something that is not JSON'));
        }
      },
      () => this.fail(new ServiceLost('the checkpoint service sent a response over the size limit')),
    );
    socket.on('data', (c) => reader.push(c));
    socket.on('error', () => this.fail(new ServiceLost('the connection to the checkpoint service failed')));
    socket.on('close', () => this.fail(new ServiceLost('the checkpoint service closed the connection')));
  }

  private fail(err: Error): void {
    this.closed = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(err);
    this.socket.destroy();
  }

  /** A connection to the home's service, or undefined when there is none (decided within CONNECT_TIMEOUT_MS). */
  static async connect(
    home: string,
    timeoutMs = CONNECT_TIMEOUT_MS,
    liveness: Liveness = DEFAULT_LIVENESS,
    /** false for `serve --status/--stop`, which talk to the service whatever AGENT_REWIND_SERVICE says. */
    respectOffSwitch = true,
  ): Promise<ServiceClient | undefined> {
    if (respectOffSwitch && process.env.AGENT_REWIND_SERVICE === 'off') return undefined;
    const path = socketPath(home);
    if (process.platform !== 'win32' && !existsSync(path)) return undefined;
    const secret = readSecret(home);
    if (!secret) return undefined;
    return new Promise((resolve) => {
      const s = createConnection(path);
      const timer = setTimeout(() => {
        s.destroy();
        resolve(undefined);
      }, timeoutMs);
      s.once('error', () => {
        clearTimeout(timer);
        s.destroy();
        resolve(undefined);
      });
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        s.unref(); // an open connection alone never keeps a CLI alive
        resolve(new ServiceClient(s, secret, home, liveness));
      });
    });
  }

  /** Sends a request (the secret and the version are added); resolves with its value, throws ServiceRefusal/Lost. */
  async request<T>(method: string, fields: Record<string, unknown>): Promise<T> {
    if (this.closed) throw new ServiceLost('the connection to the checkpoint service is closed');
    if (this.waiting) throw new Error('one request at a time');
    const id = ++this.nextId;
    // the service acts on it only until this client could have given up on it: the first ping's answer is due at
    // silenceMs + pingMs, and each ping answered on time moves the deadline on to the next one's (watchLiveness)
    const call = randomBytes(8).toString('hex');
    const deadline = this.dueBy(Date.now());
    const watch = this.watchLiveness(method, call);
    const response = await new Promise<ServiceResponse>((resolve, reject) => {
      this.waiting = { id, resolve, reject };
      this.socket.ref();
      this.socket.write(JSON.stringify({ v: PROTOCOL_VERSION, id, secret: this.secret, method, deadline, call, ...fields }) + '\n');
    }).finally(() => {
      clearInterval(watch);
      if (!this.closed) this.socket.unref();
    });
    if (!response.ok) throw new ServiceRefusal(response.code, response.message);
    return response.value as T;
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  /** The latest moment a request sent (or a ping answered) at `now` is still waited for. */
  private dueBy(now: number): number {
    return now + this.liveness.silenceMs + this.liveness.pingMs;
  }

  /** Pings the service each `silenceMs` while a request waits; one that does not answer fails the request (Liveness). */
  private watchLiveness(method: string, call: string): NodeJS.Timeout {
    const started = performance.now();
    let pinging = false;
    const timer = setInterval(() => {
      if (pinging || !this.waiting) return;
      pinging = true;
      void probe(socketPath(this.home), this.secret, this.liveness.pingMs, { call, deadline: this.dueBy(Date.now()) }).then((answer) => {
        pinging = false;
        if (typeof answer === 'object' || !this.waiting) return;
        const waited = Math.round((performance.now() - started) / 1000);
        this.fail(
          new ServiceStuck(
            `the checkpoint service has not answered the ${method} request for ${waited} s and does not answer a ping either: it may be stuck (${servicePidText(this.home)}; stop it, or set AGENT_REWIND_SERVICE=off to work without it)`,
          ),
        );
      });
    }, this.liveness.silenceMs);
    timer.unref(); // the request's socket keeps the process alive while it waits, not this timer
    return timer;
  }
}

/** Whether a refusal means the service did nothing and this process may do it: a folder it does not serve (or not
 *  with these options), a request past its deadline, another protocol (an older service answers a newer request as a
 *  bad request naming `v`), or a field an older service of this protocol does not know yet (it checks a request
 *  whole before acting, so such a refusal did nothing). */
export function nothingDone(err: ServiceRefusal): boolean {
  if (err.code === 'not-served' || err.code === 'options-differ' || err.code === 'late' || err.code === 'version') return true;
  return err.code === 'bad-request' && /^invalid request: ((v|deadline|call):|[^:]*: Unrecognized key\(s\) in object:)/.test(err.message);
}

/** Which process the home's service runs in, from the service.json it writes at start (best effort: for a message). */
function servicePidText(home: string): string {
  try {
    const pid = (JSON.parse(readFileSync(infoPath(home), 'utf8')) as { pid?: unknown }).pid;
    if (typeof pid === 'number') return `process ${pid}`;
  } catch {
    /* gone or unreadable: name the file instead */
  }
  return `its process is named in ${infoPath(home)}`;
}

/** What the CLI and the hooks use: FileCheckpoints through the service when it serves this folder, else in-process. */
export class ServiceFirstCheckpoints implements FileCheckpoints {
  readonly workspaceRoot: string;
  private local: Promise<FileCheckpointer> | undefined;
  private localReady: FileCheckpointer | undefined;
  private sync: WatcherSync | undefined;
  private readonly pendingNotes: string[] = [];
  private client: Promise<ServiceClient | undefined> | undefined;
  private readonly key: string;
  private startAsked = false;
  /** Where the last call was answered (for tests, benchmarks and --verbose output). */
  lastAnsweredBy: 'service' | 'local' | undefined;

  constructor(
    private readonly options: FileCheckpointerOptions,
    private readonly connectTimeoutMs = CONNECT_TIMEOUT_MS,
    private readonly liveness: Liveness = DEFAULT_LIVENESS,
  ) {
    this.workspaceRoot = resolveWorkspaceRoot(options.workspaceRoot);
    this.key = checkpointOptionsKey(options, this.workspaceRoot);
  }

  /** The in-process checkpointer (loaded and made on first use). */
  localCheckpointer(): Promise<FileCheckpointer> {
    this.local ??= import('../files/file-checkpointer').then(({ FileCheckpointer }) => {
      const fc = new FileCheckpointer(this.options);
      if (this.sync) fc.setWatcherSync(this.sync);
      if (this.pendingNotes.length) fc.notifyChanged(this.pendingNotes.splice(0));
      this.localReady = fc;
      return fc;
    });
    return this.local;
  }

  private async remote<T>(method: string, fields: Record<string, unknown>, local: (fc: FileCheckpointer) => Promise<T>, retryIfLost: boolean): Promise<T> {
    this.client ??= ServiceClient.connect(this.options.home, this.connectTimeoutMs, this.liveness);
    const client = await this.client;
    // no service answers for this folder (none runs, it does not serve it, or it went away): once this snapshot is
    // done here, one is started for the next (service-starter.ts)
    let unserved = client === undefined;
    if (client) {
      try {
        const value = await client.request<T>(method, { workspace: this.workspaceRoot, optionsKey: this.key, ...fields });
        this.lastAnsweredBy = 'service';
        return value;
      } catch (err) {
        // refusals that say nothing was done: this process does it itself (a late request, too: the service never
        // acts on one, so a rewind it refused as late is still to be done)
        const fallBack = err instanceof ServiceRefusal ? nothingDone(err) : err instanceof ServiceLost && retryIfLost;
        unserved = err instanceof ServiceRefusal ? err.code === 'not-served' : err instanceof ServiceLost;
        if (!fallBack) {
          if (err instanceof ServiceStuck) throw new Error(`${err.message}. It may or may not have done it: check the files before running it again`);
          throw err instanceof ServiceLost ? new Error(`${err.message} during ${method}; check the files and run it again`) : err;
        }
        client.close();
        this.client = Promise.resolve(undefined);
      }
    }
    this.lastAnsweredBy = 'local';
    const value = await local(await this.localCheckpointer());
    if (unserved && method === 'snapshot') this.startService();
    return value;
  }

  /** Hands this folder to the process-wide service starter, once (nothing waits for it; it never throws here). */
  private startService(): void {
    if (this.startAsked) return;
    this.startAsked = true;
    try {
      serviceStarter()?.(this.options.home, this.workspaceRoot);
    } catch {
      /* the snapshot is done: a service that could not be started only means the next one is slow too */
    }
  }

  snapshot(sessionId: string, anchorId: string, kind: SnapshotKind = 'user-message'): Promise<SnapshotSummary> {
    // a snapshot taken again under the same ids replaces the first: safe to take here when the service went away
    return this.remote('snapshot', { sessionId, anchorId, kind }, (fc) => fc.snapshot(sessionId, anchorId, kind), true);
  }

  rewindFiles(sessionId: string, anchorId: string, opts: RewindFilesOptions): Promise<RewindFilesResult> {
    const o = {
      anchor: { checkpointingEnabled: opts.anchor.checkpointingEnabled, kind: opts.anchor.kind },
      ...(opts.dryRun !== undefined ? { dryRun: opts.dryRun } : {}),
      ...(opts.overwriteUserModified !== undefined ? { overwriteUserModified: opts.overwriteUserModified } : {}),
      // sent only when asked for: a service of an earlier version refuses fields it does not know
      ...(opts.includeOtherSessions ? { includeOtherSessions: true } : {}),
      ...(opts.only ? { only: opts.only } : {}),
      ...(opts.hunks ? { hunks: opts.hunks } : {}),
      ...(opts.turnWrites?.length ? { turnWrites: opts.turnWrites } : {}),
      ...(opts.settledFirst ? { settledFirst: opts.settledFirst } : {}),
    };
    return this.remote('rewindFiles', { sessionId, anchorId, opts: o }, (fc) => fc.rewindFiles(sessionId, anchorId, opts), opts.dryRun === true);
  }

  undoLastRewind(sessionId: string): Promise<RewindFilesResult> {
    return this.remote('undoLastRewind', { sessionId }, (fc) => fc.undoLastRewind(sessionId), false);
  }

  listSnapshots(sessionId: string): Promise<SnapshotRecord[]> {
    return this.remote('listSnapshots', { sessionId }, (fc) => fc.listSnapshots(sessionId), true);
  }

  /** In-process: it takes the store lock (recovering an interrupted restore first) and only reads records. */
  async undoStack(sessionId: string): Promise<string[]> {
    return (await this.localCheckpointer()).undoStack(sessionId);
  }

  async readFileAtAnchor(sessionId: string, anchorId: string, relPath: string): Promise<Buffer | undefined> {
    return (await this.localCheckpointer()).readFileAtAnchor(sessionId, anchorId, relPath);
  }

  async diffSnapshots(a: SnapshotId, b: SnapshotId): Promise<SnapshotFileDiff[]> {
    return (await this.localCheckpointer()).diffSnapshots(a, b);
  }

  // read only, from the store and the one file: in this process, as readFileAtAnchor
  async fileHunks(sessionId: string, anchorId: string, relPaths: readonly string[]): Promise<FileHunks[]> {
    return (await this.localCheckpointer()).fileHunks(sessionId, anchorId, relPaths);
  }

  // read only, from the store: in this process, as diffSnapshots
  async fileHistory(relPath: string, turnWrites?: TurnWrites[]): Promise<FileHistory> {
    return (await this.localCheckpointer()).fileHistory(relPath, turnWrites);
  }

  async blame(relPath: string, turnWrites?: TurnWrites[]): Promise<FileBlame> {
    return (await this.localCheckpointer()).blame(relPath, turnWrites);
  }

  async timelinePoints(): Promise<TimelinePoint[]> {
    return (await this.localCheckpointer()).timelinePoints();
  }

  /** In-process: it reads another tool's backups, which the service has no business opening. */
  async importSnapshot(sessionId: string, anchorId: string, files: readonly ImportedFile[]): Promise<SnapshotSummary> {
    return (await this.localCheckpointer()).importSnapshot(sessionId, anchorId, files);
  }

  /** In-process, like importSnapshot: the service knows no such method, and this is rare (once per adopted prompt). */
  async adoptSnapshot(fromSessionId: string, fromAnchorId: string, sessionId: string, anchorId: string): Promise<SnapshotRecord | undefined> {
    return (await this.localCheckpointer()).adoptSnapshot(fromSessionId, fromAnchorId, sessionId, anchorId);
  }

  notifyChanged(paths: Iterable<string>): void {
    if (this.localReady) return this.localReady.notifyChanged(paths);
    this.pendingNotes.push(...paths);
    void this.localCheckpointer();
  }

  setWatcherSync(sync: WatcherSync | undefined): void {
    this.sync = sync;
    this.localReady?.setWatcherSync(sync);
  }

  async dispose(): Promise<void> {
    const client = await this.client;
    client?.close();
    this.client = Promise.resolve(undefined);
    const local = this.local;
    this.local = undefined;
    this.localReady = undefined;
    if (local) await (await local).dispose();
  }
}

/** The checkpoints of a workspace for one CLI call or hook run: through the home's service when it serves it. */
export function openFileCheckpoints(options: FileCheckpointerOptions): ServiceFirstCheckpoints {
  return new ServiceFirstCheckpoints(options);
}
