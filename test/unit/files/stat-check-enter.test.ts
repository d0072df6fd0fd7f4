// The stat check that enters each folder (stat-check.ts, enteringSource; a CLI process only): it finds what the
// root-relative check finds, puts the process's folder back, and never looks at anything outside the workspace through
// a folder swapped for a symlink, before the check or between a folder's lstat and the move into it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, realpathSync, renameSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { nodeLstat, type RawLstat } from '../../../src/core/files/scan/raw-lstat';
import { changedSinceIndex } from '../../../src/core/files/scan/stat-check';
import { encodeStatIndex, StatIndex } from '../../../src/core/files/scan/stat-index';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';
import { PathFilter } from '../../../src/core/files/scan/path-filter';
import { DEFAULT_SCAN_TUNING } from '../../../src/core/files/types';
import { hashTrees } from '../../../src/core/files/store/tree';
import { FileCheckpointer } from '../../../src/core/files';
import { afterRacyWindow, tempBase, userAnchor, writeTree } from './helpers';

const posix = process.platform !== 'win32';

/** A workspace (a/, a/sub/, c/), an index of it, and an outside folder holding the same names as a/. */
async function setUp(prefix: string) {
  const base = await tempBase(prefix);
  const ws = join(base.dir, 'ws');
  mkdirSync(join(ws, 'a', 'sub'), { recursive: true });
  mkdirSync(join(ws, 'c'));
  for (let i = 0; i < 6; i++) writeFileSync(join(ws, 'a', `f${i}.txt`), `file ${i}\n`);
  writeFileSync(join(ws, 'a', 'sub', 'deep.txt'), 'deep\n');
  writeFileSync(join(ws, 'c', 'x.txt'), 'x\n');
  writeFileSync(join(ws, 'top.txt'), 'top\n');
  const outside = join(base.dir, 'outside');
  execFileSync('cp', ['-a', join(ws, 'a'), outside]);
  // old times everywhere, so that nothing is racy and every listing is trusted
  for (const p of execFileSync('find', [ws, outside], { encoding: 'utf8' }).trim().split('\n')) utimesSync(p, 1_500_000_000, 1_500_000_000);
  const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
  model.tuning = { ...DEFAULT_SCAN_TUNING, racyMs: -Infinity };
  await model.fullScan({ skipped: [], hashedFiles: 0 });
  hashTrees(model.root);
  const index = StatIndex.parse(encodeStatIndex('k', model.root), 'k');
  const fresh = () => new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
  return { base, ws, outside, index, fresh };
}

/** An lstat that remembers where each call looked a name up (its folder, through any symlink on the way), and which
 *  folders the process checked it was in (`.`: the folder itself, nothing in it). */
function recordingLstat(onCall?: (path: string) => void): { lstat: RawLstat; resolvedIn: string[]; selfChecks: string[] } {
  const real: RawLstat = nodeLstat() ?? ((p) => lstatSync(p, { throwIfNoEntry: false }));
  const resolvedIn: string[] = [];
  const selfChecks: string[] = [];
  return {
    resolvedIn,
    selfChecks,
    lstat: (p) => {
      const abs = isAbsolute(p) ? p : join(process.cwd(), p);
      try {
        if (p === '.') selfChecks.push(realpathSync(abs));
        else resolvedIn.push(realpathSync(dirname(abs)));
      } catch {
        resolvedIn.push(dirname(abs)); // a path that does not resolve looks at nothing
      }
      const st = real(p);
      onCall?.(p);
      return st;
    },
  };
}

function outsideLooks(resolvedIn: string[], ws: string): string[] {
  const root = realpathSync(ws);
  // the workspace's own lstat resolves in its parent folder
  return resolvedIn.filter((d) => d !== realpathSync(dirname(ws)) && d !== root && !d.startsWith(root + sep));
}

test('entering each folder finds what the root-relative check finds, and puts the process back where it was', { skip: !posix }, async () => {
  const { base, ws, index, fresh } = await setUp('arw-enter-same-');
  const was = process.cwd();
  try {
    writeFileSync(join(ws, 'a/f0.txt'), 'file 0 changed\n');
    utimesSync(join(ws, 'a/sub/deep.txt'), 1_600_000_000, 1_600_000_000);
    execFileSync('rm', [join(ws, 'c/x.txt')]);
    mkdirSync(join(ws, 'c/x.txt'));
    const rootRelative = changedSinceIndex(index, fresh(), ws + '/').sort();
    assert.deepEqual(rootRelative, ['a/f0.txt', 'a/sub/deep.txt', 'c']);
    for (const raw of [true, false]) {
      const { lstat, resolvedIn } = recordingLstat();
      assert.deepEqual(changedSinceIndex(index, fresh(), '', { enterFoldersOf: ws, ...(raw ? {} : { lstat }) }).sort(), rootRelative);
      assert.equal(process.cwd(), was);
      if (!raw) {
        assert.deepEqual(outsideLooks(resolvedIn, ws), []);
        // the files were looked up by bare name, from inside their folders
        assert.ok(resolvedIn.filter((d) => d === realpathSync(join(ws, 'a'))).length >= 6);
      }
    }
  } finally {
    process.chdir(was);
    await base.cleanup();
  }
});

