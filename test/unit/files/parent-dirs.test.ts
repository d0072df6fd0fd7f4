// Scenario: a restore opens each folder it writes into from the nearest folder above it that it already holds open
// (one open instead of one per component from the root). A folder held open that was swapped for a symlink since is
// refused before anything below it is opened or made through its old descriptor, and nothing is left open after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readlinkSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ParentDirs } from '../../../src/core/files/restore/parent-dirs';
import { PathSafetyError } from '../../../src/core/files/safe-paths';
import { tempBase } from './helpers';

const linux = process.platform === 'linux';
/** The descriptors of this process open on something under `dir`. */
const openUnder = (dir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(realpathSync(dir));
    } catch {
      return false; // closed meanwhile (the one readdir used)
    }
  });

test('folders side by side are reached through the folder above them, and closed at the end', { skip: !linux }, async () => {
  const base = await tempBase('arw-parent-dirs-');
  const ws = join(base.dir, 'ws');
  mkdirSync(join(ws, 'a/b/c'), { recursive: true });
  mkdirSync(join(ws, 'a/b/d'), { recursive: true });
  const dirs = new ParentDirs(ws);
  try {
    for (const rel of ['a/b/c', 'a/b/d', 'a/b/e', 'a/f/g']) {
      const h = dirs.acquire(rel, true)!;
      writeFileSync(`${h.path}/x.txt`, `${rel}\n`);
      h.release();
    }
  } finally {
    dirs.close();
  }
  for (const rel of ['a/b/c', 'a/b/d', 'a/b/e', 'a/f/g']) assert.equal(await readFile(join(ws, rel, 'x.txt'), 'utf8'), `${rel}\n`);
  assert.deepEqual(openUnder(ws), [], 'every folder opened on the way is closed');
  await base.cleanup();
});

test('a folder held open and then swapped for a symlink is refused before a subfolder is opened or made through it', { skip: !linux }, async () => {
  const base = await tempBase('arw-parent-dirs-swap-');
  const ws = join(base.dir, 'ws');
  const outside = join(base.dir, 'outside');
  mkdirSync(join(ws, 'a/b/c'), { recursive: true });
  mkdirSync(join(ws, 'a/b/d'), { recursive: true });
  mkdirSync(join(outside, 'd'), { recursive: true });
  const dirs = new ParentDirs(ws);
  try {
    dirs.acquire('a/b/c', true)!.release(); // holds a, a/b (on the way) and a/b/c
    // a/b moved aside (still inside the workspace) and a link to the outside put in its place
    renameSync(join(ws, 'a/b'), join(ws, 'a/b.away'));
    symlinkSync(outside, join(ws, 'a/b'));
    assert.throws(
      () => dirs.acquire('a/b/d', true),
      (err: Error) => err instanceof PathSafetyError && /symlink a\/b/.test(err.message),
    );
    assert.throws(() => dirs.acquire('a/b/new', true), PathSafetyError);
  } finally {
    dirs.close();
  }
  assert.deepEqual(readdirSync(join(ws, 'a/b.away')).sort(), ['c', 'd'], 'nothing made through the old descriptor');
  assert.deepEqual(readdirSync(outside), ['d'], 'nothing made outside');
  assert.equal(existsSync(join(outside, 'new')), false);
  await base.cleanup();
});
