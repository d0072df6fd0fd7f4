// The one lock module (src/core/file-lock.ts) that session files and the checkpoint store share: a dead owner's lock
// is taken over at once, a live one is waited for, a worker thread's is released by its runner, and what no
// agent-rewind process wrote is refused without waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { acquireFileLock, LockBusyError, NotALockError, releaseLockOfThread, withFileLock } from '../../../src/core/file-lock';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-file-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

test("a killed process's lock is taken over at once, and the new lock names this thread", async (t) => {
  const lock = join(tempDir(t), 'lock');
  writeFileSync(lock, `${deadPid()}@${hostname()}@0`);
  // Waiting for a dead owner would run into the timeout and throw: taking it at all is the check, not a stopwatch.
  const held = await acquireFileLock(lock, { timeoutMs: 200 });
  assert.equal(readFileSync(lock, 'utf8'), `${process.pid}@${hostname()}@${threadId}`);
  assert.equal(await held.stillHeld(), true);
  await held.release();
  assert.equal(existsSync(lock), false);
});

test('a live owner is waited for and never overtaken; a lock of another host is not judged by our pids', async (t) => {
  const dir = tempDir(t);
  const live = join(dir, 'live');
  writeFileSync(live, `${process.pid}@${hostname()}@${threadId + 1000}`);
  await assert.rejects(acquireFileLock(live, { timeoutMs: 150 }), (err: unknown) => err instanceof LockBusyError && err.owner.startsWith(`${process.pid}@`));
  const remote = join(dir, 'remote');
  const remoteOwner = `${deadPid()}@another-host.invalid@0`;
  writeFileSync(remote, remoteOwner);
  await assert.rejects(acquireFileLock(remote, { timeoutMs: 150 }), LockBusyError);
  assert.equal(readFileSync(remote, 'utf8'), remoteOwner);
});

test("a dead worker thread's lock is released by its runner only", async (t) => {
  const lock = join(tempDir(t), 'lock');
  writeFileSync(lock, `${process.pid}@${hostname()}@${threadId + 7}`);
  assert.equal(await releaseLockOfThread(lock, threadId + 8), false);
  assert.equal(await releaseLockOfThread(lock, threadId + 7), true);
  assert.equal(await withFileLock(lock, async () => 'got it', { timeoutMs: 100 }), 'got it');
});

test('waiters for one lock run one at a time, also when they all find a dead owner first', async (t) => {
  const lock = join(tempDir(t), 'lock');
  writeFileSync(lock, `${deadPid()}@${hostname()}@0`);
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 6 }, () =>
      withFileLock(lock, async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 10));
        inside--;
      }),
    ),
  );
  assert.equal(most, 1);
  assert.equal(existsSync(lock), false);
});

test('a file no agent-rewind process wrote is refused at once and left as it is', async (t) => {
  const lock = join(tempDir(t), 'lock');
  writeFileSync(lock, 'not a lock');
  // Waiting would end in a timeout error, not NotALockError.
  await assert.rejects(acquireFileLock(lock, { timeoutMs: 5_000 }), NotALockError);
  assert.equal(readFileSync(lock, 'utf8'), 'not a lock');
});

test("an older version's lock folder is waited for while fresh and taken over once stale", async (t) => {
  const lock = join(tempDir(t), 'lock');
  mkdirSync(lock);
  await assert.rejects(acquireFileLock(lock, { timeoutMs: 150 }), LockBusyError);
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
  const held = await acquireFileLock(lock, { timeoutMs: 150 });
  assert.equal(readFileSync(lock, 'utf8'), `${process.pid}@${hostname()}@${threadId}`);
  await held.release();
});

test('a lock removed from under its holder is reported as no longer held, and release leaves a newer lock alone', async (t) => {
  const lock = join(tempDir(t), 'lock');
  const held = await acquireFileLock(lock);
  rmSync(lock);
  assert.equal(await held.stillHeld(), false);
  writeFileSync(lock, `${process.pid}@${hostname()}@${threadId + 3}`);
  await held.release();
  assert.equal(readFileSync(lock, 'utf8'), `${process.pid}@${hostname()}@${threadId + 3}`);
});

test(
  'a lock whose pid now belongs to a process that started after it was written (a pid reused) is taken over',
  { skip: process.platform !== 'linux' },
  async (t) => {
    const dir = tempDir(t);
    const old = new Date(Date.now() - 3_600_000);
    // this very process and thread, as a process before a restart that had our pid would have written it
    const ours = join(dir, 'ours');
    writeFileSync(ours, `${process.pid}@${hostname()}@${threadId}`);
    utimesSync(ours, old, old);
    // taken over, not waited for: a live owner's lock is never released, so waiting could only end in LockBusyError
    await (await acquireFileLock(ours, { timeoutMs: 5_000 })).release();
    // written while its owner lives: waited for, as before
    const live = join(dir, 'live');
    writeFileSync(live, `${process.pid}@${hostname()}@${threadId}`);
    await assert.rejects(acquireFileLock(live, { timeoutMs: 150 }), LockBusyError);
  },
);
