// Rewind planning: what a rewind to a snapshot would change (the ops a restore applies, and the preview with
// +/- lines, files the user changed by hand and what is left alone), for a rewind and for an undo.
import { readdirSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '../store/object-store';
import { checkPlannedPaths, orderOps, type RestoreOp } from './restore';
import { absPath, ensureSafeParents } from '../safe-paths';
import { fsPath, nameFromBytes } from '../file-names';
import type { SnapshotRecord, SnapshotRecords } from '../snapshot-records';
import type { UndoRecord } from './undo-record';
import { diffTrees, sameState, stateOfNode, TreeReader, type EntryState, type PathDiff } from '../store/tree-diff';
import { lineStats } from './line-stats';
import type { DirNode } from '../store/tree';
import type { TreeCache } from '../store/tree-cache';
import { readStableFile } from '../safe-read';
import { Limiter } from '../scan/workspace-model';
import type { LstatMoment } from '../scan/lstat-moment';
import type { PlanModel } from './forecast-model';
import type { FileAttribution, FileChange, RewindFilesOptions, RewindFilesResult, SkippedFile } from '../types';
import type { Timeline } from '../timeline';
import { attributeChanges, type ListedChanges } from './attribution';
import type { TimelineChanges } from '../timeline-changes';
import { describeHunks, revertHunks, splitIntoHunks, wholeFileOnly } from './hunks';
import { hashObject } from '../store/object-format';
import type { HunkSelection } from '../types';

/** Which files changed since the message by someone other than this session's turns a rewind brings back too. */
export type IncludeOptions = Pick<RewindFilesOptions, 'overwriteUserModified' | 'includeOtherSessions' | 'only' | 'hunks' | 'turnWrites'>;

/** A file of which only some hunks come back: what the restore writes, and what the preview counts. */
interface PartialFile {
  /** The file now with the chosen hunks taken back (its state is `to`). */
  data: Buffer;
  to: { kind: 'file'; hash: string; mode: number };
  insertions: number;
  deletions: number;
  partial: { hunks: number[]; of: number; hash: string };
}

/** A hunk selection the rewind refuses (the file changed since its hunks were shown, a hunk it does not have): the
 *  whole rewind is refused before anything is written. */
export class HunkSelectionError extends Error {}

/** Whether `path` is one of `only` or below one of them. */
export function isSelected(path: string, only: readonly string[]): boolean {
  return only.some((o) => path === o || path.startsWith(`${o}/`));
}

export function failure(error: string): RewindFilesResult {
  return { canRewind: false, error, filesChanged: [], insertions: 0, deletions: 0, userModified: [], otherSessions: [], skipped: [], files: [] };
}

/**
 * The folders an undo of `ops` reads in its pre-restore snapshot: every folder on the way to each path, and the path
 * itself (when it is a folder, what is below it comes back too). '' is the root.
 */
export function foldersOnPaths(ops: readonly { path: string }[]): Set<string> {
  const dirs = new Set<string>(['']);
  for (const { path } of ops) {
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) dirs.add(path.slice(0, i));
    dirs.add(path);
  }
  return dirs;
}

export const isFileish = (s: EntryState): s is Exclude<EntryState, null | { kind: 'dir' }> => s !== null && s.kind !== 'dir';

export interface Plan {
  result: RewindFilesResult;
  ops: RestoreOp[];
  /** Contents of files only some hunks of which come back (not in the store until the rewind stores them), by hash. */
  partialBlobs: ReadonlyMap<string, Buffer>;
  /**
   * Blobs the preview read (and checked against their hash) to count lines, by hash, for the restore to write
   * without reading and inflating them again. Content-addressed, so they cannot go stale: a file changed since is
   * found by the model's refresh as before, which changes the plan, not these bytes.
   */
  blobs: ReadonlyMap<string, Buffer>;
  /**
   * Bytes of the files the rewind replaces as the model's refresh read and hashed them (a preview's), by hash: its
   * pre-restore snapshot stores them instead of reading each file again, when the file's stat data on disk is still
   * the model's (storeTree). Content-addressed like `blobs`.
   */
  current: ReadonlyMap<string, Buffer>;
}

/** Bytes of blobs a plan keeps for its restore (a plan is kept until the next one, or the rewind). */
const PLAN_BLOB_BUDGET = 32 * 1024 * 1024;

