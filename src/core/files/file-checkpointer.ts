// File checkpoints (docs/ARCHITECTURE.md, file checkpoints): whole-workspace snapshots anchored at user-message ids, previewed and restored
// safely. The store and records live outside the workspace; the workspace is only ever written by Restorer.
// This class is the facade: it serializes operations, takes the store lock and runs recovery first; the work is
// done by ChangeTracker (what changed), storeTree (snapshot writing), RewindPlanner (what a rewind changes),
// Restorer (applying it under a journal), undo-stack.ts and store-gc.ts.
import { SerialQueue } from '../serial-queue';
import { overlayTree } from './imported-snapshot';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFileAtomic } from './atomic-write';
import { join, relative, sep } from 'node:path';
import { collectGarbage } from '../collect-garbage';
import { ChangeTracker } from './scan/change-tracker';
import { IndexedDir } from './scan/stat-index';
import { ObjectStore, MAX_OBJECT_SIZE, MAX_SMALL_PACKS } from './store/object-store';
import { PathFilter } from './scan/path-filter';
import { Restorer, type RestoreOp } from './restore/restore';
import { failure, foldersOnPaths, HunkSelectionError, isFileish, RewindPlanner, type IncludeOptions, type Plan } from './restore/rewind-planner';
import { failedRewindPending, recoveredNotes, recoveryAhead, type RecoveryAhead } from './restore/recovery-ahead';
import { ForecastModel } from './restore/forecast-model';
import { fileHunks } from './restore/hunks';
import { hashObject } from './store/object-format';
import { absPath, ensureSafeParents, parentOf, splitRelPath } from './safe-paths';
import { readStableFile } from './safe-read';
import { fsPath } from './file-names';
import { fileBlame, fileHistory } from './file-history';
import { lstatSync } from 'node:fs';
import { SnapshotRecords, type SnapshotRecord, type StagedRecord } from './snapshot-records';
import { Timeline, type TimelinePoint } from './timeline';
import { TimelineChanges } from './timeline-changes';
import type { UndoRecord } from './restore/undo-record';
import { storeTree } from './scan/snapshot-writer';
import { gcStore } from './store/store-gc';
import { compactInBackground, compactionDue, compactStore, type CompactionResult } from './store/store-compaction';
import { withStoreLock } from './store/store-lock';
import { BULK_OBJECTS } from './store/pack-writer';
import { treeTotals, type DirNode } from './store/tree';
import { TreeCache } from './store/tree-cache';
import { diffStoredTrees, TreeReader, type EntryState } from './store/tree-diff';
import { lineStats } from './restore/line-stats';
import { finishAfter, parseAfter, type AfterRestore } from './restore/undo-stack';
import { Limiter, type ScanStats, type WorkspaceModel } from './scan/workspace-model';
import { LstatMoment } from './scan/lstat-moment';
import { ChangeFeed, type WatcherSync } from './scan/watcher-sync';
import { watchLimitMessage, type WatchLimitReport } from './scan/watch-limit';
import { DEFAULT_SCAN_TUNING, type ImportedFile } from './types';
import type {
  ActGuard,
  AnchorCheck,
  FileBlame,
  FileCheckpointerOptions,
  FileHistory,
  TurnWrites,
  FileHunks,
  GcResult,
  RecoverResult,
  RewindFilesOptions,
  RewindFilesResult,
  SkippedFile,
  SnapshotFileDiff,
  SnapshotId,
  SnapshotKind,
  SnapshotSummary,
} from './types';
import { resolveWorkspaceRoot } from './workspace-root';
import { defaultStoreDir } from './store/store-dir';
export { defaultStoreDir };

const DEFAULT_MAX_FILE = 50 * 1024 * 1024;
const DEFAULT_CAP = 5 * 1024 ** 3;
const DEFAULT_FULL_CHECK = 5 * 60_000;
/** How long after a failed background compaction the next one may start. */
const COMPACT_RETRY_MS = 10 * 60_000;
/** How long a tracked checkpointer waits without a snapshot before merging its small packs. */
const MERGE_IDLE_MS = 1_000;
/** How long a checkpointer keeps the folder trees of its last operations without another one (dropTreesWhenIdle). */
const TREES_IDLE_MS = 60_000;

/** A path reported twice (its ignore rules and the file itself, say) is listed once, with the first reason. */
function onePerPath(skipped: SkippedFile[]): SkippedFile[] {
  const seen = new Set<string>();
  return skipped.filter((s) => !seen.has(s.path) && (seen.add(s.path), true));
}

export class FileCheckpointer {
  readonly workspaceRoot: string;
  readonly storeDir: string;
  private readonly sizeCap: number;
  private readonly fullCheckInterval: number;
  /** See FileCheckpointerOptions.shortLived. */
  private readonly shortLived: boolean;
  private readonly filter: PathFilter;
  private readonly records: SnapshotRecords;
  /** Every snapshot of this folder in the order taken, whichever session took it (timeline.ts). */
  readonly timeline: Timeline;
  /** For each pair of consecutive points, the paths that changed between them (timeline-changes.ts). */
  readonly timelineChanges: TimelineChanges;
  private readonly tracker: ChangeTracker;
  private readonly planner: RewindPlanner;
  /** Folder trees read or written lately, decoded, for the next plan and changed-path line (tree-cache.ts); dropped
   *  once this checkpointer has been idle a while. */
  private readonly trees = new TreeCache();
  private treesTimer: NodeJS.Timeout | undefined;
  /** The changed-path line of a rewind's pre-restore point, written once the rewind has answered (writeOwedLine). */
  private owedLine: { from: string; to: string } | undefined;
  private lineWriting: Promise<void> | undefined;
  private storePromise?: Promise<ObjectStore>;
  /** The store once open (storePromise resolved). */
  private openStore?: ObjectStore;
  private watcherStop?: () => void;
  private readonly queue = new SerialQueue();
  private fullCheckTimer?: NodeJS.Timeout;
  /** The merge of small packs a tracked snapshot left for a quiet moment (mergePacksWhenIdle). */
  private merging: Promise<void> | undefined;
  private mergeTimer: NodeJS.Timeout | undefined;
  /** The compaction running in the background (store-compaction.ts), and how to stop it when this one closes. */
  private compacting: Promise<void> | undefined;
  private compactStop: AbortController | undefined;
  /** When the last background compaction failed: it is not tried again for a while (a full disk, say). */
  private compactFailedAt = 0;
  /** A snapshot found the store due for compaction and this checkpointer does not stay to run it. */
  private handOffCompaction = false;

