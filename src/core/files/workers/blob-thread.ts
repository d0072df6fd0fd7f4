// A second thread that reads, hashes and (while the pack's writes are behind) compresses files for a big snapshot
// (blob-thread-main.ts; stored as a bulk snapshot stores them: pack-writer.ts, BULK_OBJECTS). A first snapshot reads
// and hashes every file: on two cores the calling thread can only do half of it. The calling thread keeps doing files
// itself and hands the helper a share through a short queue; only paths go over, hashes and the bytes to store come
// back (the same bytes PackWriter.add would store).
import type { Worker } from 'node:worker_threads';
import { startThread } from './thread-start';

/** Files to read, hash and store: [id, absolute path, whether to compress it (PackWriter.compressBulk)]. */
export type BlobRequest = [id: number, path: string, compress: boolean][];
/** One file's answer: its hash, size and stored bytes (moved, not copied), or the read error's code. */
export type BlobReply = [
  id: number,
  hash: string | null,
  size: number,
  stored: Uint8Array | null,
  deflated: boolean,
  code: string | undefined,
  /** The stat data of the version read (mtimeMs, ctimeMs, ino, dev), null on an error. */
  times: [number, number, number, number] | null,
];

export interface PreparedBlob {
  hash: string;
  size: number;
  /** What the pack stores: the deflated bytes, or the file's own when deflate did not make them smaller. */
  stored: Buffer;
  deflated: boolean;
  /** The stat data of the version read. */
  st?: { mtimeMs: number; ctimeMs: number; ino: number; dev: number };
}

type Waiter = { resolve(b: PreparedBlob): void; reject(err: Error): void };

/** Files handed over and not answered yet, beyond which the calling thread does the next file itself. */
const QUEUE = 24;

export class BlobThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter>();
  #batch: BlobRequest = [];
  #next = 0;
  #failed: Error | undefined;

  constructor() {
    this.#worker = startThread('blob-thread-main', (replies: BlobReply[]) => {
      for (const [id, hash, size, stored, deflated, code, times] of replies) {
        const w = this.#waiting.get(id);
        this.#waiting.delete(id);
        const st = times ? { mtimeMs: times[0], ctimeMs: times[1], ino: times[2], dev: times[3] } : undefined;
        if (hash && stored) w?.resolve({ hash, size, stored: Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength), deflated, st });
        else w?.reject(Object.assign(new Error(code ?? 'read failed'), { code }));
      }
      // an idle thread never keeps the process alive (an answer awaited does, as a read of the file system would)
      if (this.#waiting.size === 0) this.#worker.unref();
    });
    const fail = (err: Error) => {
      this.#failed ??= err;
      for (const w of this.#waiting.values()) w.reject(err);
      this.#waiting.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', () => fail(new Error('the hashing thread stopped')));
  }

  /** Whether it can take another file now. */
  get hasRoom(): boolean {
    return !this.#failed && this.#waiting.size < QUEUE;
  }

  /**
   * Reads and hashes the file at `absPath` and makes its stored bytes (compressed when `compress`); rejects with the
   * read error (its `code`, like ENOENT).
   */
  prepare(absPath: string, compress: boolean): Promise<PreparedBlob> {
    if (this.#failed) return Promise.reject(this.#failed);
    const id = this.#next++;
    if (this.#waiting.size === 0) this.#worker.ref();
    const done = new Promise<PreparedBlob>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    if (this.#batch.length === 0) queueMicrotask(() => this.#send());
    this.#batch.push([id, absPath, compress]);
    return done;
  }

  #send(): void {
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length) this.#worker.postMessage(batch);
  }

  async close(): Promise<void> {
    this.#worker.removeAllListeners('exit');
    await this.#worker.terminate();
  }
}
