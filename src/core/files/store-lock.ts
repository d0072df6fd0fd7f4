// One writer per store at a time (the CLI and the extension may share a workspace). The lock file holds the owner's
// pid, host and thread: a lock left by a killed process is taken over at once instead of after a timeout, which
// matters for recovery after a crash; one left by a worker thread that died (its process lives on) is released by
// whoever ran that thread (releaseLockOfThread).
import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { threadId } from 'node:worker_threads';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withStoreLock<T>(lockFile: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const me = `${process.pid}@${hostname()}@${threadId}`;
  const start = Date.now();
  let wait = 5;
  for (;;) {
    try {
      const h = await open(lockFile, 'wx');
      await h.writeFile(me);
      await h.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = await readFile(lockFile, 'utf8').catch(() => '');
      const [pid, host] = owner.split('@');
      const stale = owner !== '' && host === hostname() && !alive(Number(pid));
      if (stale || (owner === '' && Date.now() - start > 2000)) {
        await unlink(lockFile).catch(() => {});
        continue;
      }
      if (Date.now() - start > timeoutMs) throw new Error(`the checkpoint store is busy (locked by process ${owner || 'unknown'}); try again`);
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 200);
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(lockFile).catch(() => {});
  }
}

/** Removes the lock if the thread `deadThreadId` of this process holds it (that thread has stopped mid-operation). */
export async function releaseLockOfThread(lockFile: string, deadThreadId: number): Promise<boolean> {
  const owner = await readFile(lockFile, 'utf8').catch(() => '');
  if (owner !== `${process.pid}@${hostname()}@${deadThreadId}`) return false;
  await unlink(lockFile).catch(() => {});
  return true;
}
