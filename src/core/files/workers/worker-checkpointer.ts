// The extension host's side of files-worker: the same async methods as FileCheckpointer, each a message to a
// worker thread that does the reading, hashing and tree walks, so the host's event loop stays free.
import type { Worker } from 'node:worker_threads';
import type { SnapshotRecord } from '../snapshot-records';
import type { TimelinePoint } from '../timeline';
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
  FileBlame,
  FileHunks,
  SnapshotKind,
  SnapshotSummary,
} from '../types';
import type { WatcherSync } from '../scan/watcher-sync';
import { resolveWorkspaceRoot } from '../workspace-root';
import { defaultStoreDir } from '../store/store-dir';
import { releaseLockOfThread } from '../store/store-lock';
import { join } from 'node:path';
import type { FromWorker, ToWorker, WorkerMethod } from './worker-protocol';

/** Starts a files-worker thread (dist/files-worker.js in the extension; tests start the TypeScript source). */
export type StartFilesWorker = () => Worker;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export class WorkerFileCheckpointer implements FileCheckpoints {
  readonly workspaceRoot: string;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private nextId = 0;
  private sync: WatcherSync | undefined;
  private disposed = false;

  constructor(
    private readonly options: FileCheckpointerOptions,
    private readonly start: StartFilesWorker,
  ) {
    this.workspaceRoot = resolveWorkspaceRoot(options.workspaceRoot);
    this.storeDir = options.storeDir ?? defaultStoreDir(options.home, this.workspaceRoot);
  }

  private readonly storeDir: string;

  /** The worker, started on first use and again after it died (a crash loses only the calls in flight). */
  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const w = this.start();
    this.worker = w;
    // the listener first: Node refs a worker again when a 'message' listener is added after unref()
    w.on('message', (m: FromWorker) => this.onMessage(w, m));
    w.unref(); // only calls in flight keep the process alive
    const fail = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const p of all) p.reject(err);
    };
    w.on('error', (err) => fail(new Error(`the file-checkpoint worker failed: ${err.message}`)));
    const deadThread = w.threadId;
    w.on('exit', (code) => {
      // a worker stopped inside a locked operation leaves the store's lock behind, naming this (living) process
      void releaseLockOfThread(join(this.storeDir, 'lock'), deadThread).catch(() => false);
      fail(new Error(`the file-checkpoint worker stopped (exit code ${code})`));
    });
    this.post({ type: 'init', options: this.options });
    if (this.sync) this.post({ type: 'sync', on: true });
    return w;
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }

  private onMessage(w: Worker, m: FromWorker): void {
    if (m.type === 'settle') {
      // paths the barrier flushes reach the worker (as 'notify') before this answer: messages stay in order
      const sync = this.sync;
      void (sync ? sync.settle() : Promise.resolve('unsynced' as const)).then(
        (result) => w.postMessage({ type: 'settled', id: m.id, result } satisfies ToWorker),
        () => w.postMessage({ type: 'settled', id: m.id, result: 'unsynced' } satisfies ToWorker),
      );
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) w.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(m.message));
  }

  private call<T>(method: WorkerMethod, args: unknown[]): Promise<T> {
    if (this.disposed && method !== 'dispose') return Promise.reject(new Error('file checkpoints of this folder were closed'));
    const w = this.ensureWorker();
    const id = ++this.nextId;
    w.ref();
    const result = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.postMessage({ type: 'call', id, method, args } satisfies ToWorker);
    });
    this.inFlight.add(result);
    const done = () => void this.inFlight.delete(result);
    result.then(done, done);
    return result;
  }

  snapshot(sessionId: string, anchorId: string, kind: SnapshotKind = 'user-message'): Promise<SnapshotSummary> {
    return this.call('snapshot', [sessionId, anchorId, kind]);
  }

  rewindFiles(sessionId: string, anchorId: string, opts: RewindFilesOptions): Promise<RewindFilesResult> {
    return this.call('rewindFiles', [sessionId, anchorId, opts]);
  }

  undoLastRewind(sessionId: string): Promise<RewindFilesResult> {
    return this.call('undoLastRewind', [sessionId]);
  }

  async readFileAtAnchor(sessionId: string, anchorId: string, relPath: string): Promise<Buffer | undefined> {
    const data = await this.call<Uint8Array | undefined>('readFileAtAnchor', [sessionId, anchorId, relPath]);
    return data === undefined ? undefined : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }

  fileHunks(sessionId: string, anchorId: string, relPaths: readonly string[]): Promise<FileHunks[]> {
    return this.call('fileHunks', [sessionId, anchorId, relPaths]);
  }

  listSnapshots(sessionId: string): Promise<SnapshotRecord[]> {
    return this.call('listSnapshots', [sessionId]);
  }

  undoStack(sessionId: string): Promise<string[]> {
    return this.call('undoStack', [sessionId]);
  }

  importSnapshot(sessionId: string, anchorId: string, files: readonly ImportedFile[]): Promise<SnapshotSummary> {
    return this.call('importSnapshot', [sessionId, anchorId, files]);
  }

  adoptSnapshot(fromSessionId: string, fromAnchorId: string, sessionId: string, anchorId: string): Promise<SnapshotRecord | undefined> {
    return this.call('adoptSnapshot', [fromSessionId, fromAnchorId, sessionId, anchorId]);
  }

  diffSnapshots(a: SnapshotId, b: SnapshotId): Promise<SnapshotFileDiff[]> {
    return this.call('diffSnapshots', [a, b]);
  }

  fileHistory(relPath: string, turnWrites?: TurnWrites[]): Promise<FileHistory> {
    return this.call('fileHistory', turnWrites ? [relPath, turnWrites] : [relPath]);
  }

  blame(relPath: string, turnWrites?: TurnWrites[]): Promise<FileBlame> {
    return this.call('blame', turnWrites ? [relPath, turnWrites] : [relPath]);
  }

  timelinePoints(): Promise<TimelinePoint[]> {
    return this.call('timelinePoints', []);
  }

  notifyChanged(paths: Iterable<string>): void {
    if (this.disposed) return;
    this.ensureWorker();
    this.post({ type: 'notify', paths: [...paths] });
  }

  setWatcherSync(sync: WatcherSync | undefined): void {
    this.sync = sync;
    this.post({ type: 'sync', on: sync !== undefined });
  }

  /**
   * Lets the calls in flight finish (stopping the worker in the middle of a restore would leave it to crash
   * recovery), lets the worker save its stat cache and close the store, then stops it.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.allSettled([...this.inFlight]);
    const w = this.worker;
    if (!w) return;
    try {
      await this.call('dispose', []);
    } finally {
      this.worker = undefined;
      await w.terminate();
    }
  }
}
