import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';

/** The longest time the event loop went without running a 2 ms interval timer while `fn` ran, and the total time. */
export async function longestBlockDuring<T>(fn: () => Promise<T>): Promise<{ value: T; longestMs: number; totalMs: number }> {
  const start = performance.now();
  let last = start;
  let longestMs = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
  }, 2);
  try {
    const value = await fn();
    longestMs = Math.max(longestMs, performance.now() - last);
    return { value, longestMs, totalMs: performance.now() - start };
  } finally {
    clearInterval(probe);
  }
}

/** CPU time this thread has run, in ms, from Linux's per-thread scheduler statistics (nanoseconds). */
function threadCpuMs(): number {
  const tid = process.pid; // the main thread's id is the process id
  return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/**
 * The CPU time the main thread and the whole process (every thread) used while `fn` ran. Unlike wall-clock gaps of
 * the event loop, this does not grow when the machine is loaded: it tells work on this thread from work in a worker.
 */
export async function mainThreadCpuDuring<T>(fn: () => Promise<T>): Promise<{ value: T; mainMs: number; processMs: number }> {
  const main0 = threadCpuMs();
  const all0 = process.cpuUsage();
  const value = await fn();
  const all = process.cpuUsage(all0);
  return { value, mainMs: threadCpuMs() - main0, processMs: (all.user + all.system) / 1000 };
}
