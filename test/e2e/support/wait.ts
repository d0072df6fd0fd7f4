// Waiting for conditions, never for a fixed time.
import { existsSync, readFileSync } from 'node:fs';

/** Thrown from a check to stop waiting at once (e.g. the process that should act has died). */
export class WaitAborted extends Error {}

/** Polls `check` until it returns a value other than undefined/false, or throws with `what` after timeoutMs. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      if (e instanceof WaitAborted) throw e;
      lastError = e;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until a file exists and holds complete JSON (writers rename into place, but be lenient). */
export function waitForJsonFile<T>(path: string, timeoutMs: number, isDead: () => boolean = () => false): Promise<T> {
  return waitFor(
    `${path}`,
    () => {
      if (isDead()) throw new WaitAborted(`the process that should write ${path} exited`);
      if (!existsSync(path)) return undefined;
      return JSON.parse(readFileSync(path, 'utf8')) as T;
    },
    timeoutMs,
  );
}
