// File checkpoints (seed 003): whole-workspace snapshots anchored at user-message ids, previewed and restored
// safely. The store and records live outside the workspace; the workspace is only ever written by Restorer.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from './atomic-write';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ObjectStore, MAX_OBJECT_SIZE, hashObject, type PackWriter } from './object-store';
import { PathFilter } from './path-filter';
import { Restorer, type RestoreOp } from './restore';
import { absPath, ensureSafeParents, splitRelPath } from './safe-paths';
import { SnapshotRecords, undoSchema, type EntryState, type SnapshotRecord, type UndoRecord } from './snapshot-records';
import { loadStatIndex, saveStatIndex, type StatIndex } from './stat-index';
import { withStoreLock } from './store-lock';
import { encodeTree, hashTrees, treeEntriesOf, treeTotals, type DirNode } from './tree';
import { diffStoredTrees, diffTrees, sameState, stateOfNode, TreeReader, type PathDiff } from './tree-diff';
import { lineStats } from './line-stats';
import { Limiter, WorkspaceModel, type ScanStats } from './workspace-model';
import { ChangeFeed, type WatcherSync } from './watcher-sync';
import type {
  AnchorCheck,
  FileChange,
  FileCheckpointerOptions,
  GcResult,
  RecoverResult,
  RewindFilesOptions,
  RewindFilesResult,
  ScanTuning,
  SkippedFile,
  SnapshotFileDiff,
  SnapshotKind,
  SnapshotSummary,
} from './types';
import { DEFAULT_SCAN_TUNING } from './types';
import { resolveWorkspaceRoot } from './workspace-root';
import { storeScannedTree } from './store-tree';
import { reachableObjects } from './tree-diff';
import { defaultStoreDir } from './store-dir';
export { defaultStoreDir };

const DEFAULT_MAX_FILE = 50 * 1024 * 1024;
const DEFAULT_CAP = 5 * 1024 ** 3;
const DEFAULT_FULL_CHECK = 5 * 60_000;

function failure(error: string): RewindFilesResult {
  return { canRewind: false, error, filesChanged: [], insertions: 0, deletions: 0, userModified: [], skipped: [], files: [] };
}

const isFileish = (s: EntryState): s is Exclude<EntryState, null | { kind: 'dir' }> => s !== null && s.kind !== 'dir';

interface Plan {
  result: RewindFilesResult;
  ops: RestoreOp[];
}

export class FileCheckpointer {
  readonly workspaceRoot: string;
  readonly storeDir: string;
  private readonly maxFileSize: number;
  private readonly sizeCap: number;
  private readonly fullCheckInterval: number;
  private readonly tuning: ScanTuning;
  private readonly filter: PathFilter;
  private readonly records: SnapshotRecords;
  private storePromise?: Promise<ObjectStore>;
  private model?: WorkspaceModel;
  private modelLoaded = false;
  /** Paths a watcher reported since the last refresh; 'all' forces a full check. */
  private dirty: Set<string> | 'all' = 'all';
  private tracking = false;
  private lastFullCheck = 0;
  /** A full check ran since the stat cache was last saved by a snapshot. */
  private fullCheckUnsaved = false;
  private watcherStop?: () => void;
  /** The barrier a tracked refresh awaits so that changes made just before it have been reported. */
  private sync?: WatcherSync;
  private queue: Promise<unknown> = Promise.resolve();
  private fullCheckTimer?: NodeJS.Timeout;
  /** The last plan, reused by a real rewind right after its dry run when nothing changed in between. */
  private lastPlan?: { key: string; plan: Plan };

  constructor(opts: FileCheckpointerOptions) {
    this.workspaceRoot = resolveWorkspaceRoot(opts.workspaceRoot);
    this.storeDir = opts.storeDir ?? defaultStoreDir(opts.home, this.workspaceRoot);
    this.maxFileSize = Math.min(opts.maxFileSize ?? DEFAULT_MAX_FILE, MAX_OBJECT_SIZE);
    this.sizeCap = opts.sizeCapBytes ?? DEFAULT_CAP;
    this.fullCheckInterval = opts.fullCheckIntervalMs ?? DEFAULT_FULL_CHECK;
    this.tuning = { ...DEFAULT_SCAN_TUNING, ...opts.tuning };
    const excludedDirs: string[] = [];
    for (const d of [this.storeDir, opts.home]) {
      const rel = relative(this.workspaceRoot, d);
      if (rel && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) excludedDirs.push(rel.split(sep).join('/'));
    }
    this.filter = new PathFilter({ include: opts.include, exclude: opts.exclude, excludedDirs });
    this.records = new SnapshotRecords(this.storeDir);
  }