/**
 * Adds to `keep` the folders a rewind has no reason to touch: one that would come back (or get its mode back) although
 * every file below it stays as it is, and, with a selection, any folder outside it. A folder on the way to a file
 * that is brought back is never kept.
 */
function keepFoldersOfKeptFiles(diffs: readonly PathDiff[], fileish: readonly string[], keep: Set<string>, only: readonly string[] | undefined): void {
  const onTheWay = new Set<string>();
  const below = new Set<string>();
  for (const path of fileish) {
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
      below.add(path.slice(0, i));
      if (!keep.has(path)) onTheWay.add(path.slice(0, i));
    }
  }
  for (const d of diffs) {
    if (isFileish(d.now) || isFileish(d.target) || onTheWay.has(d.path)) continue;
    if (only ? !isSelected(d.path, only) : d.now === null && below.has(d.path)) keep.add(d.path);
  }
}

export class RewindPlanner {
  /** The last plan, reused by a real rewind right after its dry run when nothing changed in between. */
  private lastPlan?: { key: string; plan: Plan };

  constructor(
    private readonly workspaceRoot: string,
    private readonly records: SnapshotRecords,
    private readonly timeline: Timeline,
    /** Trees kept between operations (tree-cache.ts), filled by the plans' readers (which read only the store). */
    private readonly trees?: TreeCache,
    /** The timeline's changed-path index: what changed between two points, without comparing their trees. */
    private readonly timelineChanges?: TimelineChanges,
  ) {}

  /** The index's list for a pair of roots, the file read (what was appended since) at the first call of a plan. */
  private listedChanges(): ListedChanges | undefined {
    const index = this.timelineChanges;
    if (!index) return undefined;
    let loaded = false;
    return (from, to) => {
      if (!loaded) {
        loaded = true;
        try {
          index.load();
        } catch {
          // unreadable now: the lines read before stay right (each says only what the two trees it names say), and a
          // pair without one is compared in its trees
        }
      }
      return index.listedPaths(from, to);
    };
  }

  /** Forgets the cached plan (the workspace is about to change). */
  forget(): void {
    this.lastPlan = undefined;
  }

  /**
   * The plan of a rewind of the (freshly refreshed) `model` to the snapshot `rec`. Throws what the restore would
   * refuse (a folder on the way that is a symlink now, a file the model knows that is a folder now), with the
   * restore's words, so that a preview refuses it too and the real rewind before it writes anything. `onDisk`: the
   * lstats of the check that comes right after (lstat-moment.ts), used only once the plan is made.
   */
  async plan(
    store: ObjectStore,
    rec: SnapshotRecord,
    include: IncludeOptions,
    model: PlanModel,
    scanSkipped: SkippedFile[],
    onDisk?: LstatMoment,
  ): Promise<Plan> {
    const plan = await this.planFor(store, rec, include, model, scanSkipped);
    // every time, a reused plan too: the model need not have seen these (a watcher's model, or folders it skips);
    // a path recovery will change first is checked as recovery leaves it, not as it is on disk now
    checkPlannedPaths(this.workspaceRoot, orderOps(plan.ops), model.forecast, onDisk);
    return plan;
  }

