// A second thread that reads, hashes and compresses files for a big snapshot (Huffman coding only, like the rest of a
// bulk snapshot: pack-writer.ts, BULK_OBJECTS). A first snapshot reads every file and
// is all hashing and deflate: on two cores the calling thread can only do half of it. The calling thread keeps
// doing files itself and hands the helper a share through a short queue; only paths go over, hashes and compressed
// bytes come back (the same bytes PackWriter.add would store).
import { Worker } from 'node:worker_threads';

/** The whole worker: dependency-free, so it runs from source (eval) in the CLI, the extension and tests. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, constants, fstatSync, openSync, readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { deflateRawSync } = require('node:zlib');
// the same read as readStableFile (safe-read.ts): never a FIFO or device, never a torn copy
const same = (a, b) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
function readOnce(path) {
  const started = Date.now();
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    const data = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) { const r = readSync(fd, data, n, st.size - n, n); if (r === 0) break; n += r; }
    const after = fstatSync(fd);
    return { data, st: after, stable: n === st.size && same(st, after), started };
  } finally { closeSync(fd); }
}
function readStable(path) {
  let prev;
  for (let i = 0; i < 4; i++) {
    const r = readOnce(path);
    if (!r.stable) { prev = undefined; continue; }
    if (r.st.mtimeMs < r.started - 1000) return r; // RECENT_MS
    if (prev && same(prev.st, r.st) && prev.data.equals(r.data)) return r;
    prev = r;
  }
  throw Object.assign(new Error('changed while being read'), { code: 'ECHANGED' });
}
// what goes back is moved, not copied: a clone copies a view's whole backing memory, and deflateRawSync's output of a
// small file sits in a 16 KiB one (a small read in Buffer's shared pool), so cloning sent ~4x the stored bytes and
// the calling thread copied them again; a view that does not own its memory exactly is first cut out to its length
const own = (b) => (b.byteOffset === 0 && b.buffer.byteLength === b.byteLength ? b : new Uint8Array(b));
parentPort.on('message', (batch) => {
  const moved = [];
  parentPort.postMessage(batch.map(([id, path]) => {
    try {
      const { data, st } = readStable(path);
      const hash = createHash('sha256').update(data).digest('hex');
      // Huffman coding only: a bulk snapshot's blobs are recompressed by compaction soon after (see BULK_OBJECTS)
      const z = data.length < 64 ? null : deflateRawSync(data, { level: 1, strategy: 2 });
      const deflated = z !== null && z.length < data.length;
      const stored = own(deflated ? z : data);
      moved.push(stored.buffer);
      return [id, hash, data.length, stored, deflated, undefined, st.mtimeMs, st.ino];
    } catch (err) {
      return [id, null, 0, null, false, err && err.code ? err.code : String(err), 0, 0];
    }
  }), moved);
});
`;

export interface PreparedBlob {
  hash: string;
  size: number;
  /** What the pack stores: the deflated bytes, or the file's own when deflate did not make them smaller. */
  stored: Buffer;
  deflated: boolean;
  /** The stat data of the version read. */
  mtimeMs?: number;
  ino?: number;
}

type Reply = [number, string | null, number, Uint8Array | null, boolean, string | undefined, number, number];
type Waiter = { resolve(b: PreparedBlob): void; reject(err: Error): void };

/** Files handed over and not answered yet, beyond which the calling thread does the next file itself. */
const QUEUE = 24;

export class BlobThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter>();
  #batch: [number, string][] = [];
  #next = 0;
  #failed: Error | undefined;

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true });
    this.#worker.unref();
    this.#worker.on('message', (replies: Reply[]) => {
      for (const [id, hash, size, stored, deflated, code, mtimeMs, ino] of replies) {
        const w = this.#waiting.get(id);
        this.#waiting.delete(id);
        if (hash && stored) w?.resolve({ hash, size, stored: Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength), deflated, mtimeMs, ino });
        else w?.reject(Object.assign(new Error(code ?? 'read failed'), { code }));
      }
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

  /** Reads, hashes and compresses the file at `absPath`; rejects with the read error (its `code`, like ENOENT). */
  prepare(absPath: string): Promise<PreparedBlob> {
    if (this.#failed) return Promise.reject(this.#failed);
    const id = this.#next++;
    const done = new Promise<PreparedBlob>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    if (this.#batch.length === 0) queueMicrotask(() => this.#send());
    this.#batch.push([id, absPath]);
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
