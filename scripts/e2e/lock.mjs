// A cross-process lock on a directory path, so two runs never install into the same cache folder at once.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const require = createRequire(import.meta.url);
const lockfile = require('proper-lockfile');

export async function withDirLock(lockPath, fn) {
  mkdirSync(dirname(lockPath), { recursive: true });
  writeFileSync(lockPath, '', { flag: 'a' });
  // An install takes minutes: keep retrying for up to 15 minutes, refresh the lock while held.
  const release = await lockfile.lock(lockPath, { stale: 60_000, update: 10_000, retries: { retries: 900, minTimeout: 1000, maxTimeout: 1000 } });
  try {
    return await fn();
  } finally {
    await release();
  }
}
