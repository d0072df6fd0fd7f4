// A watcher sync barrier, the way watchman does it with "cookie" files. File watchers report changes late (the
// OS queue, VS Code's own batching, our batch), so a snapshot taken right after a write could miss it. Before a
// tracked snapshot we create a uniquely named cookie file in the workspace root and wait until the watcher reports
// it: a watcher delivers events in order, so by then everything changed before the cookie has been reported too.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export type SyncResult = 'synced' | 'unsynced';

/** What the tracker awaits before it trusts the reported paths: 'unsynced' means "check everything instead". */
export interface WatcherSync {
  settle(): Promise<SyncResult>;
}

export const COOKIE_PREFIX = '.agent-rewind-cookie-';
const DEFAULT_COOKIE_TIMEOUT_MS = 2000;
/** After a cookie did not come back, settle() in that folder answers 'unsynced' at once for this long. */
const GIVE_UP_MS = 60_000;

/** The last segment of a path with either separator (reports are absolute OS paths or '/'-relative ones). */
function lastSegment(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}

export function isCookieName(name: string): boolean {
  return name.startsWith(COOKIE_PREFIX);
}

export interface ChangeFeedOptions {
  /** Receives the reported paths, cookies left out. */
  sink(paths: string[]): void;
  /** Reports are batched for this long (0: passed on at once). A cookie's arrival flushes the batch. */
  batchMs?: number;
  /** How long settle() waits for its cookie before giving up ('unsynced'). */
  cookieTimeoutMs?: number;
}

/**
 * Sits between a file watcher and the tracker: batches the watcher's reports and answers settle(root) with the
 * cookie protocol. Cookies are matched by name, so a root reached through a symlink still works.
 */
export class ChangeFeed {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Cookie name → wakes its settle(). */
  private readonly waiting = new Map<string, (result: SyncResult) => void>();
  private readonly tag = `${process.pid}-${randomBytes(3).toString('hex')}`;
  private n = 0;
  private disposed = false;
  private readonly batchMs: number;
  private readonly cookieTimeoutMs: number;
  /** Folder → until when its cookies are not waited for: a watcher that missed one (excluded, not watching) would
   * make every snapshot wait the whole timeout, and a full check costs less. */
  private readonly gaveUpUntil = new Map<string, number>();

  constructor(private readonly opts: ChangeFeedOptions) {
    this.batchMs = opts.batchMs ?? 0;
    this.cookieTimeoutMs = opts.cookieTimeoutMs ?? DEFAULT_COOKIE_TIMEOUT_MS;
  }

  /** A watcher's reports (paths of any form the sink understands). */
  note(paths: Iterable<string>): void {
    if (this.disposed) return;
    const woken: ((result: SyncResult) => void)[] = [];
    for (const p of paths) {
      const name = lastSegment(p);
      if (isCookieName(name)) {
        const wake = this.waiting.get(name);
        if (wake) woken.push(wake);
        continue; // our own cookies (and their deletion) are never changes
      }
      this.pending.add(p);
    }
    if (woken.length) {
      // A watcher may report one batch a path per call, and not in the order things happened: VS Code's extension
      // host fires every created path, then every changed one, so a file written before the cookie can come after
      // it. The rest of that batch is reported in the same turn of the event loop: wake after it, with it flushed.
      setImmediate(() => {
        this.flush();
        for (const wake of woken) wake('synced');
      });
    } else if (this.batchMs === 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const paths = [...this.pending];
    this.pending.clear();
    this.opts.sink(paths);
  }

  /**
   * Resolves 'synced' once every change made in `root` before the call has reached the sink; 'unsynced' when the
   * cookie could not be written (read-only folder) or did not come back in time.
   */
  async settle(root: string): Promise<SyncResult> {
    if (this.disposed || (this.gaveUpUntil.get(root) ?? 0) > Date.now()) return 'unsynced';
    const name = `${COOKIE_PREFIX}${this.tag}-${++this.n}`;
    const file = join(root, name);
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<SyncResult>((resolve) => {
      this.waiting.set(name, resolve);
      timer = setTimeout(() => resolve('unsynced'), this.cookieTimeoutMs);
    });
    try {
      // synchronous, as the unlink below: an empty file's create costs microseconds, a thread-pool round trip more
      closeSync(openSync(file, 'wx'));
    } catch {
      clearTimeout(timer);
      this.waiting.delete(name);
      return 'unsynced';
    }
    const result = await arrived;
    clearTimeout(timer);
    this.waiting.delete(name);
    if (result === 'unsynced' && !this.disposed) this.gaveUpUntil.set(root, Date.now() + GIVE_UP_MS);
    else this.gaveUpUntil.delete(root);
    try {
      unlinkSync(file);
    } catch {
      /* gone already */
    }
    return result;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    for (const wake of this.waiting.values()) wake('unsynced'); // nobody will report them now: never hang
    this.waiting.clear();
  }
}