  private async planFor(store: ObjectStore, rec: SnapshotRecord, include: IncludeOptions, model: PlanModel, scanSkipped: SkippedFile[]): Promise<Plan> {
    const turnEnd = await this.records.latestTurnEnd(rec.sessionId);
    const points = await this.timeline.pointsWithSession(rec.sessionId);
    const lastPoint = points.at(-1);
    // the key is known before the trees are diffed: a rewind right after its preview skips the diff too (on 1,000
    // changed files among 50,000, that is most of the planning)
    const key = JSON.stringify([
      rec.sessionId,
      rec.anchorId,
      rec.root,
      model.root.hash,
      turnEnd?.root ?? null,
      points.length,
      lastPoint ? [lastPoint.sessionId, lastPoint.anchorId, lastPoint.root] : null,
      include.overwriteUserModified === true,
      include.includeOtherSessions === true,
      include.only ?? null,
      include.hunks ?? null,
      include.turnWrites ?? null,
    ]);
    // a plan from a forecast of recovery (a dry run's) is not the workspace's: never kept, never reused
    if (model.forecast) this.lastPlan = undefined;
    else if (this.lastPlan?.key === key) {
      // the covered files hash the same as when it was planned; only files outside the checkpoints may have
      // appeared where a restore would create one, so those are checked again
      const creates = this.lastPlan.plan.ops.filter((o) => o.from === null && o.to !== null);
      let fresh = true;
      for (const o of creates) if (await this.lstatRel(o.path, model)) fresh = false;
      if (fresh) return this.lastPlan.plan;
    }
    const reader = new TreeReader(store, undefined, undefined, this.trees, false);
    const diffs = await diffTrees(reader, rec.root, model.root);
    const fileish = diffs.filter((d) => isFileish(d.now) || isFileish(d.target)).map((d) => d.path);
    // a sibling reader: the trees it reads again come from the diff's cache, and their unrestorable names are not
    // reported a second time
    const attribution = await attributeChanges(reader.sibling(), points, rec, model.root, fileish, include.turnWrites, this.listedChanges(), {
      root: rec.root,
      states: new Map(diffs.map((d) => [d.path, d.target])),
    });
    const userModified = new Set<string>();
    const keep = new Set<string>();
    if (attribution) {
      for (const [path, a] of attribution) {
        if (a.changedBy === 'user') userModified.add(path);
        if (a.changedBy === 'user' ? !include.overwriteUserModified : a.changedBy !== 'this-session' && !include.includeOtherSessions) keep.add(path);
      }
    } else if (turnEnd) {
      // a snapshot the timeline does not have (taken before it existed): a file that differs from the session's
      // last turn end was changed by hand
      for (const path of fileish) if (!sameState(await reader.lookup(turnEnd.root, path), stateOfNode(model.get(path)))) userModified.add(path);
      if (!include.overwriteUserModified) for (const p of userModified) keep.add(p);
    }
    // an explicit selection (whole files, hunks of files): exactly those, whoever changed them
    const selection = include.only || include.hunks ? [...(include.only ?? []), ...(include.hunks ?? []).map((h) => h.path)] : undefined;
    if (selection) {
      keep.clear();
      for (const path of fileish) if (!isSelected(path, selection)) keep.add(path);
    }
    keepFoldersOfKeptFiles(diffs, fileish, keep, selection);
    const unchosen = (include.only ?? [])
      .filter((o) => !diffs.some((d) => isSelected(d.path, [o])))
      .map((path) => ({ path, reason: 'as it was at that message already: nothing to bring back' }));
    const partials = include.hunks ? await this.partialFiles(store, diffs, include.hunks, model) : new Map<string, PartialFile>();
    const plan = await this.buildPlan(store, model, diffs, userModified, keep, [...reader.skipped, ...scanSkipped, ...unchosen], attribution, partials);
    if (!model.forecast) this.lastPlan = { key, plan };
    return plan;
  }

  /**
   * The files of which only the chosen hunks come back, each computed as the preview's hunks are (hunks.ts) from the
   * file at the message and the bytes the model just hashed. Throws (HunkSelectionError) for a file that is no longer
   * the bytes its hunks were chosen from, a file that cannot be split, or a hunk it does not have.
   */
  private async partialFiles(
    store: ObjectStore,
    diffs: readonly PathDiff[],
    hunks: readonly HunkSelection[],
    model: PlanModel,
  ): Promise<Map<string, PartialFile>> {
    const out = new Map<string, PartialFile>();
    for (const sel of hunks) {
      const d = diffs.find((x) => x.path === sel.path);
      if (!d) throw new HunkSelectionError(`${sel.path} is as it was at that message already: it has no hunks to take back.`);
      if (sel.hash !== undefined && (d.now?.kind !== 'file' || d.now.hash !== sel.hash))
        throw new HunkSelectionError(
          `${sel.path} changed since its hunks were shown, so the hunks chosen may no longer be the ones you saw. Nothing was rewound; open the preview again (or run the dry run again) to choose its hunks as it is now.`,
        );
      const targetData = d.target?.kind === 'file' ? await store.read(d.target.hash, 'blob', d.path) : undefined;
      const nowData = d.now?.kind === 'file' ? this.nowBytes(d.path, d.now.hash, model) : undefined;
      const whole = wholeFileOnly(d.target, d.now, targetData, nowData);
      if (whole !== undefined) throw new HunkSelectionError(`${sel.path} cannot be taken back hunk by hunk (${whole}); choose it whole instead.`);
      const split = splitIntoHunks(targetData!, nowData!);
      if (!split) throw new HunkSelectionError(`${sel.path} has too many changes to split into hunks; choose it whole instead.`);
      const chosen = [...new Set(sel.hunks)].sort((a, b) => a - b);
      const missing = chosen.find((i) => !Number.isInteger(i) || i < 1 || i > split.hunks.length);
      if (missing !== undefined || chosen.length === 0)
        throw new HunkSelectionError(
          `${sel.path} has ${split.hunks.length} ${split.hunks.length === 1 ? 'hunk' : 'hunks'} (numbered from 1): ${chosen.length === 0 ? 'no hunk was chosen' : `there is no hunk ${missing}`}.`,
        );
      const counted = describeHunks(split).filter((h) => chosen.includes(h.index));
      const data = revertHunks(split, new Set(chosen));
      const now = d.now as Exclude<EntryState, null | { kind: 'dir' }>;
      out.set(sel.path, {
        data,
        to: { kind: 'file', hash: hashObject('blob', data), mode: now.mode },
        insertions: counted.reduce((a, h) => a + h.insertions, 0),
        deletions: counted.reduce((a, h) => a + h.deletions, 0),
        partial: { hunks: chosen, of: split.hunks.length, hash: now.hash },
      });
    }
    return out;
  }

