// The CPU side of a store compaction (store-compaction.ts), on its own thread (compaction-thread-main.ts) so that the
// thread that takes snapshots never waits for it: it trains the deflate dictionary, and checks and recompresses each
// object handed over.
import type { Worker } from 'node:worker_threads';
import { startThread } from './thread-start';

/** An object as it goes to the thread: hash, flags, raw size, stored bytes, the pack it is read from. */
export type WireObject = [hash: string, flags: number, rawSize: number, stored: Uint8Array, pack: string];
/** What the thread says of one: whether it checked out, and the recompressed bytes (null: copy it as it is). */
export type ObjectReply = [hash: string, ok: boolean, stored: Uint8Array | null, flags: number];
export type CompactionRequest =
  | { type: 'train'; samples: [flags: number, rawSize: number, stored: Uint8Array][]; size: number }
  | { type: 'dict'; dict: Uint8Array | null }
  | { type: 'source'; pack: string; dict: Uint8Array | null }
  | { type: 'objects'; items: WireObject[] };
/** The answer to 'train' (the dictionary) or to 'objects'; 'dict' and 'source' have none. */
export type CompactionReply = { dict: Uint8Array | null } | ObjectReply[];

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
  /** The recompressed bytes (a blob, or a tree a bulk pack stored raw), or undefined for one to copy as it is. */
  stored?: Buffer;
  flags: number;
}

export class CompactionThread {
  readonly #worker: Worker;
  #failed: Error | undefined;
  #waiting: ((reply: CompactionReply) => void) | undefined;
  #reject: ((err: Error) => void) | undefined;

  constructor() {
    this.#worker = startThread('compaction-thread-main', (reply: CompactionReply) => {
      const w = this.#waiting;
      this.#waiting = this.#reject = undefined;
      this.#worker.unref();
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
  #ask<T extends CompactionReply>(msg: CompactionRequest): Promise<T> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise<T>((resolve, reject) => {
      this.#waiting = resolve as (reply: CompactionReply) => void;
      this.#reject = reject;
      this.#worker.ref(); // an answer awaited keeps the process alive (thread-start.ts); an idle thread never does
      this.#worker.postMessage(msg);
    });
  }

  /** A dictionary of at most `size` bytes from sample blobs (as stored), or undefined when they share nothing. */
  async train(samples: ObjectIn[], size: number): Promise<Buffer | undefined> {
    const items = samples.map((o): [number, number, Uint8Array] => [o.flags, o.rawSize, o.stored]);
    const { dict } = await this.#ask<{ dict: Uint8Array | null }>({ type: 'train', samples: items, size });
    return dict ? Buffer.from(dict.buffer, dict.byteOffset, dict.byteLength) : undefined;
  }

  /** The dictionary blobs are recompressed with from now on. */
  useDictionary(dict: Buffer | undefined): void {
    this.#worker.postMessage({ type: 'dict', dict: dict ?? null } satisfies CompactionRequest);
  }

  /** The dictionary the F_DICT objects of `pack` (a source) need. */
  sourceDictionary(pack: string, dict: Buffer | undefined): void {
    this.#worker.postMessage({ type: 'source', pack, dict: dict ?? null } satisfies CompactionRequest);
  }

  /** Checks each object (inflate, hash) and recompresses each blob (and each tree stored raw). */
  async recompress(items: ObjectIn[]): Promise<ObjectOut[]> {
    const replies = await this.#ask<ObjectReply[]>({
      type: 'objects',
      items: items.map((o): WireObject => [o.hash, o.flags, o.rawSize, o.stored, o.pack]),
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
