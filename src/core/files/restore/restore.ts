// Applying a restore: each path is set to a target state (absent, folder, file or symlink) with per-file atomic
// writes, through the parent folder held open (see ParentDirs), so nothing is ever written outside the workspace,
// even when a folder is swapped for a symlink while the restore runs.
//
// Before anything is written, every path and every parent on the way is checked (preflight): a refused restore
// writes nothing and leaves nothing behind. A journal written before the first change lets recovery deal with a
// restore a crash interrupted. When a step fails, the restore is rolled back at once: every path the restore
// changed is put back to its state before (bytes and mode), and the error names the path and the reason. If even
// that cannot complete, the journal is kept, marked as failed: later operations then only put back paths still as
// the failed restore left them, and never finish it over edits made since.
import {
  close,
  closeSync,
  constants,
  fchmod,
  fchmodSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  open,
  readdirSync,
  readlinkSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  write,
  writeSync,
  type Stats,
} from 'node:fs';
import { readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic-write';
import { fsPath, nameFromBytes } from '../file-names';
import { restoreTempName, rollBackTag } from '../restore-temp-names';
import { hashObject, isObjectHash, type ObjectStore } from '../store/object-store';
import { ParentDirs, type ParentHandle } from './parent-dirs';
import { parentOf, PathSafetyError, splitRelPath } from '../safe-paths';
import { readStableFile } from '../safe-read';
import type { LstatMoment } from '../scan/lstat-moment';
import { sameState, type EntryState } from '../store/tree-diff';
import type { SkippedFile } from '../types';

export interface RestoreOp {
  path: string;
  from: EntryState;
  to: EntryState;
}

const stateSchema = z.union([
  z.null(),
  z.object({ kind: z.enum(['file', 'symlink']), hash: z.string().refine(isObjectHash), mode: z.number().int().min(0).max(0o7777) }),
  z.object({ kind: z.literal('dir'), mode: z.number().int().min(0).max(0o7777).optional() }),
]);
const journalSchema = z.object({
  v: z.literal(1),
  tag: z.string().regex(/^[0-9a-z]{1,40}$/),
  workspaceRoot: z.string(),
  ops: z.array(z.object({ path: z.string(), from: stateSchema, to: stateSchema })),
  /** Store-side bookkeeping to finish after the workspace is done (e.g. the undo record). */
  after: z.unknown().optional(),
  /** Set when the restore failed and could not be rolled back completely: never to be finished, only undone. */
  failed: z.object({ error: z.string(), notRestored: z.array(z.object({ path: z.string(), reason: z.string() })) }).optional(),
});
export type Journal = z.infer<typeof journalSchema>;

/** A failure injected into restore steps by tests (a restore as root cannot be made to fail otherwise everywhere). */
/** A folder this restore made and was killed before giving its mode (applyOp makes it 0700, then chmods it): the
 *  restore's own unfinished step, which recovery finishes (or takes back), not a folder someone made since. */
export function halfMadeFolder(cur: EntryState | 'unknown', from: EntryState, to: EntryState | null): boolean {
  return (
    cur !== 'unknown' &&
    cur?.kind === 'dir' &&
    cur.mode === 0o700 &&
    to?.kind === 'dir' &&
    to.mode !== undefined &&
    to.mode !== 0o700 &&
    (from === null || from.kind !== 'dir')
  );
}

export const restoreFaults: { hook?: (step: 'write' | 'unlink' | 'rmdir' | 'mkdir', rel: string, rollingBack: boolean) => void } = {};

/** A restore that failed: `message` names the path and the reason, and says what was put back. */
export class RestoreError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly notRestored: SkippedFile[],
  ) {
    super(message);
  }
}

/**
 * Splits type changes into a removal plus a creation and orders everything so each step can run:
 * files go first, then folders deepest first, then new folders shallowest first, then new files.
 */
