// Change tracking: the scanned model of the workspace kept up to date between operations, from a watcher's reports
// (with its barrier), from the stat index a fresh process loads, or by a full check.
import { DEFAULT_SCAN_TUNING, type ScanTuning } from '../types';
import { join, relative, sep } from 'node:path';
import type { PackWriter } from '../store/pack-writer';
import type { PathFilter } from './path-filter';
import { encodeStatIndex, fingerprintOf, patchFileOf, saveStatIndex, StatIndex, type KnownIndex } from './stat-index';
import { encodeStatPatch, loadStatIndex, statPatchFor, type StatPatch } from './stat-index-patch';
import { writeFileAtomic } from '../atomic-write';
import { RESTORE_TEMP, rollBackTag } from '../restore-temp-names';
import { hashTrees, type DirNode } from '../store/tree';
import { WorkspaceModel, type ScanStats } from './workspace-model';
import type { LstatMoment } from './lstat-moment';
import type { WatcherSync } from './watcher-sync';

/** Tags kept (a restore's and its roll-back's): reports of a restore's temp files can come after it ended. */
const OWN_TEMP_TAGS = 8;

export class ChangeTracker {
  model?: WorkspaceModel;
  private modelLoaded = false;
  /** Paths a watcher reported since the last refresh; 'all' forces a full check. */
  private dirty: Set<string> | 'all' = 'all';
  tracking = false;
  lastFullCheck = 0;
  /** A full check ran since the stat cache was last saved by a snapshot. */
  fullCheckUnsaved = false;
  /** The barrier a tracked refresh awaits so that changes made just before it have been reported. */
  sync?: WatcherSync;
  /** Called after a refresh that may have changed which folders are ignored (a full check, or a `.gitignore`
   *  reported): a watcher that leaves ignored folders out must start watching the ones that no longer are. */
  onRulesRefreshed?: (model: WorkspaceModel) => void;
  /** The folders the watcher cannot watch (the system's limit): a tracked refresh checks each whole, since no report
   *  about anything in them will come. */
  unwatched?: () => Iterable<string>;
  /** What the stat index file holds, as far as this process knows (loaded or last saved): its bytes, or only their
   *  fingerprint once the tree was rebuilt from them and they were left in the file (compactModel). */
  private statIndexBytes: KnownIndex | undefined;
  /** The index just loaded, until the first refresh has checked the workspace against it. */
  private uncheckedIndex: StatIndex | undefined;
  /** A fresh process's loaded index (with the patch it came with), until its snapshot saves a patch of it. */
  private patchable: { index: StatIndex; patch?: StatPatch } | undefined;
  /** Paths the last refresh skipped (too large, unreadable…): a tracked refresh looks at them again, as a fresh
   *  process does, so that a snapshot reports every file it left out and not only those reported since. */
  private lastSkipped: string[] = [];
  /** What the last refresh looked at on disk itself: every path ('all', a full check), or the paths reported to it. */
  private lookedAt: ReadonlySet<string> | 'all' = new Set();

  constructor(
    private readonly workspaceRoot: string,
    private readonly storeDir: string,
    private readonly filter: PathFilter,
    private readonly maxFileSize: number,
    private readonly fullCheckInterval: number,
    /** Scan switches, passed in from the one place that composes settings (core reads no environment variables). */
    private readonly tuning: ScanTuning = DEFAULT_SCAN_TUNING,
  ) {}

  /** See FileCheckpointerOptions.ownsProcessFolder. */
  ownsProcessFolder = false;

  private get statIndexFile(): string {
    return join(this.storeDir, 'stat-index.bin');
  }
  private get cacheKey(): string {
    return `${this.workspaceRoot}\0${this.filter.key}\0${this.maxFileSize}`;
  }

  /** Paths (absolute, or workspace-relative with '/') a watcher reported. */
  notifyChanged(paths: Iterable<string>): void {
    if (this.dirty === 'all') return;
    for (const p of paths) {
      const rel = p.startsWith(this.workspaceRoot) ? relative(this.workspaceRoot, p).split(sep).join('/') : p;
      if (rel.startsWith('..') || this.isOwnTemp(rel)) continue;
      this.dirty.add(rel === '.' ? '' : rel);
    }
  }

  /**
   * Tags of this process's latest restores and their roll-backs, whose temp files (restore-temp-names.ts) are made
   * and renamed away within the restore: reported, each sent the next refresh to a path gone by then, and every folder
   * holding one was listed again to count its ignored names (~630 folders, ~80 ms of the snapshot after a 1,000-file
   * rewind). A restore that fails marks everything dirty instead (its temp files may stay).
   */
  private readonly ownTempTags: string[] = [];

