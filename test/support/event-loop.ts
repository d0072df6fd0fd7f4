import { performance } from 'node:perf_hooks';

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