export function orderOps(ops: RestoreOp[]): RestoreOp[] {
  const removeFiles: RestoreOp[] = [];
  const removeDirs: RestoreOp[] = [];
  const makeDirs: RestoreOp[] = [];
  const writes: RestoreOp[] = [];
  for (const op of ops) {
    const fromDir = op.from?.kind === 'dir';
    const toDir = op.to?.kind === 'dir';
    if (op.to === null) (fromDir ? removeDirs : removeFiles).push(op);
    else if (toDir) {
      if (op.from !== null && !fromDir) removeFiles.push({ path: op.path, from: op.from, to: null });
      makeDirs.push({ path: op.path, from: fromDir ? op.from : null, to: op.to });
    } else {
      if (fromDir) removeDirs.push({ path: op.path, from: op.from, to: null });
      writes.push({ path: op.path, from: fromDir ? null : op.from, to: op.to });
    }
  }
  const depth = (p: string) => p.split('/').length;
  removeDirs.sort((a, b) => depth(b.path) - depth(a.path));
  makeDirs.sort((a, b) => depth(a.path) - depth(b.path));
  return [...removeFiles, ...removeDirs, ...makeDirs, ...writes];
}

/**
 * Refuses a restore before anything is written: every path must be valid, and every folder on the way must be a
 * real folder (or missing, or something the restore itself replaces with a folder), never a symlink.
 */
export function checkRestorePaths(workspaceRoot: string, ordered: RestoreOp[]): void {
  const becomesDir = new Set<string>();
  for (const op of ordered) if (op.to?.kind === 'dir') becomesDir.add(op.path);
  const checked = new Set<string>();
  const lstat = lstatIn(workspaceRoot);
  for (const op of ordered) checkParents(op, becomesDir, checked, lstat);
}

/** lstat of a workspace-relative path (throwIfNoEntry off), from `onDisk` when given. */
function lstatIn(workspaceRoot: string, onDisk?: LstatMoment): (rel: string) => Stats | undefined {
  if (onDisk) return (rel) => onDisk.lstat(rel);
  return (rel) => lstatSync(fsPath(join(workspaceRoot, rel)), { throwIfNoEntry: false }); // rel: checked by splitRelPath
}

/**
 * checkRestorePaths, and each path must still be what the plan found there, as far as the restore's own steps check
 * it (a file that is a folder now, a folder that is a file now): the planner's check, whose model may be older than
 * the workspace (a watcher's), so that the refusal comes before anything is written, in the preview too. The restore
 * checks each path again as it writes it. `onDisk`: this moment's lstats, shared with the check right after
 * (lstat-moment.ts).
 */
export function checkPlannedPaths(workspaceRoot: string, ordered: RestoreOp[], forecast?: ReadonlyMap<string, EntryState>, onDisk?: LstatMoment): void {
  const becomesDir = new Set<string>();
  const removed = new Set<string>();
  for (const op of ordered) {
    if (op.to?.kind === 'dir') becomesDir.add(op.path);
    if (op.to === null) removed.add(op.path);
  }
  const checked = new Set<string>();
  const lstat = lstatIn(workspaceRoot, onDisk);
  for (const op of ordered) {
    const reachable = checkParents(op, becomesDir, checked, lstat);
    if (forecast?.has(op.path)) continue; // as recovery leaves it, which the plan has: not what is on disk now
    if (!reachable) continue; // nothing there now: its folder is missing, or a file or link the restore replaces
    const st = lstat(op.path);
    if (!st) continue;
    if (op.to === null) {
      if (st.isDirectory() && op.from?.kind !== 'dir') throw new PathSafetyError(`${op.path} is a folder now; refusing to remove it`);
    } else if (op.to.kind === 'dir') {
      if (!st.isDirectory() && !removed.has(op.path)) throw new PathSafetyError(`${op.path} exists and is not a folder`);
    } else if (st.isDirectory() && !removed.has(op.path)) throw new PathSafetyError(`${op.path} is a folder now; refusing to replace it`);
  }
}

/**
 * Refuses a folder on the way to `op.path` that the restore would have to go through and cannot (a symlink, a file).
 * Returns whether every folder on the way is a real folder now, so that something can be at the path now: not when
 * one is missing, or is a file or link the restore replaces with a folder first (lstat(2) of the path would then fail
 * with ENOTDIR, or go through the link).
 */
