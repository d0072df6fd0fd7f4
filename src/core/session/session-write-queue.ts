// A session's writes, in order and one at a time, with the first failure latched (docs/ARCHITECTURE.md, "Writers"):
// once a write failed, every later operation throws that error, so nothing is ever appended after a hole in the file.
// The facade (session-manager.ts) decides what to write; this runs it and holds the file's append handle.
import { SessionPersistenceError } from './session-file-write';
import type { SessionStorage, SessionStorageWriter } from './storage';

export class SessionWriteQueue {
  #chain: Promise<void> = Promise.resolve();
  #writer: SessionStorageWriter | undefined;
  #error: SessionPersistenceError | undefined;

  constructor(
    private readonly storage: SessionStorage,
    private readonly file: string | undefined,
  ) {}

  /** The first write that failed, if one did. */
  get error(): SessionPersistenceError | undefined {
    return this.#error;
  }

  throwIfFailed(): void {
    if (this.#error) throw this.#error;
  }

  /** Runs task after every queued one; a failure is latched and the tasks queued after it are skipped. */
  enqueue(task: () => Promise<void>): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#error) return;
      try {
        await task();
      } catch (err) {
        this.#latch(err);
      }
    });
  }

  /** Resolves once every queued task has run, failed or not. */
  idle(): Promise<void> {
    return this.#chain;
  }

  /** Appends text through the file's append handle (opened on first use). Call from a queued task. */
  async append(file: string, text: string): Promise<void> {
    this.#writer ??= await this.storage.openWriter(file);
    await this.#writer.writeRaw(text);
  }

  /** Drops the append handle before the file is replaced: it would point at the old one. Call from a queued task. */
  async closeWriter(): Promise<void> {
    if (this.#writer) {
      const w = this.#writer;
      this.#writer = undefined;
      await w.close();
    }
  }

  /** Waits until every queued write has been handed to the OS; rethrows a latched error. */
  async drain(): Promise<void> {
    await this.#chain;
    this.throwIfFailed();
  }

  /** Waits for every queued write and makes it durable (fsync); rethrows a latched error. */
  async flush(): Promise<void> {
    await this.drain();
    if (this.#writer) {
      try {
        await this.#writer.fsync();
      } catch (err) {
        throw this.#latch(err);
      }
    }
  }

  /** Closes the append handle for good; a failure to close is latched. */
  async release(): Promise<void> {
    const w = this.#writer;
    this.#writer = undefined;
    if (w) await w.close().catch((err) => void this.#latch(err));
  }

  #latch(err: unknown): SessionPersistenceError {
    return (this.#error ??= new SessionPersistenceError(this.file, err));
  }
}