  constructor(opts: FileCheckpointerOptions) {
    this.workspaceRoot = resolveWorkspaceRoot(opts.workspaceRoot);
    this.storeDir = opts.storeDir ?? defaultStoreDir(opts.home, this.workspaceRoot);
    const maxFileSize = Math.min(opts.maxFileSize ?? DEFAULT_MAX_FILE, MAX_OBJECT_SIZE);
    this.sizeCap = opts.sizeCapBytes ?? DEFAULT_CAP;
    this.fullCheckInterval = opts.fullCheckIntervalMs ?? DEFAULT_FULL_CHECK;
    this.shortLived = opts.shortLived === true;
    const excludedDirs: string[] = [];
    for (const d of [this.storeDir, opts.home]) {
      const rel = relative(this.workspaceRoot, d);
      if (rel && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) excludedDirs.push(rel.split(sep).join('/'));
    }
    this.filter = new PathFilter({ include: opts.include, exclude: opts.exclude, excludedDirs });
    this.records = new SnapshotRecords(this.storeDir);
    this.tracker = new ChangeTracker(this.workspaceRoot, this.storeDir, this.filter, maxFileSize, this.fullCheckInterval, {
      ...DEFAULT_SCAN_TUNING,
      ...opts.tuning,
    });
    this.tracker.ownsProcessFolder = opts.ownsProcessFolder === true;
    this.timeline = new Timeline(this.storeDir, this.records);
    this.timelineChanges = new TimelineChanges(this.storeDir);
    this.planner = new RewindPlanner(this.workspaceRoot, this.records, this.timeline, this.trees, this.timelineChanges);
    this.watchLimitForTests = opts.tuning?.watchLimit;
    this.folderWatchForTests = opts.tuning?.folderWatch;
  }

  /** See ScanTuning.watchLimit. */
  private readonly watchLimitForTests: number | undefined;
  private readonly folderWatchForTests: 'handle' | 'fs.watch' | undefined;

  private restorer(store: ObjectStore): Restorer {
    return new Restorer(this.workspaceRoot, store, join(this.storeDir, 'journal.json'));
  }

  private async store(): Promise<ObjectStore> {
    this.storePromise ??= (async () => {
      const store = await ObjectStore.open(this.storeDir, { indexesInMemory: this.shortLived });
      this.openStore = store;
      // lets `agent-rewind gc` find the workspace of each store
      const marker = join(this.storeDir, 'workspace.json');
      if (!existsSync(marker)) await writeFileAtomic(marker, JSON.stringify({ workspaceRoot: this.workspaceRoot }));
      return store;
    })();
    return this.storePromise;
  }