function checkParents(op: RestoreOp, becomesDir: Set<string>, checked: Set<string>, lstat: (rel: string) => Stats | undefined): boolean {
  const parts = splitRelPath(op.path);
  for (let i = 0; i < parts.length - 1; i++) {
    const at = parts.slice(0, i + 1).join('/');
    if (checked.has(at)) continue;
    // replaced by a folder first (its old self is removed, never entered)
    if (becomesDir.has(at)) return lstat(at)?.isDirectory() === true;
    const st = lstat(at);
    if (!st) return false; // made by the restore
    if (st.isSymbolicLink()) throw new PathSafetyError(`refusing to go through the symlink ${at}`);
    if (!st.isDirectory()) throw new PathSafetyError(`${at} is not a folder`);
    checked.add(at);
  }
  return true;
}

/** Writes whose rename may be in flight at once (the thread pool has 4 threads). */
const WRITES_IN_FLIGHT = 8;

const call = <T>(f: (cb: (err: NodeJS.ErrnoException | null, v: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((err, v) => (err ? reject(err) : resolve(v))));

/** Up to this size a temp file's bytes, mode and close are synchronous calls once the thread pool has created it: a
 *  page-cache copy and an inode change cost microseconds, where each thread-pool round trip costs the main thread
 *  ~20 µs (a request, a wake-up, a callback, a promise) and waits for a thread. A bigger file is written on the pool. */
const SMALL_WRITE = 64 * 1024;

/**
 * A new temp file with `data` and `mode`, never through a symlink (O_EXCL). It is created on the thread pool:
 * creating a file is most of a restore's write (an inode to allocate), and 1,000 of them one after the other on the
 * main thread left the other core idle. The callback calls, not fs/promises' FileHandle: one round trip each, and the
 * fault suite's step counter (test/faults/kill-at-step.cjs) sees the write and fchmod (synchronous or not) as steps.
 */
async function writeTempFile(tmp: string | Buffer, data: Buffer, mode: number): Promise<void> {
  const fd = await call<number>((cb) => open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600, cb));
  if (data.length <= SMALL_WRITE) {
    try {
      for (let n = 0; n < data.length;) n += writeSync(fd, data, n, data.length - n);
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    return;
  }
  try {
    for (let n = 0; n < data.length;) n += await call<number>((cb) => write(fd, data, n, data.length - n, null, cb));
    await call<void>((cb) => fchmod(fd, mode, cb));
  } finally {
    await call<void>((cb) => close(fd, cb));
  }
}

export function invertOps(ops: RestoreOp[]): RestoreOp[] {
  return ops.map((o) => ({ path: o.path, from: o.to, to: o.from }));
}

const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/** A step's error as a reason: the error code and what the system said, without the (temp) path it named. */
export function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (err instanceof PathSafetyError) return e.message;
  const msg = (e.message ?? String(err)).replace(/, \w+ '.*'$/, '');
  return e.code && !msg.startsWith(e.code) ? `${e.code}: ${msg}` : msg;
}

/** A path a roll-back could not put back because of an error a later try may not meet (permissions, I/O). A refusal
 *  (PathSafetyError: a symlink, a folder in the way) is final: that path is reported and left, never retried forever. */
function retryable(path: string, err: unknown): SkippedFile {
  const left: SkippedFile & { retry?: boolean } = { path, reason: reasonOf(err) };
  if (!(err instanceof PathSafetyError)) left.retry = true;
  return left;
}
const isRetryable = (l: SkippedFile) => (l as { retry?: boolean }).retry === true;

export class Restorer {
  constructor(
    private readonly workspaceRoot: string,
    private readonly store: ObjectStore,
    private readonly journalFile: string,
  ) {}

  private dirs?: ParentDirs;

  private parentDirs(): ParentDirs {
    this.dirs ??= new ParentDirs(this.workspaceRoot);
    return this.dirs;
  }

  /** Closes the folders held open (after every step has finished). */
  private closeDirs(): void {
    this.dirs?.close();
    this.dirs = undefined;
  }

  /** Refuses a restore before anything is written (see checkRestorePaths). */
  preflight(ordered: RestoreOp[]): void {
    checkRestorePaths(this.workspaceRoot, ordered);
  }

  /**
   * Sets one path to its target state. Idempotent, so a replay after a crash is safe. Synchronous on purpose: a
   * restore is thousands of tiny steps, and a thread-pool round trip per step made it several times slower. The
   * exception is a written file, whose temp file and rename go to the thread pool (see applyAll, writeTempFile).
   */
  async applyOp(op: RestoreOp, tag: string, i: number, rollingBack = false, blobs?: ReadonlyMap<string, Buffer>): Promise<void> {
    const data = op.to !== null && op.to.kind !== 'dir' ? (blobs?.get(op.to.hash) ?? (await this.store.read(op.to.hash, 'blob'))) : undefined;
    const rename = this.applyOpSync(op, tag, i, data, rollingBack);
    if (rename) await rename();
  }

  /** Does the step; for a file or symlink written through a temp file, returns the rename that completes it. */
  private applyOpSync(op: RestoreOp, tag: string, i: number, data: Buffer | undefined, rollingBack: boolean): (() => Promise<void>) | undefined {
    splitRelPath(op.path);
    const name = nameOf(op.path);
    const faults = restoreFaults.hook;
    if (op.to === null) {
      const h = this.parentDirs().acquire(parentOf(op.path), false);
      if (!h) return; // its folder is gone, so it is too
      try {
        const p = fsPath(`${h.path}/${name}`);
        const st = lstatSync(p, { throwIfNoEntry: false });
        if (!st) return; // already gone
        if (st.isDirectory()) {
          if (op.from?.kind !== 'dir') throw new PathSafetyError(`${op.path} is a folder now; refusing to remove it`);
          faults?.('rmdir', op.path, rollingBack);
          try {
            rmdirSync(p);
            this.parentDirs().retire(op.path); // a folder made again at this path later is another folder
          } catch (err) {
            // a folder that still holds files checkpoints do not cover stays
            const code = (err as NodeJS.ErrnoException).code;
            if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw err;
          }
        } else {
          faults?.('unlink', op.path, rollingBack);
          unlinkSync(p);
        }
      } finally {
        h.release();
      }
      return;
    }
    const h = this.parentDirs().acquire(parentOf(op.path), true)!;
    let handed = false;
    try {
      const abs = fsPath(`${h.path}/${name}`);
      if (op.to.kind === 'dir') {
        const st = lstatSync(abs, { throwIfNoEntry: false });
        if (st && !st.isDirectory()) throw new PathSafetyError(`${op.path} exists and is not a folder`);
        const mode = op.to.mode;
        if (!st) {
          faults?.('mkdir', op.path, rollingBack);
          mkdirSync(abs, mode === undefined ? 0o777 : 0o700); // a snapshot that does not know the mode: as mkdir makes it
        }
        // the folder's own mode (mkdir's is cut by the umask and never has the sticky or setgid bit)
        if (mode !== undefined && (!st || (st.mode & 0o7777) !== mode)) chmodSync(abs, mode);
        return;
      }
      const tmp = fsPath(`${h.path}/${restoreTempName(tag, i)}`);
      const to = op.to;
      faults?.('write', op.path, rollingBack);
      if (to.kind === 'symlink') {
        // a link is recreated (its target's bytes), never written through
        try {
          symlinkSync(data!, tmp);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          unlinkSync(tmp); // left by a killed run of this same journal
          symlinkSync(data!, tmp);
        }
      }
      // a file's temp file is written, and renamed over, on the thread pool, a few at a time: rename(2) over an
      // existing file makes ext4 start writing the new data out first (auto_da_alloc), about half a millisecond each
      handed = true;
      return async () => {
        try {
          if (to.kind === 'file') {
            try {
              await writeTempFile(tmp, data!, to.mode);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
              await unlink(tmp); // left by a killed run of this same journal
              await writeTempFile(tmp, data!, to.mode);
            }
          }
        } catch (err) {
          await unlink(tmp).catch(() => {}); // not made, or made in part
          h.release();
          throw err;
        }
        try {
          await rename(tmp, abs); // never onto a folder: rename(2) refuses that with EISDIR
        } catch (err) {
          await unlink(tmp).catch(() => {}); // already gone
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EISDIR' || code === 'ENOTEMPTY') throw new PathSafetyError(`${op.path} is a folder now; refusing to replace it`);
          throw err;
        } finally {
          h.release();
        }
      };
    } finally {
      if (!handed) h.release();
    }
  }

  /** Removes temp files a killed or failed restore may have left (their names are derived from the journal). */
  private cleanTemps(ops: RestoreOp[], tag: string): void {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.to === null || op.to.kind === 'dir') continue;
      let h: ParentHandle | undefined;
      try {
        h = this.parentDirs().acquire(parentOf(op.path), false);
        if (h) unlinkSync(fsPath(`${h.path}/${restoreTempName(tag, i)}`));
      } catch {
        /* not there */
      } finally {
        h?.release();
      }
    }
  }

  /**
   * Runs a whole restore under the journal. A refusal (preflight) throws before anything is written. A failed step
   * rolls everything back at once and throws a RestoreError naming the path; `after` is kept in the journal so
   * recovery can finish the store-side bookkeeping of a restore a crash interrupted. `blobs`: target contents
   * already read from the store and checked against their hash (the preview's), by hash.
   */
  async run(ops: RestoreOp[], tag: string, after?: unknown, blobs?: ReadonlyMap<string, Buffer>): Promise<void> {
    const ordered = orderOps(ops);
    try {
      this.preflight(ordered);
      const journal: Journal = { v: 1, tag, workspaceRoot: this.workspaceRoot, ops: ordered, after };
      await writeFileAtomic(this.journalFile, JSON.stringify(journal), { durable: true });
      let failedAt: { err: unknown; path: string } | undefined;
      const done: boolean[] = [];
      try {
        await this.applyAll(ordered, tag, done, blobs);
      } catch (err) {
        failedAt = { err, path: (err as { restorePath?: string }).restorePath ?? '?' };
        // a folder step may have made the folder before it failed (on its mode): that one counts as done too
        const i = (err as { restoreIndex?: number }).restoreIndex;
        if (i !== undefined && ordered[i]?.to?.kind === 'dir') done[i] = true;
      }
      if (!failedAt) return;
      const what = `The rewind could not change ${failedAt.path}: ${reasonOf(failedAt.err)}.`;
      const left = (await this.rollBackGuarded(ordered, tag, done)).map((l) => ({ path: l.path, reason: l.reason, retry: isRetryable(l) }));
      const list = left.map((l) => `${l.path} (${l.reason})`).join('; ');
      const report = left.map(({ path, reason }) => ({ path, reason }));
      if (!left.some((l) => l.retry)) {
        // nothing a later try could put back: the journal is done with
        await unlink(this.journalFile).catch(() => {});
        const except = left.length ? `, except what was left as it is now: ${list}` : '';
        throw new RestoreError(`${what} Every file it had changed was put back as it was before${except}.`, failedAt.path, report);
      }
      await writeFileAtomic(this.journalFile, JSON.stringify({ ...journal, failed: { error: what, notRestored: report } }), { durable: true });
      throw new RestoreError(
        `${what} The files it had changed could not all be put back: ${list}. The rest is as before the rewind. The next operation tries again to put back only those still as the rewind left them; it never finishes the rewind.`,
        failedAt.path,
        report,
      );
    } finally {
      this.closeDirs();
    }
  }

  /**
   * Removals and folders go one by one in order; the writes (last in the order, each to its own path, parents made
   * before) overlap: up to WRITES_IN_FLIGHT of them wait for their rename at once. Every write in flight is waited
   * for before an error is passed on, so a roll-back never races one. The error carries the path (restorePath).
   */
  private async applyAll(ordered: RestoreOp[], tag: string, done: boolean[] = [], blobs?: ReadonlyMap<string, Buffer>): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    // the failed step earliest in the order is the one reported, whichever of the writes in flight failed first: the
    // same rewind always names the same path
    let failure: { err: unknown; i: number } | undefined;
    const drain = async () => {
      await Promise.all(inFlight);
      if (failure) throw failure.err;
    };
    const withPath = (err: unknown, path: string, i: number) => {
      if (typeof err === 'object' && err !== null && !('restorePath' in err)) Object.assign(err, { restorePath: path, restoreIndex: i });
      return err;
    };
    for (let i = 0; i < ordered.length && !failure; i++) {
      const op = ordered[i]!;
      if (op.to === null || op.to.kind === 'dir') {
        await drain();
        try {
          await this.applyOp(op, tag, i);
          done[i] = true;
        } catch (err) {
          throw withPath(err, op.path, i);
        }
      } else {
        if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) break;
        const p: Promise<void> = this.applyOp(op, tag, i, false, blobs)
          .then(() => {
            done[i] = true;
          })
          .catch((err) => {
            if (!failure || i < failure.i) failure = { err: withPath(err, op.path, i), i };
          })
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (i % 256 === 255) await new Promise((r) => setImmediate(r)); // let the host breathe on big restores
    }
    await drain();
  }

  /** What `rel` is now (a file's content hashed), or 'unknown' when it cannot be told (it is then left alone). */
  private currentState(rel: string): EntryState | 'unknown' {
    const h = this.parentDirs().acquire(parentOf(rel), false);
    if (!h) return null;
    try {
      const p = fsPath(`${h.path}/${nameOf(rel)}`);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) return null;
      const mode = st.mode & 0o7777;
      if (st.isDirectory()) return { kind: 'dir', mode };
      if (st.isSymbolicLink()) return { kind: 'symlink', hash: hashObject('blob', readlinkSync(p, { encoding: 'buffer' })), mode };
      if (st.isFile()) return { kind: 'file', hash: hashObject('blob', readStableFile(p).data), mode };
      return 'unknown';
    } finally {
      h.release();
    }
  }

  /** What each of `paths` is now, as recovery finds it (currentState), read only: a path that cannot be looked at is
   *  'unknown', and why is put in `unreachable`. For the preview of what recovery will do (recovery-forecast.ts). */
  statesNow(paths: Iterable<string>, unreachable?: Map<string, SkippedFile & { retry: boolean }>): Map<string, EntryState | 'unknown'> {
    const out = new Map<string, EntryState | 'unknown'>();
    try {
      for (const path of paths) {
        if (out.has(path)) continue;
        try {
          out.set(path, this.currentState(path));
        } catch (err) {
          out.set(path, 'unknown');
          // recovery, meeting the same, fails the step with this reason (rollBackGuarded's retryable)
          unreachable?.set(path, { path, reason: reasonOf(err), retry: !(err instanceof PathSafetyError) });
        }
      }
      return out;
    } finally {
      this.closeDirs();
    }
  }

  /** The names in the folder `rel` now, read only ([] when it is missing, 'unknown' when it cannot be listed). For
   *  the preview of what recovery will do: a folder that still holds something stays (applyOp's rmdir). */
  namesNow(rel: string): string[] | 'unknown' {
    try {
      const h = this.parentDirs().acquire(rel, false);
      if (!h) return [];
      try {
        return readdirSync(fsPath(h.path), { encoding: 'buffer' }).map(nameFromBytes);
      } finally {
        h.release();
      }
    } catch {
      return 'unknown';
    } finally {
      this.closeDirs();
    }
  }

  /**
   * Puts every path of `ordered` back to its state before it, but only paths that are still as the restore left
   * them (or as it found them, half-way): a path changed by anyone since is left alone and reported. Never throws
   * for a path; returns what could not be put back, with the reason.
   */
  private async rollBackGuarded(ordered: RestoreOp[], tag: string, done?: boolean[]): Promise<SkippedFile[]> {
    this.cleanTemps(ordered, tag);
    // per path: its state before the restore, and what the restore's steps made of it. With `done` (a restore that
    // just failed in this process) only the steps that ran count: a path none of them changed is not touched, even
    // if it is no longer as the restore found it (someone else changed it meanwhile)
    const byPath = new Map<string, { before: EntryState; wrote: EntryState[] }>();
    ordered.forEach((op, i) => {
      let e = byPath.get(op.path);
      if (!e) byPath.set(op.path, (e = { before: op.from, wrote: [] }));
      if (!done || done[i]) e.wrote.push(op.to);
    });
    if (done) for (const [path, e] of byPath) if (e.wrote.length === 0) byPath.delete(path);
    const left: SkippedFile[] = [];
    const ops: RestoreOp[] = [];
    for (const [path, e] of byPath) {
      let cur: EntryState | 'unknown';
      try {
        cur = this.currentState(path);
      } catch (err) {
        left.push(retryable(path, err));
        continue;
      }
      if (cur !== 'unknown' && sameState(cur, e.before)) continue;
      if (cur === 'unknown' || !e.wrote.some((w) => sameState(cur, w) || halfMadeFolder(cur, e.before, w))) {
        left.push({ path, reason: 'changed since the rewind wrote it; left as it is now' });
        continue;
      }
      ops.push({ path, from: cur, to: e.before });
    }
    const inverse = orderOps(ops);
    const rtag = rollBackTag(tag);
    const failedFolders = new Set<string>();
    for (let i = 0; i < inverse.length; i++) {
      const op = inverse[i]!;
      if ([...failedFolders].some((f) => op.path.startsWith(f + '/'))) {
        left.push({
          path: op.path,
          reason: `its folder ${[...failedFolders].find((f) => op.path.startsWith(f + '/'))} could not be put back`,
          retry: true,
        } as SkippedFile);
        continue;
      }
      try {
        await this.applyOp(op, rtag, i, true);
      } catch (err) {
        left.push(retryable(op.path, err));
        if (op.to?.kind === 'dir') failedFolders.add(op.path);
      }
    }
    this.cleanTemps(inverse, rtag);
    // a path reported twice (a type change is two steps) is reported once
    const seen = new Set<string>();
    return left.filter((l) => !seen.has(l.path) && (seen.add(l.path), true));
  }

  async finish(): Promise<void> {
    await unlink(this.journalFile).catch(() => {});
  }

  async readJournal(): Promise<Journal | undefined> {
    let text: string;
    try {
      text = await readFile(this.journalFile, 'utf8');
    } catch {
      return undefined;
    }
    let parsed;
    try {
      parsed = journalSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) throw new Error(`the restore journal ${this.journalFile} is damaged; it was left in place for inspection`);
    for (const op of parsed.data.ops) splitRelPath(op.path); // a crafted journal must not reach outside either
    return parsed.data;
  }

  /**
   * Deals with the journal of a restore that did not finish. One a crash interrupted is finished, but only on paths
   * still as it expects (as they were before it, or as it wrote them): a path changed since is left and reported.
   * If finishing fails, or the journal is of a restore that failed, paths still as it left them are put back.
   * `resolved` says whether the journal is done with (else it is kept, marked failed, for the next try).
   */
  async recover(journal: Journal): Promise<{ outcome: 'completed' | 'rolledBack'; notRestored: SkippedFile[]; resolved: boolean }> {
    const ops = journal.ops;
    try {
      this.preflight(ops);
      if (!journal.failed) {
        try {
          const changed = await this.finishGuarded(ops, journal.tag);
          this.cleanTemps(ops, journal.tag);
          return { outcome: 'completed', notRestored: changed, resolved: true };
        } catch {
          /* put back instead */
        }
      }
      const left = await this.rollBackGuarded(ops, journal.tag);
      // done with once nothing is left that a later try could still put back (an I/O or permission error)
      const resolved = !left.some(isRetryable);
      const report = left.map(({ path, reason }) => ({ path, reason }));
      if (!resolved)
        await writeFileAtomic(
          this.journalFile,
          JSON.stringify({ ...journal, failed: { error: journal.failed?.error ?? 'an interrupted rewind could not be finished', notRestored: report } }),
          { durable: true },
        );
      return { outcome: 'rolledBack', notRestored: report, resolved };
    } finally {
      this.closeDirs();
    }
  }

  /** Finishes an interrupted restore step by step, skipping (and reporting) paths changed since it ran. */
  private async finishGuarded(ops: RestoreOp[], tag: string): Promise<SkippedFile[]> {
    const changed: SkippedFile[] = [];
    const skippedPaths = new Set<string>();
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (skippedPaths.has(op.path)) continue;
      const cur = this.currentState(op.path);
      if (cur !== 'unknown' && sameState(cur, op.to)) continue;
      if (cur === 'unknown' || !(sameState(cur, op.from) || halfMadeFolder(cur, op.from, op.to))) {
        skippedPaths.add(op.path);
        changed.push({ path: op.path, reason: 'changed since the interrupted rewind; left as it is now' });
        continue;
      }
      await this.applyOp(op, tag, i);
    }
    return changed;
  }
}
