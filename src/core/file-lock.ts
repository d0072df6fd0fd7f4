// The one cross-process lock of agent-rewind, for session files (docs/ARCHITECTURE.md, "Writers") and the checkpoint
// store alike. The lock is a file created exclusively that names its owner as `pid@host@thread`, so
// - a lock left by a killed process (same host, pid gone) is taken over at once, not after a timeout: recovery after
//   a crash starts without waiting;
// - a lock left by a worker thread that died while its process lives on is released by whoever ran that thread
//   (releaseLockOfThread): the pid alone would keep it alive forever;
// - a live owner is never overtaken, however long it holds the lock (no mtime heartbeat that a busy event loop could
//   miss and so let a second writer in); but where the system says when a process started (Linux), a pid that lives
//   and started after the lock was written is another process that got the pid again (after a crash and a restart,
//   in a container our own pid too), so the lock is taken over.
// Taking over a dead owner's lock happens under a short second lock (`<lock>.takeover`), so two waiters that both see
// the dead owner cannot both win: the second one finds the first one's live lock and waits.
import { hostname } from 'node:os';
import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { threadId } from 'node:worker_threads';

/** The lock is held by someone else, still alive (or on another host), for longer than the caller waits. */
export class LockBusyError extends Error {
  constructor(
    readonly lockFile: string,
    readonly owner: string,
  ) {
    super(`${lockFile} is held by process ${owner || 'unknown'}`);
  }
}

/** The lock path holds something no agent-rewind process wrote: it is left alone and nothing waits for it. */
export class NotALockError extends Error {
  constructor(readonly lockFile: string) {
    super(`${lockFile} is not a lock file of agent-rewind`);
  }
}

export interface FileLockOptions {
  /** How long to wait for a live owner before LockBusyError. */
  timeoutMs?: number;
}

export interface HeldLock {
  /** Whether the lock file still names this holder (it was not removed or taken over meanwhile). */
  stillHeld(): Promise<boolean>;
  /** Removes the lock if it is still this holder's. */
  release(): Promise<void>;
}

/** A lock being created (open, then write) is empty for a moment; an empty one older than this was left by a crash. */
const EMPTY_GRACE_MS = 2_000;
/** A lock folder of the lock library older versions used refreshes its mtime every 5 s while held; past this it is stale. */
const LEGACY_STALE_MS = 10_000;
const OWNER_RE = /^(\d+)@([^@]*)(?:@(\d+))?$/;
/** A lock written this long before its owner pid's process started was not written by that process (clock slack). */
const PID_REUSE_SLACK_MS = 5_000;

const me = (thread = threadId) => `${process.pid}@${hostname()}@${thread}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Synchronous calls: a few bytes to the page cache cost microseconds, where the three thread-pool round trips of
 *  open, write and close each wait for a thread and then for the event loop (a prompt's hook takes and releases a lock). */
async function createExclusive(path: string, content: string): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(lockFile: string): string {
  try {
    return readFileSync(lockFile, 'utf8');
  } catch {
    return '';
  }
}

/** When a process started (ms since the epoch), from Linux's /proc; undefined where that cannot be known. */
async function processStart(pid: number): Promise<number | undefined> {
  try {
    const [stat, boot] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile('/proc/stat', 'utf8')]);
    // the fields after "pid (comm) ": state is field 3, starttime field 22, in USER_HZ (100 a second) since boot
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(boot)?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(btime) && btime > 0 ? btime * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

type Found = { kind: 'gone' } | { kind: 'owner'; owner: string; writtenMs: number } | { kind: 'legacy-folder'; ageMs: number } | { kind: 'foreign' };

async function inspect(lockFile: string): Promise<Found> {
  try {
    const [owner, st] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    return owner === '' || OWNER_RE.test(owner) ? { kind: 'owner', owner, writtenMs: st.mtimeMs } : { kind: 'foreign' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'gone' };
    if (code !== 'EISDIR') throw err;
    const st = await stat(lockFile).catch(() => undefined);
    return st ? { kind: 'legacy-folder', ageMs: Date.now() - st.mtimeMs } : { kind: 'gone' };
  }
}

/** Whether what was found may be removed now: its owner died on this host (or its pid now belongs to a process that
 *  started after the lock was written), or it was left half-made by a crash. */
async function abandoned(found: Found, waitedMs: number): Promise<boolean> {
  if (found.kind === 'legacy-folder') return found.ageMs > LEGACY_STALE_MS;
  if (found.kind !== 'owner') return false;
  if (found.owner === '') return waitedMs > EMPTY_GRACE_MS;
  const [, pid, host] = OWNER_RE.exec(found.owner)!;
  if (host !== hostname()) return false;
  if (!alive(Number(pid))) return true;
  const started = await processStart(Number(pid));
  return started !== undefined && found.writtenMs < started - PID_REUSE_SLACK_MS;
}

/** Removes an abandoned lock, under `<lock>.takeover`, only if it is still exactly what was found abandoned. */
async function takeOver(lockFile: string, found: Found): Promise<void> {
  const guard = `${lockFile}.takeover`;
  if (!(await createExclusive(guard, me()))) {
    // another waiter is taking over; a guard left by a crash (it is held for one read and one unlink) is cleared
    const st = await stat(guard).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > EMPTY_GRACE_MS) await unlink(guard).catch(() => {});
    return;
  }
  try {
    const now = await inspect(lockFile);
    // the same owner text is not enough: a waiter of this very thread may have taken it over and written the same text
    const same = now.kind === 'owner' && found.kind === 'owner' && now.owner === found.owner && now.writtenMs === found.writtenMs;
    if (same) await unlink(lockFile).catch(() => {});
    else if (now.kind === 'legacy-folder' && found.kind === 'legacy-folder') await rmdir(lockFile).catch(() => {});
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/** Takes the lock at `lockFile`, waiting for a live owner up to timeoutMs; a dead owner's lock is taken over at once. */
export async function acquireFileLock(lockFile: string, opts: FileLockOptions = {}): Promise<HeldLock> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const owner = me();
  const start = Date.now();
  let wait = 5;
  while (!(await createExclusive(lockFile, owner))) {
    const found = await inspect(lockFile);
    if (found.kind === 'gone') continue;
    if (found.kind === 'foreign') throw new NotALockError(lockFile);
    if (await abandoned(found, Date.now() - start)) {
      await takeOver(lockFile, found);
      continue;
    }
    if (Date.now() - start > timeoutMs) throw new LockBusyError(lockFile, found.kind === 'owner' ? found.owner : 'of an older agent-rewind');
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 100);
  }
  const stillHeld = async () => readOwner(lockFile) === owner;
  return {
    stillHeld,
    // synchronous, as createExclusive
    release: async () => {
      if (readOwner(lockFile) !== owner) return;
      try {
        unlinkSync(lockFile);
      } catch {
        /* gone already */
      }
    },
  };
}

/** Runs fn holding the lock at `lockFile`, and releases it afterwards whatever fn does. */
export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  const lock = await acquireFileLock(lockFile, opts);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/** Removes the lock if the thread `deadThreadId` of this process holds it (that thread has stopped mid-operation). */
export async function releaseLockOfThread(lockFile: string, deadThreadId: number): Promise<boolean> {
  const owner = await readFile(lockFile, 'utf8').catch(() => '');
  if (owner !== me(deadThreadId)) return false;
  await unlink(lockFile).catch(() => {});
  return true;
}
