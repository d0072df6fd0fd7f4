// lstat through Node's fs binding (raw-lstat.ts): where it is used, it answers exactly as fs.lstatSync for every kind
// of path the stat check meets, and the stat check finds the same changes with it as without it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeLstat } from '../../../src/core/files/scan/raw-lstat';
import { changedSinceIndex } from '../../../src/core/files/scan/stat-check';
import { encodeStatIndex, StatIndex } from '../../../src/core/files/scan/stat-index';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';
import { PathFilter } from '../../../src/core/files/scan/path-filter';
import { hashTrees } from '../../../src/core/files/store/tree';
import { tempBase } from './helpers';

const posix = process.platform !== 'win32';

test('Node 20 and 22 on POSIX: the binding is used', { skip: !posix || !/^v(20|22)\./.test(process.version) }, () => {
  assert.equal(typeof nodeLstat(), 'function');
});

test('the raw lstat answers as lstatSync: files, folders, symlinks (not followed), a FIFO, missing and through-a-file paths', { skip: !posix }, async () => {
  const raw = nodeLstat();
  if (!raw) return;
  const base = await tempBase('arw-raw-lstat-');
  try {
    const d = base.dir;
    writeFileSync(join(d, 'f.txt'), 'hello');
    utimesSync(join(d, 'f.txt'), 1_700_000_000.123456, 1_700_000_001.987654);
    mkdirSync(join(d, 'sub'));
    symlinkSync('f.txt', join(d, 'link'));
    symlinkSync('nowhere', join(d, 'dangling'));
    execFileSync('mkfifo', [join(d, 'fifo')]);
    for (const name of ['f.txt', 'sub', 'link', 'dangling', 'fifo', '.']) {
      const p = join(d, name);
      const want = lstatSync(p);
      const got = raw(p);
      assert.deepEqual(got && { ...got }, { mode: want.mode, size: want.size, mtimeMs: want.mtimeMs, ino: want.ino }, name);
    }
    assert.equal(raw(join(d, 'missing')), undefined);
    assert.equal(raw(join(d, 'f.txt', 'below')), undefined);
    assert.equal(raw(join(d, 'link', 'below')), undefined);
  } finally {
    await base.cleanup();
  }
});

test('the stat check finds the same changes through the binding as through lstatSync', { skip: !posix }, async () => {
  const base = await tempBase('arw-raw-check-');
  try {
    const ws = join(base.dir, 'ws');
    mkdirSync(join(ws, 'a', 'b'), { recursive: true });
    mkdirSync(join(ws, 'c'));
    for (let i = 0; i < 40; i++) writeFileSync(join(ws, i % 2 ? 'a' : 'a/b', `f${i}.txt`), `file ${i}\n`);
    writeFileSync(join(ws, 'c/x.txt'), 'x\n');
    // old times everywhere, so that nothing is racy and every listing is trusted
    for (const p of execFileSync('find', [ws], { encoding: 'utf8' }).trim().split('\n')) utimesSync(p, 1_500_000_000, 1_500_000_000);
    const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
    await model.fullScan({ skipped: [], hashedFiles: 0 });
    hashTrees(model.root);
    const index = StatIndex.parse(encodeStatIndex('k', model.root), 'k');
    // in a/b a new content and a new time only (its listing holds); in a a removed file; in c a file turned folder
    writeFileSync(join(ws, 'a/b/f0.txt'), 'file 0 changed\n');
    utimesSync(join(ws, 'a/b/f2.txt'), 1_600_000_000, 1_600_000_000);
    execFileSync('rm', [join(ws, 'a/f3.txt'), join(ws, 'c/x.txt')]);
    mkdirSync(join(ws, 'c/x.txt'));
    const prefix = ws + '/';
    const fresh = () => new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
    const viaLstatSync = changedSinceIndex(index, fresh(), prefix, { raw: false }).sort();
    const viaBinding = changedSinceIndex(index, fresh(), prefix).sort();
    assert.deepEqual(viaBinding, viaLstatSync);
    assert.deepEqual(viaLstatSync, ['a', 'a/b/f0.txt', 'a/b/f2.txt', 'c']);
  } finally {
    await base.cleanup();
  }
});