test('a folder swapped for a symlink to outside before the check: reported, nothing outside looked at', { skip: !posix }, async () => {
  const { base, ws, outside, index, fresh } = await setUp('arw-enter-swapped-');
  const was = process.cwd();
  try {
    renameSync(join(ws, 'a'), join(base.dir, 'a-moved-away'));
    symlinkSync(outside, join(ws, 'a'));
    const { lstat, resolvedIn, selfChecks } = recordingLstat();
    // moving a/ away changed the root's listing: the root is looked at again whole, which takes the symlink
    assert.deepEqual(changedSinceIndex(index, fresh(), '', { enterFoldersOf: ws, lstat }).sort(), ['']);
    assert.deepEqual(outsideLooks(selfChecks, ws), []);
    assert.deepEqual(outsideLooks(resolvedIn, ws), []);
    assert.equal(process.cwd(), was);
  } finally {
    process.chdir(was);
    await base.cleanup();
  }
});

test('a folder swapped for a symlink between its lstat and the move into it: reported, nothing outside looked at', { skip: !posix }, async () => {
  const { base, ws, outside, index, fresh } = await setUp('arw-enter-race-');
  const was = process.cwd();
  try {
    let swapped = false;
    const { lstat, resolvedIn, selfChecks } = recordingLstat((p) => {
      if (swapped || p !== join(ws, 'a')) return;
      swapped = true; // right after the check looked at a/ and saw a real folder
      renameSync(join(ws, 'a'), join(base.dir, 'a-moved-away'));
      symlinkSync(outside, join(ws, 'a'));
    });
    const changed = changedSinceIndex(index, fresh(), '', { enterFoldersOf: ws, lstat }).sort();
    assert.ok(swapped);
    // the files of outside/ are the same bytes under the same names: only their identity tells them apart
    assert.deepEqual(changed, ['a']);
    assert.deepEqual(outsideLooks(resolvedIn, ws), []);
    // chdir followed the symlink; the check of where it landed is the only look at outside/, and not into it
    assert.deepEqual(outsideLooks(selfChecks, ws), [realpathSync(outside)]);
    assert.equal(process.cwd(), was);
  } finally {
    process.chdir(was);
    await base.cleanup();
  }
});

test('a checkpointer that owns its process folder enters folders in a fresh snapshot, and the snapshot is exact', { skip: !posix }, async () => {
  const base = await tempBase('arw-enter-fc-');
  const was = process.cwd();
  const realChdir = process.chdir.bind(process);
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a/f0.txt': 'zero\n', 'a/f1.txt': 'one\n', 'a/sub/deep.txt': 'deep\n', 'c/x.txt': 'x\n', 'top.txt': 'top\n' });
    const outside = join(base.dir, 'outside');
    await writeTree(outside, { 'x.txt': 'outside x\n', 'secret.txt': 'secret\n' });
    await afterRacyWindow(); // listings and files old enough for the stat index to trust them
    const first = new FileCheckpointer({ workspaceRoot: ws, home });
    await first.snapshot('S', 'u1');
    await first.dispose();
    writeFileSync(join(ws, 'a/f0.txt'), 'zero, changed\n');
    renameSync(join(ws, 'c'), join(base.dir, 'c-moved-away'));
    symlinkSync(outside, join(ws, 'c'));
    const entered = async (ownsProcessFolder: boolean, anchor: string) => {
      const into: string[] = [];
      process.chdir = (dir: string) => {
        into.push(dir);
        realChdir(dir);
      };
      const fc = new FileCheckpointer({ workspaceRoot: ws, home, shortLived: true, ownsProcessFolder });
      try {
        await fc.snapshot('S', anchor);
        process.chdir = realChdir;
        assert.equal(process.cwd(), was);
        // the snapshot is what is on disk: nothing to bring back, c/ a symlink (nothing of outside/ taken in)
        assert.deepEqual((await fc.rewindFiles('S', anchor, { dryRun: true, anchor: userAnchor })).files, []);
        const c = (await fc.rewindFiles('S', 'u1', { dryRun: true, anchor: userAnchor })).files.map((f) => f.path).sort();
        assert.deepEqual(c, ['a/f0.txt', 'c', 'c/x.txt']);
      } finally {
        process.chdir = realChdir;
        await fc.dispose();
      }
      return into;
    };
    const root = realpathSync(ws);
    const withIt = await entered(true, 'u2');
    assert.ok(withIt.includes(join(root, 'a')) && withIt.includes(join(root, 'a/sub')), withIt.join(' '));
    assert.ok(!withIt.some((d) => d.startsWith(realpathSync(outside)) || d === join(root, 'c')));
    assert.deepEqual(await entered(false, 'u3'), []);
  } finally {
    process.chdir = realChdir;
    realChdir(was);
    await base.cleanup();
  }
});
