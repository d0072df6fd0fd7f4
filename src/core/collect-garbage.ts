// A full garbage collection on demand, for a long-lived process right after it let go of something big (the checkpoint
// service's stat index, ChangeTracker.compactModel). V8 frees a dead ArrayBuffer's memory only in a full collection,
// which a quiet service may not run for a long time: at 200,000 files the index it loaded (~18 MB) stayed resident
// beside the one it saved, and the service's RSS after warm snapshots was 146-151 MB instead of ~110 MB.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = () => void;
let collect: Collect | undefined;
let looked = false;

/** The `gc` V8 exposes (--expose-gc) in a context made after the flag is set; Node's own when it was started with it. */
function collector(): Collect | undefined {
  if (looked) return collect;
  looked = true;
  collect = (globalThis as { gc?: Collect }).gc;
  if (collect) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collect = typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    collect = undefined; // a runtime without the flag: the memory waits for V8's own next full collection
  }
  return collect;
}

/** Runs a full garbage collection now (a few ms to a few tens of ms on a service's heap); false when it cannot. */
export function collectGarbage(): boolean {
  const gc = collector();
  gc?.();
  return gc !== undefined;
}
