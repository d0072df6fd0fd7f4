// The store lock names its owner's process, host and thread: a lock left by a worker thread that died (its process
// still alive) would otherwise block every later operation on the store until the timeout.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { threadId } from 'node:worker_threads';
import { releaseLockOfThread, withStoreLock } from '../../../src/core/files/store/store-lock';
import { tempBase } from './helpers';

test("a dead worker thread's lock blocks the store until the thread's owner releases it; another's is left alone", async () => {
  const base = await tempBase('arw-lock-');
  try {
    const lock = join(base.dir, 'lock');
    const deadThread = threadId + 1000;
    await writeFile(lock, `${process.pid}@${hostname()}@${deadThread}`);
    await assert.rejects(
      withStoreLock(lock, async () => 'got it', 300),
      /busy \(locked by process \d+@.*@\d+\)/,
    );
    assert.equal(await releaseLockOfThread(lock, deadThread + 1), false, 'not that thread: left alone');
    assert.equal(await releaseLockOfThread(lock, deadThread), true);
    assert.equal(await withStoreLock(lock, async () => 'got it', 300), 'got it');
    // and what this thread writes while it holds the lock names this thread
    await withStoreLock(lock, async () => {
      const { readFile } = await import('node:fs/promises');
      assert.equal(await readFile(lock, 'utf8'), `${process.pid}@${hostname()}@${threadId}`);
    });
  } finally {
    await base.cleanup();
  }
});
