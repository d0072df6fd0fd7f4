// Another agent's sessions are read whole, again whenever their stamp moved (session-ref.ts: a file's size and
// mtime by default; the agent appends while it runs); the few used last are kept parsed.
import { fileStamp, type SessionRef, type SessionStamp } from './session-ref';

interface Cached<T> {
  stamp: SessionStamp;
  value: Promise<T>;
}

export class ReadCache<T> {
  /** Least recently used first. */
  readonly #entries = new Map<SessionRef, Cached<T>>();

  /** `stampOf`: the adapter's stamp of a session (default: the ref is a file, stamped by its size and mtime). */
  constructor(
    private readonly max = 16,
    private readonly stampOf: (ref: SessionRef) => Promise<SessionStamp | undefined> = fileStamp,
  ) {}

  async get(ref: SessionRef, read: (ref: SessionRef) => Promise<T>): Promise<T> {
    const stamp = await this.stampOf(ref);
    if (stamp === undefined) {
      this.#entries.delete(ref);
      throw new Error(`Session file not found: ${ref}`);
    }
    let cached = this.#entries.get(ref);
    this.#entries.delete(ref);
    if (!cached || cached.stamp !== stamp) cached = { stamp, value: read(ref) };
    this.#entries.set(ref, cached);
    for (const old of [...this.#entries.keys()].slice(0, Math.max(0, this.#entries.size - this.max))) this.#entries.delete(old);
    try {
      return await cached.value;
    } catch (error) {
      this.#entries.delete(ref);
      throw error;
    }
  }

  forget(ref: SessionRef): void {
    this.#entries.delete(ref);
  }

  clear(): void {
    this.#entries.clear();
  }
}
