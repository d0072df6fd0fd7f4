// The CPU side of a store compaction (store-compaction.ts), on its own thread so that the thread that takes
// snapshots never waits for it: it trains the deflate dictionary, and checks and recompresses each object handed over.
// On Linux it lowers its own priority (there a thread's nice value is its own), so that a snapshot or a restore on the
// other core is not slowed by it either.
import { Worker } from 'node:worker_threads';

/** The whole worker: dependency-free, so it runs from source (eval) in the CLI, the extension and tests. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { deflateRawSync, inflateRawSync } = require('node:zlib');
if (process.platform === 'linux') { try { require('node:os').setPriority(19); } catch {} }
const F_DEFLATED = 1, F_TREE = 2, F_DICT = 4;
// the lines most shared between files, worth the most last (deflate reaches back 32 KiB, nearer is cheaper)
function train(samples, size) {
  const counts = new Map();
  for (const [flags, rawSize, stored] of samples) {
    let s;
    try {
      s = flags & F_DEFLATED ? inflateRawSync(stored, { maxOutputLength: Math.max(rawSize, 1) }) : Buffer.from(stored);
    } catch { continue; }
    const text = s.toString('latin1');
    const seen = new Set();
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\\n', start);
      const end = nl < 0 ? text.length : nl + 1;
      const line = text.slice(start, end);
      start = end;
      if (line.length < 8 || line.length > 512 || seen.has(line)) continue;
      seen.add(line);
      counts.set(line, (counts.get(line) || 0) + 1);
    }
  }
  const worth = (e) => (e[1] - 1) * e[0].length;
  const top = [...counts].filter((e) => e[1] > 1).sort((a, b) => worth(b) - worth(a));
  const picked = [];
  let n = 0;
  for (const [line] of top) {
    if (n + line.length > size) continue;
    picked.push(line);
    n += line.length;
    if (size - n < 8) break;
  }
  return picked.length ? Buffer.from(picked.reverse().join(''), 'latin1') : null;
}
let dict = null;
const sources = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'train') return parentPort.postMessage({ dict: train(m.samples, m.size) });
  if (m.type === 'dict') { dict = m.dict ? Buffer.from(m.dict) : null; return; }
  if (m.type === 'source') { sources.set(m.pack, m.dict ? Buffer.from(m.dict) : null); return; }
  // m.type === 'objects': [hash, flags, rawSize, stored, pack] → [hash, ok, stored, flags]
  parentPort.postMessage(m.items.map(([hash, flags, rawSize, stored, pack]) => {
    try {
      const src = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      let data = src;
      if (flags & F_DEFLATED) {
        const opts = { maxOutputLength: Math.max(rawSize, 1) };
        const d = flags & F_DICT ? sources.get(pack) : undefined;
        if (flags & F_DICT && !d) return [hash, false, null, 0];
        data = inflateRawSync(src, d ? { ...opts, dictionary: d } : opts);
      }
      const h = createHash('sha256');
      if (flags & F_TREE) h.update('tree\\0');
      if (data.length !== rawSize || h.update(data).digest('hex') !== hash) return [hash, false, null, 0];
      // trees are copied as they are: folder listings are mostly hashes, which no dictionary helps with
      if (flags & F_TREE) return [hash, true, null, flags];
      if (data.length < 64) return [hash, true, data, 0];
      const z = deflateRawSync(data, dict ? { level: 6, dictionary: dict } : { level: 6 });
      if (z.length >= data.length) return [hash, true, data, 0];
      return [hash, true, z, F_DEFLATED | (dict ? F_DICT : 0)];
    } catch {
      return [hash, false, null, 0];
    }
  }));
});
`;

export interface ObjectIn {
  hash: string;
  flags: number;
  rawSize: number;
  stored: Buffer;
  pack: string;
}

export interface ObjectOut {
  hash: string;
  /** The stored bytes inflate (with the dictionary of their pack, if they need one) to the object they claim. */
  ok: boolean;
  /** The recompressed bytes (a blob), or undefined for one to copy as it is (a tree). */
  stored?: Buffer;
  flags: number;
}

export class CompactionThread {
  readonly #worker: Worker;
  #failed: Error | undefined;
  #waiting: ((reply: unknown) => void) | undefined;
  #reject: ((err: Error) => void) | undefined;

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true });
    this.#worker.unref();
    this.#worker.on('message', (reply: unknown) => {
      const w = this.#waiting;
      this.#waiting = this.#reject = undefined;
      w?.(reply);
    });
    const fail = (err: Error) => {
      this.#failed ??= err;
      this.#reject?.(err);
      this.#waiting = this.#reject = undefined;
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', () => fail(new Error('the compaction thread stopped')));
  }

  /** One request at a time: compaction waits for each batch before it reads the next. */
  #ask<T>(msg: unknown): Promise<T> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise<T>((resolve, reject) => {
      this.#waiting = resolve as (reply: unknown) => void;
      this.#reject = reject;
      this.#worker.postMessage(msg);
    });
  }

  /** A dictionary of at most `size` bytes from sample blobs (as stored), or undefined when they share nothing. */
  async train(samples: ObjectIn[], size: number): Promise<Buffer | undefined> {
    const items = samples.map((o) => [o.flags, o.rawSize, o.stored]);
    const { dict } = await this.#ask<{ dict: Uint8Array | null }>({ type: 'train', samples: items, size });
    return dict ? Buffer.from(dict.buffer, dict.byteOffset, dict.byteLength) : undefined;
  }

  /** The dictionary blobs are recompressed with from now on. */
  useDictionary(dict: Buffer | undefined): void {
    this.#worker.postMessage({ type: 'dict', dict: dict ?? null });
  }

  /** The dictionary the F_DICT objects of `pack` (a source) need. */
  sourceDictionary(pack: string, dict: Buffer | undefined): void {
    this.#worker.postMessage({ type: 'source', pack, dict: dict ?? null });
  }

  /** Checks each object (inflate, hash) and recompresses each blob. */
  async recompress(items: ObjectIn[]): Promise<ObjectOut[]> {
    const replies = await this.#ask<[string, boolean, Uint8Array | null, number][]>({
      type: 'objects',
      items: items.map((o) => [o.hash, o.flags, o.rawSize, o.stored, o.pack]),
    });
    return replies.map(([hash, ok, stored, flags]) => ({
      hash,
      ok,
      stored: stored ? Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength) : undefined,
      flags,
    }));
  }

  async close(): Promise<void> {
    this.#worker.removeAllListeners('exit');
    await this.#worker.terminate();
  }
}
