// Another agent's session files are read whole, again whenever their size or mtime moved (the agent appends while it
// runs); the few used last are kept parsed.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

interface Cached<T> {
  size: number;
  mtimeMs: number;
  value: Promise<T>;
}

export class ReadCache<T> {
  /** Least recently used first. */
  readonly #entries = new Map<string, Cached<T>>();

  constructor(private readonly max = 16) {}

  async get(file: string, read: (path: string) => Promise<T>): Promise<T> {
    const path = resolve(file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) {
      this.#entries.delete(path);
      throw new Error(`Session file not found: ${path}`);
    }
    let cached = this.#entries.get(path);
    this.#entries.delete(path);
    if (!cached || cached.size !== info.size || cached.mtimeMs !== info.mtimeMs) cached = { size: info.size, mtimeMs: info.mtimeMs, value: read(path) };
    this.#entries.set(path, cached);
    for (const old of [...this.#entries.keys()].slice(0, Math.max(0, this.#entries.size - this.max))) this.#entries.delete(old);
    try {
      return await cached.value;
    } catch (error) {
      this.#entries.delete(path);
      throw error;
    }
  }

  forget(file: string): void {
    this.#entries.delete(resolve(file));
  }

  clear(): void {
    this.#entries.clear();
  }
}
