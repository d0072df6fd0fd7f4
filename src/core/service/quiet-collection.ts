// A full garbage collection when the checkpoint service goes quiet after requests that left enough garbage (issue 26:
// the service's memory per file). What a snapshot allocates and drops is mostly outside V8's heap (file contents,
// zlib output, the bytes of the trees it writes: ArrayBuffers in the C allocator), and V8 frees those only in a full
// collection, which it starts on its own only once such memory has grown by tens of MB. A quiet service never ran
// one: at 200,000 files its C heap grew by ~0.85 MB per warm snapshot of 10 files (5.6 → 19.4 MB after 16; RSS 97
// MB, of which a collection and a trim gave back 17 MB). Collected between requests, never in one: after the last
// answer, once nothing has been asked for a moment, and only when memory grew enough since the last collection that
// the CPU is worth it (a full collection of a 200,000-file service's heap takes ~20 ms of CPU).
import { collectGarbage } from '../collect-garbage';

/**
 * How long the service must have been asked nothing before it collects: soon after an answer, because a hook's next
 * request comes once the agent has worked (in the benchmark, once git has committed: 0.3 s or more), while one client's
 * requests in a row come within milliseconds and still postpone it. After half a second, on a loaded machine where
 * hooks came 0.5-0.8 s apart, 10 of 60 hooks met a collection running (17-311 ms of a blocked event loop at 50,000
 * files, load ~16); at 0.1 s none of 60 did (BENCHMARKS.md, the checkpoint service's section).
 */
export const QUIET_MS = 100;
/** How much V8's heap and the memory outside it must have grown since the last collection to collect again. */
export const MIN_GROWTH_BYTES = 2 * 1024 * 1024;

export interface QuietCollectorOptions {
  quietMs?: number;
  /** 0: at every quiet moment. */
  minGrowthBytes?: number;
  /** Bytes held now: V8's heap in use plus the memory it accounts outside it (ArrayBuffers, external strings). */
  heldBytes?: () => number;
  /** Runs a full collection (collect-garbage.ts). */
  collect?: () => void;
  /** A request is being answered or on its way (its client connected): the collection waits for the next quiet
   *  moment. */
  busy: () => boolean;
  /** Told of each collection (the service's --verbose trace). */
  log?: (message: string) => void;
}

export class QuietCollector {
  private timer: NodeJS.Timeout | undefined;
  private baseline: number;
  private readonly quietMs: number;
  private readonly minGrowth: number;
  private readonly held: () => number;
  private readonly collect: () => void;
  /** Collections run so far. */
  collections = 0;
  private disposed = false;

  constructor(private readonly opts: QuietCollectorOptions) {
    this.quietMs = opts.quietMs ?? QUIET_MS;
    this.minGrowth = opts.minGrowthBytes ?? MIN_GROWTH_BYTES;
    this.held = opts.heldBytes ?? heldBytes;
    this.collect = opts.collect ?? collectGarbage;
    this.baseline = this.held();
  }

  /** A request was answered: collects once nothing has been asked for quietMs, if it is worth it. */
  settled(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.collectIfGrown(), this.quietMs);
    this.timer.unref(); // never what keeps a stopping process alive
  }

  /** Collects now when memory grew by minGrowthBytes since the last collection and nothing is being answered. */
  collectIfGrown(): boolean {
    this.timer = undefined;
    if (this.opts.busy()) return false; // the request in flight settles it again when answered
    const now = this.held();
    // V8 may have collected on its own meanwhile: growth counts from the lowest point seen
    if (this.minGrowth > 0 && now - this.baseline < this.minGrowth) {
      this.baseline = Math.min(this.baseline, now);
      return false;
    }
    const t = performance.now();
    this.collect();
    this.collections++;
    this.baseline = this.held();
    this.opts.log?.(`collected garbage when quiet: ${mb(now)} → ${mb(this.baseline)} MB held, ${(performance.now() - t).toFixed(1)} ms`);
    return true;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

function heldBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}