  /** Reports of the temp files of the restore tagged `tag` are dropped from now on (see ownTempTags). */
  noteOwnTemps(tag: string): void {
    this.ownTempTags.push(tag, rollBackTag(tag));
    if (this.ownTempTags.length > OWN_TEMP_TAGS) this.ownTempTags.splice(0, this.ownTempTags.length - OWN_TEMP_TAGS);
  }

  private isOwnTemp(rel: string): boolean {
    if (this.ownTempTags.length === 0) return false;
    const m = RESTORE_TEMP.exec(rel.slice(rel.lastIndexOf('/') + 1));
    return m !== null && this.ownTempTags.includes(m[1]!);
  }

  markAllDirty(): void {
    this.dirty = 'all';
  }

  /** A path this process is about to write: the next refresh looks at it again. */
  noteWritten(rel: string): void {
    if (this.dirty !== 'all') this.dirty.add(rel);
  }

  /** Whether the model may be saved at dispose (it was loaded or scanned in tracking mode). */
  get savable(): boolean {
    return this.tracking && this.model !== undefined && this.modelLoaded;
  }

  async saveStatIndex(root: DirNode): Promise<void> {
    this.patchable = undefined;
    this.statIndexBytes = await saveStatIndex(this.statIndexFile, this.cacheKey, root, this.statIndexBytes);
    this.savedAt = root === this.model?.root ? this.refreshes : -1;
  }

  /** Counts the refreshes of the model: what compactModel checks that the model is still the one it was given. */
  private refreshes = 0;
  /** The refresh count when the stat index last saved was encoded from the model (-1: from something else). */
  private savedAt = -1;

  /** The model's refresh count now: pass it to compactModel to compact only a model nothing refreshed since. */
  get generation(): number {
    return this.refreshes;
  }

  /**
   * Rebuilds the model's tree from its stat index, so that a long-lived checkpointer keeps it compact: a scanned tree
   * is an object (with its numbers and hash string) and a map entry per file, ~700 bytes each, where the index holds
   * the same in typed arrays, ~100 bytes a file, and expands a folder again only when something looks into it (the
   * nodes a fresh process starts from, with no check needed: they are the model as it is). Uses the index just saved
   * when it was encoded from this model, else encodes one (a periodic full check, which stores nothing). Nothing when
   * the model was refreshed since `generation`, or is not tracked. Returns the index the tree now comes from.
   */
  compactModel(generation: number): StatIndex | undefined {
    const model = this.model;
    if (!this.tracking || !model || generation !== this.refreshes) return undefined;
    try {
      const known = this.statIndexBytes;
      const saved = this.savedAt === this.refreshes && Buffer.isBuffer(known);
      // under the file's id: a periodic check that found nothing changed encodes the file's very bytes
      const id = !known ? undefined : Buffer.isBuffer(known) ? fingerprintOf(known, this.cacheKey).id : known.id;
      const bytes = saved ? known : encodeStatIndex(this.cacheKey, model.root, id || undefined);
      // nothing checks the paths of this one in a row: its names are decoded per folder when looked at
      const index = StatIndex.parse(bytes, this.cacheKey, false);
      // its files' names, numbers and hashes stay in the file when these bytes are the file's (just saved, or what a
      // periodic check found unchanged): read per folder when one is expanded. Not on Windows, where a file held open
      // could keep the next save from renaming a new index over it
      if (process.platform !== 'win32' && (saved || (known && !Buffer.isBuffer(known))) && index.leaveOnDisk(this.statIndexFile))
        this.statIndexBytes = fingerprintOf(bytes, this.cacheKey);
      model.root = index.root();
      return index;
    } catch {
      return undefined; // a tree the index cannot hold as it is (a name it refuses): kept as objects
    }
  }

  /**
   * A fresh process that left the index as it is (few paths changed) writes what it learnt beside it instead
   * (stat-index-patch.ts), once, after its snapshot: `root` is the tree it stored. Nothing when the tree no longer
   * has the index's folders and names: the next processes look at those paths again, as before patches.
   */
  async saveStatPatch(root: DirNode): Promise<void> {
    const base = this.patchable;
    this.patchable = undefined;
    if (!base) return;
    const patch = statPatchFor(base.index, root, base.patch);
    if (!patch || (patch.dirs.size === 0 && patch.files.size === 0)) return;
    const bytes = encodeStatPatch(patch);
    if (base.patch && bytes.equals(encodeStatPatch(base.patch))) return;
    try {
      // a few KiB: written with synchronous calls (atomic-write.ts), not durable (a cache)
      await writeFileAtomic(patchFileOf(this.statIndexFile), bytes);
    } catch {
      /* a cache: the snapshot is stored, and the next process only reads those files again */
    }
  }

