// One writer per store at a time (the CLI and the extension may share a workspace), through the one lock module
// (core/file-lock.ts): a lock left by a killed process is taken over at once, which matters for recovery after a
// crash; one left by a worker thread that died (its process lives on) is released by whoever ran that thread.
import { acquireFileLock, LockBusyError, NotALockError } from '../../file-lock';

export { releaseLockOfThread } from '../../file-lock';

export async function withStoreLock<T>(lockFile: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  let lock;
  try {
    lock = await acquireFileLock(lockFile, { timeoutMs });
  } catch (err) {
    if (err instanceof LockBusyError) throw new Error(`the checkpoint store is busy (locked by process ${err.owner || 'unknown'}); try again`, { cause: err });
    if (err instanceof NotALockError)
      throw new Error(`the checkpoint store cannot be locked: ${err.message}; remove it if no agent-rewind process is working on this store`, { cause: err });
    throw err;
  }
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