  /** The bytes of a file now, exactly those the model hashed (else the file changed meanwhile: refused). */
  private nowBytes(path: string, hash: string, model: PlanModel): Buffer {
    let data = model.recentRead(path, hash);
    if (!data) {
      try {
        data = readStableFile(absPath(this.workspaceRoot, path)).data;
      } catch (err) {
        throw new HunkSelectionError(`${path} could not be read: ${(err as Error).message}`);
      }
    }
    if (hashObject('blob', data) !== hash) throw new HunkSelectionError(`${path} changed while the rewind was being prepared; nothing was rewound. Try again.`);
    return data;
  }

  /** The plan of an undo: put back what `top` wrote, except paths changed by hand since. */
  async undoPlan(store: ObjectStore, top: UndoRecord, pre: SnapshotRecord, model: PlanModel): Promise<Plan> {
    const reader = new TreeReader(store, undefined, undefined, this.trees, false);
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
    return this.buildPlan(store, model, diffs, userModified, userModified, []);
  }

  private async buildPlan(
    store: ObjectStore,
    model: PlanModel,
    diffs: PathDiff[],
    userModified: Set<string>,
    keep: Set<string>,
    scanSkipped: SkippedFile[],
    attribution?: Map<string, FileAttribution>,
    partials: ReadonlyMap<string, PartialFile> = new Map(),
  ): Promise<Plan> {
    const skipped: SkippedFile[] = [];
    const kept = new Set<string>(); // paths left as they are, so folders above them stay
    for (const d of diffs) {
      if (keep.has(d.path)) {
        kept.add(d.path);
        continue;
      }
      if (d.now === null && d.target !== null) {
        // something the scan does not cover sits where the snapshot has a file: never overwrite it blindly
        const existing = await this.lstatRel(d.path, model);
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
      if (d.now?.kind === 'dir' && d.target?.kind !== 'dir' && (keptUnder(d.path) || (isFileish(d.target) && this.holdsUncovered(d.path, model)))) {
        // the folder stays because something in it stays; a file the snapshot has at its place cannot come back
        if (isFileish(d.target)) skipped.push({ path: d.path, reason: 'a folder with files that are kept is in the way' });
        continue;
      }
      ops.push({ path: d.path, from: d.now, to: partials.get(d.path)?.to ?? d.target });
      if (isFileish(d.now) || isFileish(d.target)) listed.push(d);
    }
    const reads = new Limiter(16);
    const applied = new Set(ops.map((o) => o.path));
    const blobs = new Map<string, Buffer>();
    let budget = PLAN_BLOB_BUDGET;
    const current = new Map<string, Buffer>();
    const keepBlob = (path: string, hash: string, data: Buffer, now = false) => {
      const into = now ? current : blobs;
      if (!applied.has(path) || data.length > budget || into.has(hash)) return;
      budget -= data.length;
      into.set(hash, data);
    };
    const files: FileChange[] = await Promise.all(
      listed.map((d) =>
        reads.run(async () => ({
          ...(partials.has(d.path) && applied.has(d.path) ? partialChange(d.path, partials.get(d.path)!) : await this.fileChange(store, d, keepBlob, model)),
          userModified: userModified.has(d.path),
          ...attribution?.get(d.path),
          kept: !applied.has(d.path),
        })),
      ),
    );
    model.dropRecentReads();
    const changed = files.filter((f) => applied.has(f.path));
    const seen = new Set(skipped.map((s) => s.path));
    for (const s of scanSkipped) if (!seen.has(s.path)) skipped.push(s);
    const partialBlobs = new Map<string, Buffer>();
    for (const [path, p] of partials) if (applied.has(path)) partialBlobs.set(p.to.hash, p.data);
    return {
      ops,
      blobs,
      current,
      partialBlobs,
      result: {
        canRewind: true,
        filesChanged: changed.map((f) => f.path),
        insertions: changed.reduce((a, f) => a + f.insertions, 0),
        deletions: changed.reduce((a, f) => a + f.deletions, 0),
        userModified: files.filter((f) => f.userModified).map((f) => f.path),
        otherSessions: files.filter((f) => f.changedBy === 'other-session' || f.changedBy === 'several').map((f) => f.path),
        skipped,
        files,
      },
    };
  }

  /**
   * The folder `rel` holds something the model does not cover (ignored, too large, unreadable): a restore cannot
   * remove it (it removes only what it knows), so a file the snapshot has at its place cannot come back.
   */
  private holdsUncovered(rel: string, model: PlanModel): boolean {
    const node = model.get(rel);
    if (node?.kind !== 'dir') return false;
    const stack: [string, DirNode][] = [[absPath(this.workspaceRoot, rel), node]];
    while (stack.length > 0) {
      const [abs, dir] = stack.pop()!;
      let names: string[];
      try {
        names = readdirSync(fsPath(abs), { encoding: 'buffer' }).map(nameFromBytes);
      } catch {
        continue; // gone or unreadable: the restore meets what is there then
      }
      for (const name of names) {
        const child = dir.children.get(name);
        if (!child) return true;
        if (child.kind === 'dir') stack.push([join(abs, name), child]);
      }
    }
    return false;
  }

  private async lstatRel(rel: string, model: PlanModel): Promise<boolean> {
    const forecast = model.forecast?.get(rel);
    if (forecast !== undefined) return forecast !== null;
    try {
      if (!(await ensureSafeParents(this.workspaceRoot, rel, false))) return false;
      await lstat(fsPath(absPath(this.workspaceRoot, rel)));
      return true;
    } catch {
      return false;
    }
  }

  private async fileChange(
    store: ObjectStore,
    d: PathDiff,
    keep: (path: string, hash: string, data: Buffer, now?: boolean) => void,
    model: PlanModel,
  ): Promise<Omit<FileChange, 'userModified'>> {
    const status: FileChange['status'] =
      d.target === null
        ? 'added'
        : d.now === null
          ? 'deleted'
          : d.now.kind !== d.target.kind
            ? 'typeChanged'
            : isFileish(d.now) && isFileish(d.target) && d.now.hash === d.target.hash
              ? 'modeChanged'
              : 'modified';
    let anchorData: Buffer | undefined;
    let nowData: Buffer | undefined;
    if (d.target?.kind === 'file') {
      anchorData = await store.read(d.target.hash, 'blob', d.path);
      keep(d.path, d.target.hash, anchorData);
    }
    if (d.now?.kind === 'file') {
      // the bytes the model's refresh just hashed, when it kept them; else read (sync: small and many)
      nowData = model.recentRead(d.path, d.now.hash);
      if (nowData) keep(d.path, d.now.hash, nowData, true);
      else {
        try {
          nowData = readStableFile(absPath(this.workspaceRoot, d.path)).data;
        } catch {
          nowData = undefined;
        }
      }
    }
    const textual = (d.target === null || d.target.kind === 'file') && (d.now === null || d.now.kind === 'file') && status !== 'modeChanged';
    const s = textual ? lineStats(anchorData, nowData) : { insertions: 0, deletions: 0, binary: false };
    return { path: d.path, status, insertions: s.insertions, deletions: s.deletions, binary: s.binary };
  }
}

/** A partly taken back file as the preview lists it: the chosen hunks' counts. */
function partialChange(path: string, p: PartialFile): Omit<FileChange, 'userModified'> {
  return { path, status: 'modified', insertions: p.insertions, deletions: p.deletions, binary: false, partial: p.partial };
}