  /**
   * Looks again, whatever the watcher reported, at those of `paths` whose stat data on disk is not what the model
   * holds: a rewind or an undo is about to write them, and a report the watcher missed must not make it overwrite an
   * edit the model does not know of (nor its preview say something else than what is there). Only a tracked model can
   * be behind: every refresh of another one checks everything. Returns whether the model changed. `onDisk`: the
   * lstats of a check of the same paths just before (lstat-moment.ts), closed here once looked at.
   */
  async recheck(paths: Iterable<string>, stats: ScanStats, onDisk?: LstatMoment): Promise<boolean> {
    const model = this.model;
    if (!this.tracking || !model) return false;
    // a path the refresh just looked at is as the model holds it unless reported since (a report is the watcher's
    // word that it changed again): only the paths no report brought to that refresh can hide a missed one
    const looked = this.lookedAt;
    if (looked === 'all' && this.dirty !== 'all' && this.dirty.size === 0) return false;
    const dirty = this.dirty;
    const fresh = looked === 'all' || dirty === 'all' ? undefined : { has: (rel: string) => looked.has(rel) && !dirty.has(rel) };
    const differing = model.differingOnDisk(paths, fresh, onDisk);
    onDisk?.close(); // what follows reads files, and waits
    if (differing.length === 0) return false;
    this.refreshes++;
    const before = model.root.hash;
    await model.refreshPaths(differing, stats);
    hashTrees(model.root);
    return model.root.hash !== before;
  }

  async refreshModel(stats: ScanStats, writer?: PackWriter, forceFull = false): Promise<WorkspaceModel> {
    this.refreshes++;
    if (!this.model) {
      this.model = new WorkspaceModel(this.workspaceRoot, this.filter, this.maxFileSize);
      this.model.tuning = this.tuning;
      this.model.ownsProcessFolder = this.ownsProcessFolder;
    }
    const model = this.model;
    if (!this.modelLoaded) {
      const loaded = await loadStatIndex(this.statIndexFile, this.cacheKey);
      if (loaded) {
        model.root = loaded.index.root();
        // a patched index is not the file's bytes: a whole save must write it (and drop the patch)
        this.statIndexBytes = loaded.patch ? undefined : loaded.bytes;
        this.uncheckedIndex = loaded.index;
        if (!this.tracking) this.patchable = { index: loaded.index, patch: loaded.patch };
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
    this.lookedAt = full ? 'all' : dirty;
    if (full) {
      // a fresh process checks the paths its index knows instead of walking the tree (the periodic check walks)
      let drift: { changed: number; known: number } | undefined;
      if (this.uncheckedIndex && !forceFull) drift = await model.refreshFromIndex(this.uncheckedIndex, stats, writer);
      else await model.fullScan(stats, writer);
      this.uncheckedIndex = undefined;
      this.lastFullCheck = Date.now();
      // a fresh process that found only a few paths changed among many leaves the index as it is: writing 50,000
      // entries costs a tenth of such a snapshot (the index is a cache checked against lstat, so a stale one only
      // costs re-reads, never a wrong snapshot); what it read again goes into a patch beside the index instead. An
      // index from before patches has no id for a patch to name: it is written again once, with one
      this.fullCheckUnsaved =
        this.tracking ||
        drift === undefined ||
        this.patchable?.index.id === '' ||
        (drift.changed + (this.patchable?.patch?.files.size ?? 0)) * (this.tuning.staleIndexShare ?? DEFAULT_SCAN_TUNING.staleIndexShare!) > drift.known;
      if (this.fullCheckUnsaved || forceFull) this.patchable = undefined;
    } else {
      for (const p of this.lastSkipped) (dirty as Set<string>).add(p);
      await model.refreshPaths(dirty as Set<string>, stats, writer, this.unwatched?.() ?? []);
    }
    this.lastSkipped = stats.skipped.map((s) => s.path).filter((p) => p !== '.' && p !== '');
    hashTrees(model.root);
    if (this.onRulesRefreshed && (full || [...(dirty as Set<string>)].some((p) => p === '.gitignore' || p.endsWith('/.gitignore'))))
      this.onRulesRefreshed(model);
    return model;
  }
}
