// A rewind's plan checks its paths on disk twice back to back: the restore's refusals (checkPlannedPaths), then a
// report the watcher missed (differingOnDisk). The two share one lstat per path and folder (LstatMoment), and each
// still reaches its own verdict: a folder swapped for a symlink is refused, an edit the model missed is found.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs, { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPlannedPaths, orderOps, type RestoreOp } from '../../../src/core/files/restore/restore';
import { LstatMoment } from '../../../src/core/files/scan/lstat-moment';
import { PathFilter } from '../../../src/core/files/scan/path-filter';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';
import { hashTrees } from '../../../src/core/files/store/tree';
import { PathSafetyError } from '../../../src/core/files/safe-paths';
import { tempBase } from './helpers';

const FILES = ['d/e/f1.txt', 'd/e/f2.txt', 'd/g/h.txt', 'top.txt'];

async function scanned(ws: string): Promise<WorkspaceModel> {
  for (const f of FILES) {
    mkdirSync(join(ws, f, '..'), { recursive: true });
    writeFileSync(join(ws, f), `${f}\n`);
  }
  const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
  await model.fullScan({ skipped: [], hashedFiles: 0 });
  hashTrees(model.root);
  return model;
}

const rewrites = (paths: string[]): RestoreOp[] =>
  paths.map((path) => ({ path, from: { kind: 'file', hash: 'a'.repeat(64), mode: 0o644 }, to: { kind: 'file', hash: 'b'.repeat(64), mode: 0o644 } }));

/** The paths lstatSync is called on while `fn` runs, relative to `ws`. */
function lstatsDuring(ws: string, fn: () => void): string[] {
  const seen: string[] = [];
  const real = fs.lstatSync;
  const spy = mock.method(fs, 'lstatSync', (p: fs.PathLike, o?: fs.StatSyncOptions) => {
    seen.push(String(p).slice(ws.length + 1));
    return real(p, o);
  });
  try {
    fn();
  } finally {
    spy.mock.restore();
  }
  return seen;
}

test("the plan's path check and the missed-report re-check look at each path and folder once between them", async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const model = await scanned(ws);
    writeFileSync(join(ws, 'd/g/h.txt'), 'edited by hand, never reported\n');
    let differing: string[] = [];
    const seen = lstatsDuring(ws, () => {
      const onDisk = new LstatMoment(ws);
      checkPlannedPaths(ws, orderOps(rewrites(FILES)), undefined, onDisk);
      differing = model.differingOnDisk(FILES, undefined, onDisk);
      onDisk.close();
    });
    assert.deepEqual(differing, ['d/g/h.txt'], 'the edit the model missed is found');
    assert.deepEqual([...seen].sort(), ['d', 'd/e', 'd/e/f1.txt', 'd/e/f2.txt', 'd/g', 'd/g/h.txt', 'top.txt']);
  } finally {
    await base.cleanup();
  }
});

test('with the lstats shared, a folder swapped for a symlink is still refused and still found differing', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const model = await scanned(ws);
    const outside = join(base.dir, 'outside');
    mkdirSync(join(outside, 'e'), { recursive: true });
    writeFileSync(join(outside, 'e/f1.txt'), 'd/e/f1.txt\n');
    rmSync(join(ws, 'd'), { recursive: true });
    symlinkSync(outside, join(ws, 'd'));
    const onDisk = new LstatMoment(ws);
    assert.throws(() => checkPlannedPaths(ws, orderOps(rewrites(FILES)), undefined, onDisk), PathSafetyError);
    assert.deepEqual(model.differingOnDisk(FILES, undefined, onDisk), ['d'], 'the folder itself, never what is below it through the link');
  } finally {
    await base.cleanup();
  }
});

test('a closed moment answers from the disk again', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const onDisk = new LstatMoment(ws);
    assert.equal(onDisk.lstat('a.txt')?.size, 4);
    writeFileSync(join(ws, 'a.txt'), 'three\n');
    assert.equal(onDisk.lstat('a.txt')?.size, 4, 'the same moment, the same answer');
    onDisk.close();
    assert.equal(onDisk.lstat('a.txt')?.size, 6);
    assert.equal(onDisk.lstat('gone.txt'), undefined);
  } finally {
    await base.cleanup();
  }
});
