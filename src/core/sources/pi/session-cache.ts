// Keeps one SessionManager per session file, brought up to date with what other processes appended before each
// use. Every write the engine makes goes through SessionManager.transaction(), so the CLI, pi and this cache can
// share a file.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SessionManager } from '../../session/session-manager';

export class SessionNotFoundError extends Error {
  constructor(readonly sessionRef: string) {
    super(`Session file not found: ${sessionRef}`);
  }
}

interface Cached {
  session: SessionManager;
  size: number;
  mtimeMs: number;
  /** The last sync; syncs of one session run one after another. */
  syncing: Promise<unknown>;
}

/** Sessions kept parsed in memory; the least recently used beyond this are closed (and reread when needed). */
const MAX_OPEN_SESSIONS = 24;

export class SessionCache {
  /** In use order: the most recently used last. */
  private readonly open = new Map<string, Promise<Cached>>();

  constructor(
    private readonly home: string,
    private readonly maxOpen = MAX_OPEN_SESSIONS,
  ) {}

  /** The session, with other processes' appends read in. Throws SessionNotFoundError for a missing file. */
  async get(sessionRef: string): Promise<SessionManager> {
    const file = resolve(sessionRef);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) {
      await this.evict(file);
      throw new SessionNotFoundError(file);
    }
    let pending = this.open.get(file);
    if (pending) {
      this.open.delete(file);
      this.open.set(file, pending);
    } else {
      pending = this.load(file);
      this.open.set(file, pending);
      for (const oldest of [...this.open.keys()].slice(0, Math.max(0, this.open.size - this.maxOpen))) void this.evict(oldest);
    }
    let cached: Cached;
    try {
      cached = await pending;
    } catch (error) {
      this.open.delete(file);
      throw error;
    }
    if (info.size < cached.size) {
      // Shorter than what we read: rewritten (a migration, a hand edit), not appended. Read it again from scratch.
      await this.evict(file);
      return this.get(file);
    }
    // syncFromDisk reads on from the bytes it already consumed: cheap when nothing changed.
    const sync = cached.syncing.then(() => cached.session.syncFromDisk());
    cached.syncing = sync.catch(() => undefined);
    try {
      await sync;
    } catch {
      await this.evict(file);
      return this.get(file);
    }
    cached.size = info.size;
    cached.mtimeMs = info.mtimeMs;
    return cached.session;
  }

  /** Forget a session (it changed on disk in a way appends do not explain, or it was deleted). */
  async evict(sessionRef: string): Promise<void> {
    const file = resolve(sessionRef);
    const pending = this.open.get(file);
    this.open.delete(file);
    if (!pending) return;
    try {
      await (await pending).session.close();
    } catch {
      // A session that failed to load or write has nothing left to flush.
    }
  }

  async dispose(): Promise<void> {
    const files = [...this.open.keys()];
    await Promise.all(files.map((f) => this.evict(f)));
  }

  private async load(file: string): Promise<Cached> {
    const info = await stat(file);
    const session = await SessionManager.open(file, { home: this.home, deferUntilAssistant: false });
    return { session, size: info.size, mtimeMs: info.mtimeMs, syncing: Promise.resolve() };
  }
}