  /** One operation at a time in this process: they share the scanned model. */
  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      try {
        return await fn();
      } finally {
        // what a burst of index lookups read whole is garbage once its operation is over (a quiet service's memory)
        this.openStore?.endIndexBursts();
      }
    });
  }

  /** Runs `fn` under the store lock, after recovery of any restore left unfinished (whose report it gets). */
  private locked<T>(fn: (store: ObjectStore, recovered: SkippedFile[]) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      const store = await this.store();
      return withStoreLock(join(this.storeDir, 'lock'), async () => {
        await store.reload({ repair: true });
        const rec = await this.recoverLocked(store);
        // what recovery left alone (edited since, or still failing) is reported by the operation that ran it
        const recovered = recoveredNotes(rec.notRestored ?? []);
        return fn(store, recovered);
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
    this.tracker.notifyChanged(paths);
  }

  /** Forces the next snapshot to re-check the whole tree (e.g. the watcher overflowed). */
  markAllDirty(): void {
    this.tracker.markAllDirty();
  }

  /**
   * The barrier of the watcher that feeds notifyChanged (e.g. the editor's): awaited before every tracked refresh;
   * when it cannot sync, that refresh checks the whole tree.
   */
  setWatcherSync(sync: WatcherSync | undefined): void {
    this.tracker.sync = sync;
  }

  /**
   * Starts the Node fs.watch-based watcher of this workspace feeding the tracker. When the system's limit on watches
   * leaves folders unwatched, each snapshot checks those folders whole (exact, slower) and `onLimit` is called once,
   * the first time (see watchLimit for the current state).
   */
  async startWatching(onLimit?: (report: WatchLimitReport) => void): Promise<void> {
    if (this.watcherStop) return;
    const { watchWorkspace } = await import('./scan/fs-watcher');
    const feed = new ChangeFeed({ sink: (rels) => this.notifyChanged(rels) });
    // said once, after the watch has started (folders keep failing until it is done: the report counts them all)
    let started = false;
    let limitSaid = false;
    const sayLimit = () => {
      const report = started && !limitSaid ? this.watchLimit : undefined;
      if (!report) return;
      limitSaid = true;
      onLimit?.(report);
    };
    const stop = await watchWorkspace(
      this.workspaceRoot,
      {
        onChange: (rels) => feed.note(rels),
        onOverflow: () => this.markAllDirty(),
        onLimit: (rel, code) => {
          this.limitMet ??= { first: rel, code };
          sayLimit();
        },
        skip: (rel) => {
          return this.filter.isExcluded(rel, true, this.tracker.model?.chainFor(parentOf(rel)) ?? []);
        },
      },
      { limit: this.watchLimitForTests, folderWatch: this.folderWatchForTests },
    );
    this.unwatched = stop.unwatched;
    this.tracker.unwatched = stop.unwatched;
    started = true;
    sayLimit();
    this.tracker.sync = { settle: () => feed.settle(this.workspaceRoot) };
    // tracking only now that the watch is in place: a change made while it was being set up (Node's recursive watch
    // walks the tree asynchronously) was reported to nobody, so snapshots until now checked the tree, and the next
    // one checks it whole once more
    this.markAllDirty();
    this.startTracking();
    // ignored folders are not watched: once a rule change makes one visible, it is watched from then on
    this.tracker.onRulesRefreshed = (model) => void stop.watchFolders(folderRels(model.root)).catch(() => this.markAllDirty());
    this.watcherStop = () => {
      this.tracker.onRulesRefreshed = undefined;
      this.tracker.unwatched = undefined;
      this.unwatched = undefined;
      stop();
      feed.dispose();
    };
  }

  /** Where the system's watch limit was first met, and why (undefined: never). */
  private limitMet: { first: string; code: string } | undefined;
  private unwatched: (() => ReadonlySet<string>) | undefined;

  /** The folders the system's watch limit leaves unwatched now, with what to tell the user; undefined when none. */
  get watchLimit(): WatchLimitReport | undefined {
    const folders = this.unwatched?.().size ?? 0;
    if (!this.limitMet || folders === 0) return undefined;
    return { ...this.limitMet, folders, message: watchLimitMessage(this.workspaceRoot, this.limitMet.code, folders) };
  }

  /**
   * Tracking mode: snapshots look only at reported paths; the periodic full check runs in the background, so a
   * user's dry run or snapshot never pays for it.
   */
  private startTracking(): void {
    this.tracker.tracking = true;
    if (this.fullCheckTimer) return;
    this.fullCheckTimer = setInterval(() => {
      void this.serialize(async () => {
        if (Date.now() - this.tracker.lastFullCheck < this.fullCheckInterval * 0.9) return;
        await this.tracker.refreshModel({ skipped: [], hashedFiles: 0 }, undefined, true).then(
          () => this.compactModelSoon(),
          () => this.markAllDirty(),
        );
      });
    }, this.fullCheckInterval);
    this.fullCheckTimer.unref();
  }

  async dispose(): Promise<void> {
    if (this.mergeTimer) clearTimeout(this.mergeTimer); // a fresh process merges them when it opens the store
    await this.merging;
    await this.lineWriting;
    if (this.treesTimer) clearTimeout(this.treesTimer);
    this.trees.clear();
    // a compaction stops between two batches and leaves the store as it was; the next process starts it again
    this.compactStop?.abort();
    await this.compacting;
    if (this.handOffCompaction) compactInBackground(this.workspaceRoot, this.storeDir);
    this.handOffCompaction = false;
    if (this.fullCheckTimer) clearInterval(this.fullCheckTimer);
    this.fullCheckTimer = undefined;
    this.watcherStop?.();
    this.watcherStop = undefined;
    if (this.tracker.savable) await this.tracker.saveStatIndex(this.tracker.model!.root).catch(() => {});
    if (this.storePromise) await (await this.storePromise).closeHandles();
  }

  // ── snapshots ───────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Snapshots the whole workspace under (sessionId, anchorId). A later snapshot with the same ids replaces it.
   * `stillWanted` (ActGuard) is called once the workspace has been read, right before the record is committed: a
   * snapshot its caller gave up on meanwhile is then not recorded under the prompt's name.
   */
  snapshot(sessionId: string, anchorId: string, kind: SnapshotKind = 'user-message', stillWanted?: ActGuard): Promise<SnapshotSummary> {
    if (!sessionId || !anchorId) return Promise.reject(new Error('a snapshot needs a session id and an anchor id'));
    return this.locked(async (store, recovered) => {
      const summary = await this.snapshotLocked(store, sessionId, anchorId, kind, undefined, undefined, stillWanted);
      summary.skipped.push(...recovered);
      // tracking (the checkpoint service, the extension's worker): merging the small packs (every 32nd snapshot, up
      // to a few hundred ms on a busy disk) waits for a quiet second, so no prompt's hook waits for it — unless
      // snapshots never pause, then it runs here at twice the count; a fresh process merges at once
      if (!this.tracker.tracking || store.hasTooManySmallPacks(2 * MAX_SMALL_PACKS)) await store.consolidateSmallPacks();
      else if (store.hasTooManySmallPacks(MAX_SMALL_PACKS)) this.mergePacksWhenIdle();
      // the size cap: the store's own count first (stat-ing every pack on each snapshot cost a prompt's hook up to
      // 4 ms on a busy disk); what lies beside the packs (temp files) is no reason to drop snapshots anyway
      if (store.knownSize() > this.sizeCap && (await store.sizeOnDisk()) > this.sizeCap)
        summary.pruned = (await gcStore(store, this.records, this.sizeCap)).prunedSnapshots;
      this.compactWhenDue(store);
      return summary;
    });
  }

  /**
   * Starts a compaction in the background once enough blobs are stored at the snapshot's fast level (like git's
   * gc --auto). Nobody waits for it: it takes the store lock only to start and to put its packs in place, and stops
   * between two batches when this checkpointer closes.
   */
  private compactWhenDue(store: ObjectStore): void {
    // only a checkpointer that stays (the extension's worker, the checkpoint service): a fresh process would stop it
    // when it closes, moments later, so it hands it off when it closes (compactInBackground)
    if (this.compacting || Date.now() - this.compactFailedAt < COMPACT_RETRY_MS || !compactionDue(store)) return;
    if (!this.tracker.tracking) {
      this.handOffCompaction = true;
      return;
    }
    const stop = new AbortController();
    this.compactStop = stop;
    this.compacting = compactStore((fn) => this.locked((s) => fn(s)), { signal: stop.signal })
      .then(
        () => {},
        () => {
          // a compaction that fails or is stopped changes nothing; only a failure waits before the next try
          if (!stop.signal.aborted) this.compactFailedAt = Date.now();
        },
      )
      .finally(() => {
        this.compacting = undefined;
        this.compactStop = undefined;
      });
  }

  /** Resolves once no compaction runs in the background (the benchmark waits for it as it waits for git's gc). */
  async whenCompacted(): Promise<void> {
    while (this.compacting) await this.compacting;
  }

  /** Compacts the store now, due or not (`agent-rewind gc`); undefined when there was nothing to compact. */
  async compact(): Promise<CompactionResult | undefined> {
    await this.whenCompacted();
    return compactStore((fn) => this.locked((s) => fn(s)), { force: true });
  }

  /**
   * A tracked model just fully checked is an object per file: rebuilt from its stat index (ChangeTracker.compactModel)
   * right after the operation that checked it, off its caller's time. With `stored` (the model's snapshot was
   * committed, as of that epoch of the store), the index's files count as stored, as the scanned nodes did.
   */
  private compactModelSoon(stored?: { store: ObjectStore; epoch: number }): void {
    const generation = this.tracker.generation;
    void this.serialize(async () => {
      await new Promise((r) => setImmediate(r)); // the answer of the operation that asked for this goes out first
      const index = this.tracker.compactModel(generation);
      if (!index) return;
      if (stored) stored.store.noteStoredOrigin((f) => index.madeUnchanged(f), stored.epoch);
      // the tree it replaced (the index loaded at start, or an object per file after a full check) and the bytes the
      // new one was parsed from are garbage now: collected at once, not at V8's next full collection, which a quiet
      // service may not run for hours (here, not in compactModel: a frame that still holds those bytes keeps them)
      collectGarbage();
    });
  }

  /** The kept trees serve operations that follow one another (a dry run, its rewind, the next rewind); a checkpointer
   *  left idle gives their memory back. */
  private dropTreesWhenIdle(): void {
    if (this.treesTimer) clearTimeout(this.treesTimer);
    this.treesTimer = setTimeout(() => {
      this.treesTimer = undefined;
      this.trees.clear();
    }, TREES_IDLE_MS);
    this.treesTimer.unref();
  }

  private treeReader(store: ObjectStore): TreeReader {
    return new TreeReader(store, undefined, undefined, this.trees);
  }

  /**
   * Appends the changed-path line of the pre-restore point the last rewind left owed, after the rewind has answered:
   * comparing it with the point before reads up to a few thousand trees (~300 ms of CPU for 1,000 files when the
   * trees kept are not those), which the rewind's caller does not need. Under the store lock, before any later
   * operation of this checkpointer; a line never written (the process ended first) is computed by its readers and
   * written by the next gc, as after a crash.
   */
  private writeOwedLine(): void {
    const owed = this.owedLine;
    this.owedLine = undefined;
    if (!owed) return;
    const writing = this.serialize(async () => {
      const store = await this.store();
      await withStoreLock(join(this.storeDir, 'lock'), () => this.timelineChanges.record(this.treeReader(store), owed.from, owed.to));
    }).catch(() => {});
    const before = this.lineWriting;
    this.lineWriting = Promise.all([before, writing]).then(() => {});
  }

  private mergePacksWhenIdle(): void {
    if (this.mergeTimer) clearTimeout(this.mergeTimer);
    this.mergeTimer = setTimeout(() => {
      this.mergeTimer = undefined;
      this.merging ??= this.locked((store) => store.consolidateSmallPacks())
        .catch(() => 0) // a merge that fails leaves the packs as they were: the next one tries again
        .then(() => {
          this.merging = undefined;
        });
    }, MERGE_IDLE_MS);
    this.mergeTimer.unref();
  }

  private async snapshotLocked(
    store: ObjectStore,
    sessionId: string,
    anchorId: string,
    kind: SnapshotKind,
    scanned?: WorkspaceModel,
    verify?: { blobs: Set<string>; dirs: Set<string>; current?: ReadonlyMap<string, Buffer> },
    stillWanted?: ActGuard,
  ): Promise<SnapshotSummary> {
    const stats: ScanStats = { skipped: [], hashedFiles: 0 };
    /** What the store knows stored before this snapshot writes: what the model holds once it is committed. */
    const filesEpoch = store.filesEpoch;
    // verify: what an undo will read must not dedupe against a damaged copy
    // a rewind of many files: its pre-restore pack is a bulk one from the start (PackKind.bulk)
    const w = store.newPack(verify ? { verify: verify.blobs, verifyDirs: verify.dirs, kind: { bulk: verify.blobs.size >= BULK_OBJECTS } } : {});
    let root: string;
    let model: WorkspaceModel;
    let staging: Promise<StagedRecord> | undefined;
    let packSynced: Promise<void>;
    let totals: ReturnType<typeof treeTotals>;
    let rec: SnapshotRecord;
    try {
      model = scanned ?? (await this.tracker.refreshModel(stats, w));
      root = await storeTree(this.workspaceRoot, model.root, '', w, new Limiter(32), stats.skipped, this.trees, verify?.current);
      totals = treeTotals(model.root);
      const { files, bytes: totalBytes } = totals;
      rec = { v: 1, sessionId, anchorId, kind, root, createdAt: new Date().toISOString(), files, totalBytes };
      // the record is written (and fsynced) while the pack is, and put in place only once the pack's data is on disk
      staging = this.records.stage(rec);
      staging.catch(() => {}); // its error is thrown below, after the pack is committed, as put() did
      packSynced = (await w.commitVisible(kind !== 'turn-end')).synced;
    } catch (err) {
      await w.abort();
      await staging?.then(
        (s) => s.abort(),
        () => {},
      );
      throw err;
    }
    // the record's rename and its folder's fsync go with the pack folder's fsync, one round instead of two: should a
    // power cut keep the record's rename and lose the pack's, the next locked reload puts the pack (whole and fsynced
    // under its temp name) in place (ObjectStore.adoptOrphans). An identical user-message snapshot keeps the first record.
    const staged = await staging;
    try {
      stillWanted?.(); // everything was read before this: if the caller is still there, the snapshot is its moment's
    } catch (err) {
      await staged.abort(); // the pack's objects, referenced by nothing, go with the next gc
      throw err;
    }
    const [saved] = await Promise.all([staged.commit(), packSynced]);
    // a new snapshot takes its place on the folder's timeline (an unchanged user message's keeps its first one); a
    // failed append loses nothing: the record is there, and reconcile() puts it back on the timeline
    if (saved.createdAt === rec.createdAt) {
      let previousRoot: string | undefined;
      try {
        previousRoot = this.timeline.append(saved).previousRoot;
      } catch {
        /* mended from the records */
      }
      // and the paths it changed since the point before it: a few trees read, those on the way to the changes (a
      // line that is not written is computed by its readers, and written by the next gc)
      // (a rewind's pre-restore point: once the rewind has answered, see writeOwedLine)
      if (previousRoot !== undefined && kind === 'pre-restore') this.owedLine = { from: previousRoot, to: saved.root };
      else if (previousRoot !== undefined) await this.timelineChanges.record(this.treeReader(store), previousRoot, saved.root).catch(() => {});
      this.dropTreesWhenIdle();
    }
    const { files, bytes: totalBytes, ignored } = totals;
    const createdAt = saved.createdAt;
    // a tracked model is persisted after each full check (and at dispose), not after every small refresh: writing
    // the cache of a 50,000-file tree costs more than the rest of a tracked snapshot
    if (this.tracker.fullCheckUnsaved) {
      this.tracker.fullCheckUnsaved = false;
      await this.tracker.saveStatIndex(model.root);
      if (this.tracker.tracking) this.compactModelSoon({ store, epoch: filesEpoch });
    } else await this.tracker.saveStatPatch(model.root);
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
      skipped: onePerPath(stats.skipped),
      ignoredCount: ignored,
      pruned: [],
      createdAt,
    };
  }

  /**
   * A snapshot made from another tool's checkpoint (Claude Code's own file history): the workspace as it is now with
   * `files` put back as that tool saved them. Its anchor names the state it was made from (`<anchorId>@<base>`), so
   * making it again from an unchanged workspace is the same snapshot; rewinding to it works like any other.
   */
  importSnapshot(sessionId: string, anchorId: string, files: readonly ImportedFile[]): Promise<SnapshotSummary> {
    if (!sessionId || !anchorId) return Promise.reject(new Error('a snapshot needs a session id and an anchor id'));
    return this.locked(async (store, recovered) => {
      const stats: ScanStats = { skipped: [], hashedFiles: 0 };
      const base = store.newPack();
      let baseRoot: string;
      let model: WorkspaceModel;
      try {
        model = await this.tracker.refreshModel(stats, base);
        baseRoot = await storeTree(this.workspaceRoot, model.root, '', base, new Limiter(32), stats.skipped);
        await base.commit(false);
      } catch (err) {
        await base.abort();
        throw err;
      }
      const w = store.newPack();
      let root: string;
      try {
        root = await overlayTree(store, w, baseRoot, files, stats.skipped);
        await w.commit(false);
      } catch (err) {
        await w.abort();
        throw err;
      }
      const { files: count, bytes: totalBytes, ignored } = treeTotals(model.root);
      const createdAt = new Date().toISOString();
      const importedAnchor = `${anchorId}@${baseRoot.slice(0, 16)}`;
      const existing = await this.records.get(sessionId, importedAnchor);
      if (existing?.root !== root)
        await this.records.put({
          v: 1,
          sessionId,
          anchorId: importedAnchor,
          kind: 'user-message',
          root,
          createdAt,
          files: count,
          totalBytes,
          derived: 'imported',
        });
      return {
        sessionId,
        anchorId: importedAnchor,
        kind: 'user-message',
        root,
        files: count,
        totalBytes,
        hashedFiles: stats.hashedFiles,
        newObjects: base.objectCount + w.objectCount,
        newBytes: base.newBytes + w.newBytes,
        skipped: onePerPath([...stats.skipped, ...recovered]),
        ignoredCount: ignored,
        pruned: [],
        createdAt,
      };
    });
  }

  /**
   * Makes another session's user-message snapshot one of this session's too (a fork's inherited prompt, whose snapshot
   * the origin's hook took): a new record with the same root, so rewind, preview and undo work on the fork's own
   * session. Under the lock, so gc cannot drop the root between reading the origin's record and writing ours; only
   * from this store. Undefined when the origin has no such user-message snapshot (any more).
   */
  adoptSnapshot(fromSessionId: string, fromAnchorId: string, sessionId: string, anchorId: string): Promise<SnapshotRecord | undefined> {
    if (!fromSessionId || !fromAnchorId || !sessionId || !anchorId) return Promise.reject(new Error('adopting a snapshot needs both session and anchor ids'));
    return this.locked(async () => {
      const from = await this.records.get(fromSessionId, fromAnchorId);
      if (from?.kind !== 'user-message') return undefined;
      return this.records.put({ ...from, sessionId, anchorId, derived: 'adopted' });
    });
  }

  /** Forgets one snapshot (e.g. its session was deleted); its data goes at the next gc. */
  deleteSnapshot(sessionId: string, anchorId: string): Promise<void> {
    return this.locked(() => this.records.delete(sessionId, anchorId));
  }

  /** The session's file undos, oldest first (their pre-restore anchors), after recovery of an unfinished restore. */
  undoStack(sessionId: string): Promise<string[]> {
    return this.locked(async () => (await this.records.undoStack(sessionId)).map((u) => u.preRestoreAnchor));
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
   * The changes to each of `relPaths` since the anchor cut into hunks (restore/hunks.ts), keyed by the hash of the bytes
   * read now; or why a file can only be taken back whole. Reads the store and the files, never writes.
   */
  async fileHunks(sessionId: string, anchorId: string, relPaths: readonly string[]): Promise<FileHunks[]> {
    for (const p of relPaths) splitRelPath(p);
    const rec = await this.records.get(sessionId, anchorId);
    if (!rec) return relPaths.map((path) => ({ path, ok: false, reason: 'that message has no file snapshot' }));
    const store = await this.store();
    await store.reload();
    const reader = new TreeReader(store);
    const out: FileHunks[] = [];
    for (const relPath of relPaths) out.push(await this.hunksOfOne(store, reader, rec.root, relPath));
    return out;
  }

  private async hunksOfOne(store: ObjectStore, reader: TreeReader, root: string, relPath: string): Promise<FileHunks> {
    const target = await reader.lookup(root, relPath);
    const targetData = target?.kind === 'file' ? await store.read(target.hash, 'blob', relPath) : undefined;
    let now: EntryState = null;
    let nowData: Buffer | undefined;
    // read only: a regular file at the path, reached through real folders (never a symlink out of the workspace)
    if (await ensureSafeParents(this.workspaceRoot, relPath, false).catch(() => false)) {
      const abs = fsPath(absPath(this.workspaceRoot, relPath));
      const st = lstatSync(abs, { throwIfNoEntry: false });
      if (st?.isFile()) {
        try {
          nowData = readStableFile(abs).data;
          now = { kind: 'file', hash: hashObject('blob', nowData), mode: st.mode & 0o7777 };
        } catch (err) {
          return { path: relPath, ok: false, reason: `it could not be read: ${(err as Error).message}` };
        }
      } else if (st) now = st.isDirectory() ? { kind: 'dir' } : { kind: 'symlink', hash: '', mode: st.mode & 0o7777 };
    }
    return fileHunks(relPath, target, now, targetData, nowData);
  }

  /**
   * The files that differ between two snapshots of this workspace (e.g. the latest of two conversation branches),
   * seen from A to B: 'added' exists only at B, 'deleted' only at A; insertions are lines B has and A has not.
   * Reads only the store, never the workspace. Throws when either snapshot does not exist.
   */
  async diffSnapshots(snapA: SnapshotId, snapB: SnapshotId): Promise<SnapshotFileDiff[]> {
    const [a, b] = await Promise.all([this.records.get(snapA.sessionId, snapA.anchorId), this.records.get(snapB.sessionId, snapB.anchorId)]);
    const missing = (s: SnapshotId) =>
      `There is no file snapshot ${s.anchorId} in ${s.sessionId === snapA.sessionId ? 'this session' : `session ${s.sessionId}`}.`;
    if (!a) throw new Error(missing(snapA));
    if (!b) throw new Error(missing(snapB));
    const store = await this.store();
    await store.reload();
    const diffs = await diffStoredTrees(new TreeReader(store), a.root, b.root);
    const reads = new Limiter(16);
    const listed = diffs.filter((d) => isFileish(d.a) || isFileish(d.b));
    return Promise.all(
      listed.map((d) =>
        reads.run(async () => {
          const status: SnapshotFileDiff['status'] =
            d.a === null || d.a.kind === 'dir'
              ? 'added'
              : d.b === null || d.b.kind === 'dir'
                ? 'deleted'
                : d.a.kind !== d.b.kind
                  ? 'typeChanged'
                  : d.a.hash === d.b.hash
                    ? 'modeChanged'
                    : 'modified';
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

  /** The changes to `relPath` made by any session's turns or by hand, newest first, from the folder's timeline. */
  async fileHistory(relPath: string, turnWrites: TurnWrites[] = []): Promise<FileHistory> {
    const { reader, store, points, now, changesAt } = await this.historyInputs(relPath);
    return fileHistory(reader, store, points, relPath, now, changesAt, turnWrites);
  }

  /** Per line of `relPath` now, the turn (or the user) that last wrote it, from the folder's timeline. */
  async blame(relPath: string, turnWrites: TurnWrites[] = []): Promise<FileBlame> {
    const { reader, store, points, now, changesAt } = await this.historyInputs(relPath);
    return fileBlame(reader, store, points, relPath, now, changesAt, turnWrites);
  }

  /** Every snapshot of this folder in the order taken, from any session (the timeline file, mended in memory if need be). */
  timelinePoints(): Promise<TimelinePoint[]> {
    return this.timeline.points();
  }

  private async historyInputs(relPath: string) {
    splitRelPath(relPath);
    const store = await this.store();
    await store.reload();
    const points = await this.timeline.points();
    let now: Buffer | null = null;
    // read only: a regular file at the path, reached through real folders (never a symlink out of the workspace)
    if (await ensureSafeParents(this.workspaceRoot, relPath, false).catch(() => false)) {
      try {
        const abs = absPath(this.workspaceRoot, relPath);
        if (lstatSync(fsPath(abs)).isFile()) now = readStableFile(fsPath(abs)).data;
      } catch {
        now = null;
      }
    }
    const reader = new TreeReader(store);
    this.timelineChanges.load();
    const changesAt = (j: number) => this.timelineChanges.between(reader, points[j]!.root, points[j + 1]!.root);
    return { reader, store, points, now, changesAt };
  }

  // ── rewind ──────────────────────────────────────────────────────────────────────────────────────────────────

  private async checkAnchor(sessionId: string, anchorId: string, anchor: AnchorCheck): Promise<string | SnapshotRecord> {
    const shown = anchor.messageId ?? anchorId;
    if (!anchor.checkpointingEnabled)
      return 'File checkpointing is off, so there are no file snapshots to rewind to. Turn it on before sending messages to be able to rewind files.';
    if (anchor.kind === 'missing') {
      const owner = await this.records.ownerOf(anchorId, sessionId);
      if (owner) return `Message ${shown} belongs to another session (${owner}); files can only be rewound from the session that made the snapshot.`;
      return `There is no message ${shown} in this session.`;
    }
    if (anchor.kind !== 'user-message') return `Entry ${shown} is not a user message; files can only be rewound to the moment a user message was sent.`;
    const rec = await this.records.get(sessionId, anchorId);
    if (!rec || rec.kind !== 'user-message')
      return `Message ${shown} has no file snapshot (it was sent while file checkpointing was off, its hook could not take one before the agent went on (a checkpoint service that does not answer in time takes none afterwards), or it was removed to stay under the storage limit).`;
    return rec;
  }

  /** `ahead`: a dry run's, planned from the files as recovery will leave them (recovery-ahead.ts). */
  private async plan(store: ObjectStore, rec: SnapshotRecord, include: IncludeOptions, ahead?: RecoveryAhead): Promise<Plan> {
    const stats: ScanStats = { skipped: [], hashedFiles: 0 };
    const model = await this.tracker.refreshModel(stats);
    this.dropTreesWhenIdle();
    const covered = (rel: string, isDir: boolean) => !this.filter.isExcluded(rel, isDir, model.chainFor(parentOf(rel)));
    const view = () => (ahead && ahead.forecast.size > 0 ? new ForecastModel(model, ahead.forecast, ahead.blobs, covered) : model);
    // the plan's check of its paths on disk and the re-check below look at the same paths with no turn of the event
    // loop between them: one lstat each (lstat-moment.ts)
    const onDisk = new LstatMoment(this.workspaceRoot);
    let plan: Plan;
    try {
      plan = await this.planner.plan(store, rec, include, view(), stats.skipped, onDisk);
      // a watcher's model may have missed a report: the paths the rewind would write or list are checked on disk, and
      // the rewind planned again from what is there when one is not what the model held. Else an edit it never heard
      // of was overwritten as the turn's (with the turn's version kept for undo), and the real rewind, whose
      // pre-restore snapshot reads what is there, could refuse what its preview allowed
      if (!(await this.tracker.recheck([...plan.ops.map((o) => o.path), ...plan.result.files.map((f) => f.path)], stats, onDisk))) return plan;
    } finally {
      onDisk.close();
    }
    return this.planner.plan(store, rec, include, view(), onePerPath(stats.skipped));
  }

  /**
   * Previews (dryRun) or performs the rewind of the workspace files to the snapshot of a user message. A dry run
   * never throws and never touches the workspace; the real call throws with the same message when it cannot.
   */
  async rewindFiles(sessionId: string, anchorId: string, opts: RewindFilesOptions, stillWanted?: ActGuard): Promise<RewindFilesResult> {
    if (opts.only || opts.hunks) {
      // a selection names paths inside the workspace, never a way out of it
      try {
        opts = {
          ...opts,
          ...(opts.only ? { only: opts.only.map(selectedPath) } : {}),
          ...(opts.hunks ? { hunks: opts.hunks.map((h) => ({ ...h, path: selectedPath(h.path) })) } : {}),
        };
      } catch (err) {
        if (opts.dryRun) return failure((err as Error).message);
        throw err;
      }
    }
    if (opts.dryRun) {
      return this.serialize(async () => {
        try {
          const check = await this.checkAnchor(sessionId, anchorId, opts.anchor);
          if (typeof check === 'string') return failure(check);
          const store = await this.store();
          await store.reload();
          // the real rewind recovers a pending restore first, and plans from what that leaves: so does its preview
          const ahead = await recoveryAhead(this.workspaceRoot, store, this.records, this.restorer(store), opts.settledFirst);
          if (typeof ahead === 'string') return failure(ahead);
          if (ahead?.recovers) this.tracker.markAllDirty(); // as recovery does: the plan after it checks every file
          const plan = await this.plan(store, check, opts, ahead);
          if (!ahead) return plan.result;
          if (ahead.staysFailed && plan.ops.length > 0) return failure(failedRewindPending(ahead.staysFailed));
          return {
            ...plan.result,
            skipped: [...plan.result.skipped, ...ahead.recovered],
            ...(ahead.notice ? { recoveryFirst: ahead.notice } : {}),
          };
        } catch (err) {
          if (err instanceof HunkSelectionError) return failure(err.message);
          return failure(`Cannot preview the rewind: ${(err as Error).message}`);
        }
      });
    }
    const check = await this.checkAnchor(sessionId, anchorId, opts.anchor);
    if (typeof check === 'string') throw new Error(check);
    try {
      return await this.rewindLocked(sessionId, anchorId, check, opts, stillWanted);
    } finally {
      this.writeOwedLine();
    }
  }

  private rewindLocked(
    sessionId: string,
    anchorId: string,
    check: SnapshotRecord,
    opts: RewindFilesOptions,
    stillWanted?: ActGuard,
  ): Promise<RewindFilesResult> {
    return this.locked(async (store, recovered) => {
      const { result, ops, blobs, current, partialBlobs } = await this.plan(store, check, opts);
      result.skipped.push(...recovered);
      if (ops.length === 0) return result;
      // a file of which only some hunks come back is new content: stored (durably) before the journal names it, so
      // that recovery after a crash can write it too
      if (partialBlobs.size > 0) await storeBlobs(store, partialBlobs);
      // a refusal (a path through a symlink, say) came from the plan, before anything is written
      const tag = Date.now().toString(36) + randomBytes(4).toString('hex');
      const preRestoreAnchor = `pre-restore:${tag}`;
      const needed = new Set(ops.flatMap((o) => (isFileish(o.from) ? [o.from.hash] : [])));
      await this.snapshotLocked(store, sessionId, preRestoreAnchor, 'pre-restore', this.tracker.model, { blobs: needed, dirs: foldersOnPaths(ops), current });
      store.assertReadable(needed, 'the workspace changed while the rewind was being prepared'); // its undo needs them all
      const undo: UndoRecord = {
        v: 1,
        sessionId,
        anchorId,
        preRestoreAnchor,
        createdAt: new Date().toISOString(),
        written: ops.map((o) => ({ path: o.path, state: o.to })),
      };
      try {
        stillWanted?.(); // the last moment a rewind its caller gave up on can still not happen at all
        await this.applyUnderJournal(store, ops, tag, { kind: 'push-undo', undo }, partialBlobs.size > 0 ? new Map([...blobs, ...partialBlobs]) : blobs);
      } catch (err) {
        // rolled back completely: the snapshot taken for its undo is of no use (a kept journal may still need it)
        if (
          !(await this.restorer(store)
            .readJournal()
            .catch(() => 'damaged'))
        )
          await this.records.delete(sessionId, preRestoreAnchor).catch(() => {});
        throw err;
      }
      return result;
    });
  }

  private async applyUnderJournal(store: ObjectStore, ops: RestoreOp[], tag: string, after: AfterRestore, blobs?: ReadonlyMap<string, Buffer>): Promise<void> {
    const restorer = this.restorer(store);
    // a failed rewind whose files could not all be put back keeps its journal until they are: a new one would lose it
    const pending = await restorer.readJournal();
    if (pending?.failed) throw new Error(failedRewindPending(pending.failed.notRestored));
    for (const op of ops) this.tracker.noteWritten(op.path);
    this.tracker.noteOwnTemps(tag);
    this.planner.forget();
    try {
      await restorer.run(ops, tag, after, blobs);
    } catch (err) {
      // its temp files were not reported, and one a failure left behind must not be missed by the next snapshot
      this.tracker.markAllDirty();
      throw err;
    }
    await finishAfter(this.records, after);
    await restorer.finish();
  }

  // ── undo, recovery, gc ──────────────────────────────────────────────────────────────────────────────────────

  /** Puts back what the last rewind of this session changed, except files changed by hand since then. */
  undoLastRewind(sessionId: string, stillWanted?: ActGuard): Promise<RewindFilesResult> {
    return this.locked(async (store) => {
      const stack = await this.records.undoStack(sessionId);
      const top = stack.at(-1);
      if (!top) throw new Error('There is no file rewind to undo in this session.');
      const pre = await this.records.get(sessionId, top.preRestoreAnchor);
      if (!pre) throw new Error('The snapshot taken before the last rewind is gone (removed by gc or the size cap); it cannot be undone.');
      const stats: ScanStats = { skipped: [], hashedFiles: 0 };
      const model = await this.tracker.refreshModel(stats);
      // what the undo writes back is checked on disk: an edit made since that the watcher missed is the user's, kept
      await this.tracker.recheck(
        top.written.map((w) => w.path),
        stats,
      );
      const { result, ops, blobs } = await this.planner.undoPlan(store, top, pre, model);
      const tag = Date.now().toString(36) + randomBytes(4).toString('hex');
      stillWanted?.();
      await this.applyUnderJournal(store, ops, tag, { kind: 'pop-undo', sessionId, preRestoreAnchor: top.preRestoreAnchor }, blobs);
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
    if (journal.workspaceRoot !== this.workspaceRoot)
      throw new Error(`an interrupted restore of another folder (${journal.workspaceRoot}) is pending in this store; run recovery from that folder`);
    const { outcome, notRestored, resolved } = await restorer.recover(journal);
    const after = parseAfter(journal.after);
    if (outcome === 'completed' && after) await finishAfter(this.records, after);
    if (resolved) await restorer.finish();
    this.tracker.markAllDirty();
    return { outcome, paths: journal.ops.map((o) => o.path), notRestored };
  }

  /**
   * Removes objects no snapshot reaches; then, while the store is over its size cap, drops the oldest snapshots;
   * then compacts what is left.
   */
  async gc(): Promise<GcResult> {
    const res = await this.locked(async (store) => {
      const r = await gcStore(store, this.records, this.sizeCap);
      // the timeline drops what gc dropped and takes back any record a crash left off it
      await this.timeline.reconcile().catch(() => {});
      // and its changed-path index: the pairs of the points kept, those a crash or damage left out computed again
      await this.timeline
        .points()
        .then((points) =>
          this.timelineChanges.rewrite(
            new TreeReader(store),
            points.map((p) => p.root),
          ),
        )
        .catch(() => {});
      return r;
    });
    const compacted = await this.compact();
    return compacted ? { ...res, compacted } : res;
  }

  /** Bytes the object store takes on disk. */
  async storeSize(): Promise<number> {
    return (await this.store()).sizeOnDisk();
  }
}

/** Puts blobs into the store in a pack of their own, durably (before a journal may name them). */
async function storeBlobs(store: ObjectStore, blobs: ReadonlyMap<string, Buffer>): Promise<void> {
  const w = store.newPack();
  try {
    for (const [hash, data] of blobs) await w.add('blob', hash, data);
    await w.commit(true);
  } catch (err) {
    await w.abort();
    throw err;
  }
}

/** A path of a selection (`only`), workspace-relative with '/', a trailing '/' dropped; a path out of the workspace throws. */
function selectedPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.')
    throw new Error('--only needs a path of a file or folder inside the workspace (the workspace itself is a whole rewind)');
  splitRelPath(trimmed);
  return trimmed;
}

/**
 * Every folder of a scanned tree, workspace-relative (iterative: trees can be thousands deep). A folder of a loaded
 * stat index that nothing looked into gives its sub-folders from the index: expanding it would make an object of
 * each of its files, the memory a long-lived service keeps its tree compact to save (ChangeTracker.compactModel).
 */
function* folderRels(root: DirNode): Generator<string> {
  const stack: [string, DirNode][] = [['', root]];
  while (stack.length > 0) {
    const [rel, dir] = stack.pop()!;
    if (dir instanceof IndexedDir && dir.untouched) {
      const { dirRel, dirs } = dir.index;
      const skip = dirRel[dir.at]!.length;
      for (let d = dir.at; d < dirs[dir.at]!.end; d++) yield rel + dirRel[d]!.slice(skip);
      continue;
    }
    yield rel;
    for (const [name, child] of dir.children) if (child.kind === 'dir') stack.push([rel === '' ? name : `${rel}/${name}`, child]);
  }
}