  private get statIndexFile(): string {
    return join(this.storeDir, 'stat-index.bin');
  }
  private get cacheKey(): string {
    return `${this.workspaceRoot}\0${this.filter.key}\0${this.maxFileSize}`;
  }
  private restorer(store: ObjectStore): Restorer {
    return new Restorer(this.workspaceRoot, store, join(this.storeDir, 'journal.json'));
  }

  private async store(): Promise<ObjectStore> {
    this.storePromise ??= (async () => {
      const store = await ObjectStore.open(this.storeDir);
      // lets `agent-rewind gc` find the workspace of each store
      const marker = join(this.storeDir, 'workspace.json');
      if (!existsSync(marker)) await writeFileAtomic(marker, JSON.stringify({ workspaceRoot: this.workspaceRoot }));
      return store;
    })();
    return this.storePromise;
  }

  /** One operation at a time in this process: they share the scanned model. */
  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private locked<T>(fn: (store: ObjectStore) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      const store = await this.store();
      return withStoreLock(join(this.storeDir, 'lock'), async () => {
        await store.reload({ repair: true });
        await this.recoverLocked(store);
        return fn(store);
      });
    });
  }

  // ── incremental tracking ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Tells the tracker that these paths (absolute, or workspace-relative with '/') changed, e.g. from VS Code's
   * FileSystemWatcher. The next snapshot looks only at them (plus a full check every fullCheckIntervalMs).
   */
  notifyChanged(paths: Iterable<string>): void {
    this.startTracking();
    if (this.dirty === 'all') return;
    for (const p of paths) {
      const rel = p.startsWith(this.workspaceRoot) ? relative(this.workspaceRoot, p).split(sep).join('/') : p;
      if (rel.startsWith('..')) continue;
      this.dirty.add(rel === '.' ? '' : rel);
    }
  }

  /** Forces the next snapshot to re-check the whole tree (e.g. the watcher overflowed). */
  markAllDirty(): void {
    this.dirty = 'all';
  }

  /**
   * The barrier of the watcher that feeds notifyChanged (e.g. the editor's): awaited before every tracked refresh;
   * when it cannot sync, that refresh checks the whole tree.
   */
  setWatcherSync(sync: WatcherSync | undefined): void {
    this.sync = sync;
  }

  /** Starts the Node fs.watch-based watcher of this workspace feeding the tracker. */
  async startWatching(): Promise<void> {
    if (this.watcherStop) return;
    const { watchWorkspace } = await import('./fs-watcher');
    this.startTracking();
    const feed = new ChangeFeed({ sink: (rels) => this.notifyChanged(rels) });
    const stop = await watchWorkspace(this.workspaceRoot, {
      onChange: (rels) => feed.note(rels),
      onOverflow: () => this.markAllDirty(),
      skip: (rel) => {
        const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
        return this.filter.isExcluded(rel, true, this.model?.chainFor(parent) ?? []);
      },
    });
    this.sync = { settle: () => feed.settle(this.workspaceRoot) };
    this.watcherStop = () => {
      stop();
      feed.dispose();
    };
  }

  /**
   * Tracking mode: snapshots look only at reported paths; the periodic full check runs in the background, so a
   * user's dry run or snapshot never pays for it.
   */
  private startTracking(): void {
    this.tracking = true;
    if (this.fullCheckTimer) return;
    this.fullCheckTimer = setInterval(() => {
      void this.serialize(async () => {
        if (Date.now() - this.lastFullCheck < this.fullCheckInterval * 0.9) return;
        await this.refreshModel({ skipped: [], hashedFiles: 0 }, undefined, true).catch(() => this.markAllDirty());
      });
    }, this.fullCheckInterval);
    this.fullCheckTimer.unref();
  }

  async dispose(): Promise<void> {
    if (this.fullCheckTimer) clearInterval(this.fullCheckTimer);
    this.fullCheckTimer = undefined;
    this.watcherStop?.();
    this.watcherStop = undefined;
    if (this.tracking && this.model && this.modelLoaded) await this.saveStatIndex(this.model.root).catch(() => {});
    if (this.storePromise) await (await this.storePromise).closeHandles();
  }

  /** What the stat index file holds, as far as this process knows (loaded or last saved). */
  private statIndexBytes: Buffer | undefined;
  /** The index just loaded, until the first refresh has checked the workspace against it. */
  private uncheckedIndex: StatIndex | undefined;

  private async saveStatIndex(root: DirNode): Promise<void> {
    this.statIndexBytes = await saveStatIndex(this.statIndexFile, this.cacheKey, root, this.statIndexBytes);
  }

  private async refreshModel(stats: ScanStats, writer?: PackWriter, forceFull = false): Promise<WorkspaceModel> {
    if (!this.model) {
      this.model = new WorkspaceModel(this.workspaceRoot, this.filter, this.maxFileSize);
      this.model.tuning = this.tuning;
    }
    const model = this.model;
    if (!this.modelLoaded) {
      const loaded = await loadStatIndex(this.statIndexFile, this.cacheKey);
      if (loaded) {
        model.root = loaded.index.root();
        this.statIndexBytes = loaded.bytes;
        this.uncheckedIndex = loaded.index;
      }
      this.modelLoaded = true;
    }
    // the background timer normally does the periodic check; this catches up if it could not run
    let full = forceFull || !this.tracking || this.dirty === 'all' || Date.now() - this.lastFullCheck > 2 * this.fullCheckInterval;
    // the watcher may not have reported changes made just before this call yet: wait until it has (or check all)
    if (!full && this.sync && (await this.sync.settle()) === 'unsynced') full = true;
    const dirty = this.dirty;
    if (dirty === 'all') full = true;
    this.dirty = new Set();
    if (full) {
      // a fresh process checks the paths its index knows instead of walking the tree (the periodic check walks)
      if (this.uncheckedIndex && !forceFull) await model.refreshFromIndex(this.uncheckedIndex, stats, writer);
      else await model.fullScan(stats, writer);
      this.uncheckedIndex = undefined;
      this.lastFullCheck = Date.now();
      this.fullCheckUnsaved = true;
    } else await model.refreshPaths(dirty as Set<string>, stats, writer);
    hashTrees(model.root);
    return model;
  }

  /** Makes sure every object of the scanned tree is in the store (things hashed by a dry run were not written). */
  private storeTree(dir: DirNode, rel: string, w: PackWriter, reads: Limiter): Promise<string> {
    return storeScannedTree(this.workspaceRoot, dir, rel, w, reads);
  }

  // ── snapshots ───────────────────────────────────────────────────────────────────────────────────────────────

  /** Snapshots the whole workspace under (sessionId, anchorId). A later snapshot with the same ids replaces it. */
  snapshot(sessionId: string, anchorId: string, kind: SnapshotKind = 'user-message'): Promise<SnapshotSummary> {
    if (!sessionId || !anchorId) return Promise.reject(new Error('a snapshot needs a session id and an anchor id'));
    return this.locked(async (store) => {
      const summary = await this.snapshotLocked(store, sessionId, anchorId, kind);
      await store.consolidateSmallPacks();
      if ((await store.sizeOnDisk()) > this.sizeCap) summary.pruned = (await this.gcLocked(store)).prunedSnapshots;
      return summary;
    });
  }

  private async snapshotLocked(store: ObjectStore, sessionId: string, anchorId: string, kind: SnapshotKind, scanned?: WorkspaceModel, verify?: Set<string>): Promise<SnapshotSummary> {
    const stats: ScanStats = { skipped: [], hashedFiles: 0 };
    const w = store.newPack({ verify }); // verify: what an undo will read must not dedupe against a damaged copy
    let root: string;
    let model: WorkspaceModel;
    try {
      model = scanned ?? (await this.refreshModel(stats, w));
      root = await this.storeTree(model.root, '', w, new Limiter(32));
      await w.commit(kind !== 'turn-end');
    } catch (err) {
      await w.abort();
      throw err;
    }
    const { files, bytes: totalBytes, ignored } = treeTotals(model.root);
    const createdAt = new Date().toISOString();
    const rec: SnapshotRecord = { v: 1, sessionId, anchorId, kind, root, createdAt, files, totalBytes };
    const saved = await this.records.put(rec); // an identical user-message snapshot keeps the first record
    // a tracked model is persisted after each full check (and at dispose), not after every small refresh: writing
    // the cache of a 50,000-file tree costs more than the rest of a tracked snapshot
    if (!this.tracking || this.fullCheckUnsaved) {
      this.fullCheckUnsaved = false;
      await this.saveStatIndex(model.root);
    }
    return {
      sessionId,
      anchorId,
      kind,
      root,
      files,
      totalBytes,
      hashedFiles: stats.hashedFiles,
      newObjects: w.objectCount,
      newBytes: w.newBytes,
      skipped: stats.skipped,
      ignoredCount: ignored,
      pruned: [],
      createdAt: saved.createdAt,
    };
  }

  /** Forgets one snapshot (e.g. its session was deleted); its data goes at the next gc. */
  deleteSnapshot(sessionId: string, anchorId: string): Promise<void> {
    return this.locked(() => this.records.delete(sessionId, anchorId));
  }

  async hasSnapshot(sessionId: string, anchorId: string): Promise<boolean> {
    return (await this.records.get(sessionId, anchorId)) !== undefined;
  }

  async listSnapshots(sessionId: string): Promise<SnapshotRecord[]> {
    return (await this.records.ofSession(sessionId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** The content of `relPath` at the anchor (a symlink gives its target), or undefined when it did not exist. */
  async readFileAtAnchor(sessionId: string, anchorId: string, relPath: string): Promise<Buffer | undefined> {
    splitRelPath(relPath);
    const rec = await this.records.get(sessionId, anchorId);
    if (!rec) return undefined;
    const store = await this.store();
    await store.reload();
    const state = await new TreeReader(store).lookup(rec.root, relPath);
    return isFileish(state) ? store.read(state.hash, 'blob') : undefined;
  }

  /**
   * The files that differ between two snapshots of this workspace (e.g. the latest of two conversation branches),
   * seen from A to B: 'added' exists only at B, 'deleted' only at A; insertions are lines B has and A has not.
   * Reads only the store, never the workspace. Throws when either snapshot does not exist.
   */
  async diffSnapshots(sessionId: string, anchorA: string, anchorB: string): Promise<SnapshotFileDiff[]> {
    const [a, b] = await Promise.all([this.records.get(sessionId, anchorA), this.records.get(sessionId, anchorB)]);
    if (!a) throw new Error(`There is no file snapshot ${anchorA} in this session.`);
    if (!b) throw new Error(`There is no file snapshot ${anchorB} in this session.`);
    const store = await this.store();
    await store.reload();
    const diffs = await diffStoredTrees(new TreeReader(store), a.root, b.root);
    const reads = new Limiter(16);
    const listed = diffs.filter((d) => isFileish(d.a) || isFileish(d.b));
    return Promise.all(
      listed.map((d) =>
        reads.run(async () => {
          const status: SnapshotFileDiff['status'] =
            d.a === null || d.a.kind === 'dir' ? 'added' : d.b === null || d.b.kind === 'dir' ? 'deleted' : d.a.kind !== d.b.kind ? 'typeChanged' : d.a.hash === d.b.hash ? 'modeChanged' : 'modified';
          const textual = (d.a === null || d.a.kind === 'file') && (d.b === null || d.b.kind === 'file') && status !== 'modeChanged';
          if (!textual) return { path: d.path, status, insertions: 0, deletions: 0, binary: false };
          const [x, y] = await Promise.all([
            d.a?.kind === 'file' ? store.read(d.a.hash, 'blob') : undefined,
            d.b?.kind === 'file' ? store.read(d.b.hash, 'blob') : undefined,
          ]);
          const s = lineStats(x, y);
          return { path: d.path, status, insertions: s.insertions, deletions: s.deletions, binary: s.binary };
        }),
      ),
    );
  }

  // ── rewind ──────────────────────────────────────────────────────────────────────────────────────────────────

  private async checkAnchor(sessionId: string, anchorId: string, anchor: AnchorCheck): Promise<string | SnapshotRecord> {
    if (!anchor.checkpointingEnabled) return 'File checkpointing is off, so there are no file snapshots to rewind to. Turn it on before sending messages to be able to rewind files.';
    if (anchor.kind === 'missing') {
      const owner = await this.records.ownerOf(anchorId, sessionId);
      if (owner) return `Message ${anchorId} belongs to another session (${owner}); files can only be rewound from the session that made the snapshot.`;
      return `There is no message ${anchorId} in this session.`;
    }
    if (anchor.kind !== 'user-message') return `Entry ${anchorId} is not a user message; files can only be rewound to the moment a user message was sent.`;
    const rec = await this.records.get(sessionId, anchorId);
    if (!rec || rec.kind !== 'user-message') return `Message ${anchorId} has no file snapshot (it was sent while file checkpointing was off, or its snapshot was removed to stay under the storage limit).`;
    return rec;
  }

  /**
   * Previews (dryRun) or performs the rewind of the workspace files to the snapshot of a user message. A dry run
   * never throws and never touches the workspace; the real call throws with the same message when it cannot.
   */
  async rewindFiles(sessionId: string, anchorId: string, opts: RewindFilesOptions): Promise<RewindFilesResult> {
    if (opts.dryRun) {
      return this.serialize(async () => {
      try {
        const check = await this.checkAnchor(sessionId, anchorId, opts.anchor);
        if (typeof check === 'string') return failure(check);
        const store = await this.store();
        await store.reload();
        return (await this.plan(store, check, opts.overwriteUserModified === true)).result;
      } catch (err) {
        return failure(`Cannot preview the rewind: ${(err as Error).message}`);
      }
      });
    }
    const check = await this.checkAnchor(sessionId, anchorId, opts.anchor);
    if (typeof check === 'string') throw new Error(check);
    return this.locked(async (store) => {
      const { result, ops } = await this.plan(store, check, opts.overwriteUserModified === true);
      if (ops.length === 0) return result;
      const tag = Date.now().toString(36) + randomBytes(4).toString('hex');
      const preRestoreAnchor = `pre-restore:${tag}`;
      const needed = new Set(ops.flatMap((o) => (isFileish(o.from) ? [o.from.hash] : [])));
      await this.snapshotLocked(store, sessionId, preRestoreAnchor, 'pre-restore', this.model, needed);
      store.assertReadable(needed, 'the workspace changed while the rewind was being prepared'); // its undo needs them all
      const undo: UndoRecord = {
        v: 1,
        sessionId,
        anchorId,
        preRestoreAnchor,
        createdAt: new Date().toISOString(),
        written: ops.map((o) => ({ path: o.path, state: o.to })),
      };
      await this.applyUnderJournal(store, ops, tag, { kind: 'push-undo', undo });
      return result;
    });
  }

  private async applyUnderJournal(store: ObjectStore, ops: RestoreOp[], tag: string, after: AfterRestore): Promise<void> {
    const restorer = this.restorer(store);
    for (const op of ops) this.noteWritten(op.path);
    this.lastPlan = undefined;
    await restorer.run(ops, tag, after);
    await this.finishAfter(after);
    await restorer.finish();
  }

  private noteWritten(rel: string): void {
    if (this.dirty !== 'all') this.dirty.add(rel);
  }

  private async finishAfter(after: AfterRestore): Promise<void> {
    if (after.kind === 'push-undo') {
      const stack = await this.records.undoStack(after.undo.sessionId);
      if (!stack.some((u) => u.preRestoreAnchor === after.undo.preRestoreAnchor)) await this.records.setUndoStack(after.undo.sessionId, [...stack, after.undo]);
    } else {
      const stack = await this.records.undoStack(after.sessionId);
      await this.records.setUndoStack(after.sessionId, stack.filter((u) => u.preRestoreAnchor !== after.preRestoreAnchor));
      await this.records.delete(after.sessionId, after.preRestoreAnchor);
    }
  }

  private async plan(store: ObjectStore, rec: SnapshotRecord, overwriteUserModified: boolean): Promise<Plan> {
    const stats: ScanStats = { skipped: [], hashedFiles: 0 };
    const model = await this.refreshModel(stats);
    const reader = new TreeReader(store);
    const diffs = await diffTrees(reader, rec.root, model.root);
    const turnEnd = await this.records.latestTurnEnd(rec.sessionId);
    const key = JSON.stringify([rec.sessionId, rec.anchorId, rec.root, model.root.hash, turnEnd?.root ?? null, overwriteUserModified]);
    if (this.lastPlan?.key === key) {
      // the covered files hash the same as when it was planned; only files outside the checkpoints may have
      // appeared where a restore would create one, so those are checked again
      const creates = this.lastPlan.plan.ops.filter((o) => o.from === null && o.to !== null);
      let fresh = true;
      for (const o of creates) if (await this.lstatRel(o.path)) fresh = false;
      if (fresh) return this.lastPlan.plan;
    }
    const userModified = new Set<string>();
    if (turnEnd) {
      for (const d of diffs) {
        if (!isFileish(d.now) && !isFileish(d.target)) continue;
        if (!sameState(await reader.lookup(turnEnd.root, d.path), d.now)) userModified.add(d.path);
      }
    }
    const plan = await this.buildPlan(store, diffs, userModified, overwriteUserModified, stats.skipped);
    this.lastPlan = { key, plan };
    return plan;
  }

  private async buildPlan(store: ObjectStore, diffs: PathDiff[], userModified: Set<string>, overwrite: boolean, scanSkipped: SkippedFile[]): Promise<Plan> {
    const skipped: SkippedFile[] = [];
    const kept = new Set<string>(); // paths left as they are, so folders above them stay
    for (const d of diffs) {
      if (userModified.has(d.path) && !overwrite) {
        kept.add(d.path);
        continue;
      }
      if (d.now === null && d.target !== null) {
        // something the scan does not cover sits where the snapshot has a file: never overwrite it blindly
        const existing = await this.lstatRel(d.path);
        if (existing) {
          skipped.push({ path: d.path, reason: 'exists now but is not covered by checkpoints (ignored, too large or unreadable); left as it is' });
          kept.add(d.path);
        }
      }
    }
    const keptUnder = (p: string) => [...kept].some((k) => k.startsWith(p + '/'));
    const ops: RestoreOp[] = [];
    const listed: PathDiff[] = [];
    for (const d of diffs) {
      if (kept.has(d.path)) {
        if (isFileish(d.now) || isFileish(d.target)) listed.push(d);
        continue;
      }
      if (d.now?.kind === 'dir' && keptUnder(d.path)) {
        // the folder stays because something in it stays; a file the snapshot has at its place cannot come back
        if (isFileish(d.target)) skipped.push({ path: d.path, reason: 'a folder with files that are kept is in the way' });
        continue;
      }
      ops.push({ path: d.path, from: d.now, to: d.target });
      if (isFileish(d.now) || isFileish(d.target)) listed.push(d);
    }
    const reads = new Limiter(16);
    const files: FileChange[] = await Promise.all(listed.map((d) => reads.run(async () => ({ ...(await this.fileChange(store, d)), userModified: userModified.has(d.path) }))));
    const applied = new Set(ops.map((o) => o.path));
    const changed = files.filter((f) => applied.has(f.path));
    const seen = new Set(skipped.map((s) => s.path));
    for (const s of scanSkipped) if (!seen.has(s.path)) skipped.push(s);
    return {
      ops,
      result: {
        canRewind: true,
        filesChanged: changed.map((f) => f.path),
        insertions: changed.reduce((a, f) => a + f.insertions, 0),
        deletions: changed.reduce((a, f) => a + f.deletions, 0),
        userModified: files.filter((f) => f.userModified).map((f) => f.path),
        skipped,
        files,
      },
    };
  }

  private async lstatRel(rel: string): Promise<boolean> {
    try {
      if (!(await ensureSafeParents(this.workspaceRoot, rel, false))) return false;
      await lstat(absPath(this.workspaceRoot, rel));
      return true;
    } catch {
      return false;
    }
  }

  private async fileChange(store: ObjectStore, d: PathDiff): Promise<Omit<FileChange, 'userModified'>> {
    const status: FileChange['status'] =
      d.target === null ? 'added' : d.now === null ? 'deleted' : d.now.kind !== d.target.kind ? 'typeChanged' : isFileish(d.now) && isFileish(d.target) && d.now.hash === d.target.hash ? 'modeChanged' : 'modified';
    let anchorData: Buffer | undefined;
    let nowData: Buffer | undefined;
    if (d.target?.kind === 'file') anchorData = await store.read(d.target.hash, 'blob', d.path);
    if (d.now?.kind === 'file') {
      try {
        nowData = readFileSync(absPath(this.workspaceRoot, d.path)); // small and many: cheaper than readFile()
      } catch {
        nowData = undefined;
      }
    }
    const textual = (d.target === null || d.target.kind === 'file') && (d.now === null || d.now.kind === 'file') && status !== 'modeChanged';
    const s = textual ? lineStats(anchorData, nowData) : { insertions: 0, deletions: 0, binary: false };
    return { path: d.path, status, insertions: s.insertions, deletions: s.deletions, binary: s.binary };
  }

  // ── undo, recovery, gc ──────────────────────────────────────────────────────────────────────────────────────

  /** Puts back what the last rewind of this session changed, except files changed by hand since then. */
  undoLastRewind(sessionId: string): Promise<RewindFilesResult> {
    return this.locked(async (store) => {
      const stack = await this.records.undoStack(sessionId);
      const top = stack.at(-1);
      if (!top) throw new Error('There is no file rewind to undo in this session.');
      const pre = await this.records.get(sessionId, top.preRestoreAnchor);
      if (!pre) throw new Error('The snapshot taken before the last rewind is gone (removed by gc or the size cap); it cannot be undone.');
      const stats: ScanStats = { skipped: [], hashedFiles: 0 };
      const model = await this.refreshModel(stats);
      const reader = new TreeReader(store);
      const diffs: PathDiff[] = [];
      const userModified = new Set<string>();
      for (const { path, state } of top.written) {
        const now = stateOfNode(model.get(path));
        const target = await reader.lookup(pre.root, path);
        if (sameState(now, target)) continue;
        diffs.push({ path, now, target });
        if (!sameState(now, state)) userModified.add(path);
      }
      diffs.sort((a, b) => (a.path < b.path ? -1 : 1));
      const { result, ops } = await this.buildPlan(store, diffs, userModified, false, []);
      const tag = Date.now().toString(36) + randomBytes(4).toString('hex');
      await this.applyUnderJournal(store, ops, tag, { kind: 'pop-undo', sessionId, preRestoreAnchor: top.preRestoreAnchor });
      return result;
    });
  }

  /** Finishes (or rolls back) a restore that a crash interrupted. Safe to call any time. */
  recover(): Promise<RecoverResult> {
    return this.serialize(async () => {
      const store = await this.store();
      return withStoreLock(join(this.storeDir, 'lock'), async () => {
        await store.reload();
        return this.recoverLocked(store);
      });
    });
  }

  private async recoverLocked(store: ObjectStore): Promise<RecoverResult> {
    const restorer = this.restorer(store);
    const journal = await restorer.readJournal();
    if (!journal) return { outcome: 'none', paths: [] };
    if (journal.workspaceRoot !== this.workspaceRoot) throw new Error(`an interrupted restore of another folder (${journal.workspaceRoot}) is pending in this store; run recovery from that folder`);
    const outcome = await restorer.recover(journal);
    const after = parseAfter(journal.after);
    if (outcome === 'completed' && after) await this.finishAfter(after);
    await restorer.finish();
    this.dirty = 'all';
    return { outcome, paths: journal.ops.map((o) => o.path) };
  }

  /** Removes objects no snapshot reaches; then, while the store is over its size cap, drops the oldest snapshots. */
  gc(): Promise<GcResult> {
    return this.locked((store) => this.gcLocked(store));
  }

  private async gcLocked(store: ObjectStore): Promise<GcResult> {
    const pruned: { sessionId: string; anchorId: string }[] = [];
    let removedObjects = 0;
    let freedBytes = 0;
    const reader = new TreeReader(store);
    for (;;) {
      const recs = await this.records.all();
      const live = await reachableObjects(reader, recs.map((r) => r.root));
      const res = await store.gc(live);
      removedObjects += res.removedObjects;
      freedBytes += res.freedBytes;
      if ((await store.sizeOnDisk()) <= this.sizeCap || recs.length <= 1) break;
      const oldest = [...recs].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      // drop the oldest tenth (at least one), never the newest snapshot
      const drop = oldest.slice(0, Math.max(1, Math.floor(recs.length / 10))).filter((r) => r !== oldest.at(-1));
      for (const r of drop) {
        await this.records.delete(r.sessionId, r.anchorId);
        pruned.push({ sessionId: r.sessionId, anchorId: r.anchorId });
      }
    }
    return { removedObjects, freedBytes, prunedSnapshots: pruned };
  }

  /** Bytes the object store takes on disk. */
  async storeSize(): Promise<number> {
    return (await this.store()).sizeOnDisk();
  }
}

type AfterRestore = { kind: 'push-undo'; undo: UndoRecord } | { kind: 'pop-undo'; sessionId: string; preRestoreAnchor: string };

function parseAfter(x: unknown): AfterRestore | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const a = x as Record<string, unknown>;
  if (a.kind === 'push-undo') {
    const undo = undoSchema.safeParse(a.undo);
    return undo.success ? { kind: 'push-undo', undo: undo.data } : undefined;
  }
  if (a.kind === 'pop-undo' && typeof a.sessionId === 'string' && typeof a.preRestoreAnchor === 'string') return a as AfterRestore;
  return undefined;
}

