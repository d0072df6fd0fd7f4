// A restore's own temp files (Restorer: `.arw-<tag>-<i>.tmp`) come and go within the restore: the watcher's reports of
// them are dropped by the tracker, so the snapshot after a rewind does not look for them nor list every folder they
// were in again (change-tracker.ts, noteOwnTemps); a failed restore marks everything dirty instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { restoreFaults } from '../../../src/core/files/restore/restore';
import type { ChangeTracker } from '../../../src/core/files/scan/change-tracker';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';
import { tempBase, userAnchor, writeTree } from './helpers';

async function workspace(n: number) {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`d${i % 8}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const past = new Date(Date.now() - 60_000);
  for (const f of Object.keys(files)) await utimes(join(ws, f), past, past);
  return { ws, home: join(base.dir, 'home'), files: Object.keys(files), cleanup: base.cleanup };
}

/** Counts WorkspaceModel's re-listings of a folder to count its ignored names while `fn` runs. */
async function countRecounts<T>(fn: () => Promise<T>): Promise<{ value: T; recounts: number }> {
  const proto = WorkspaceModel.prototype as unknown as { recountIgnored(rel: string): Promise<void> };
  const original = proto.recountIgnored;
  let recounts = 0;
  proto.recountIgnored = function (this: unknown, rel: string) {
    recounts++;
    return original.call(this, rel);
  };
  try {
    return { value: await fn(), recounts };
  } finally {
    proto.recountIgnored = original;
  }
}

test("the tracker drops reports of its own restores' temp files only, of the tags it was told of", async () => {
  const { ws, home, cleanup } = await workspace(4);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u1'); // tracking: reports are kept one by one from now on
    const tracker = (fc as unknown as { tracker: Pick<ChangeTracker, 'noteOwnTemps'> & { dirty: Set<string> | 'all' } }).tracker;
    tracker.noteOwnTemps('mabc123');
    fc.notifyChanged(['d0/.arw-mabc123-0.tmp', join(ws, 'd1/.arw-mabc123r-7.tmp'), 'd0/.arw-other1-0.tmp', 'd0/.arw-mabc123-0.tmp.bak', 'd0/f0.txt']);
    assert.notEqual(tracker.dirty, 'all');
    assert.deepEqual([...(tracker.dirty as Set<string>)].sort(), ['d0/.arw-mabc123-0.tmp.bak', 'd0/.arw-other1-0.tmp', 'd0/f0.txt']);
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('the snapshot after a rewind does not list again the folders its temp files were in, and is exact', async () => {
  const { ws, home, files, cleanup } = await workspace(64);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    await fc.startWatching();
    await fc.snapshot('s', 'u1');
    for (const f of files.slice(0, 40)) await writeFile(join(ws, f), 'edited\n');
    await fc.snapshot('s', 'u2');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    const { value: after, recounts } = await countRecounts(() => fc.snapshot('s', 'u3'));
    assert.equal(recounts, 0, 'no folder listed again for names that came and went within the restore');
    await fc.dispose();
    const full = await new FileCheckpointer({ workspaceRoot: ws, home: join(home, 'other') }).snapshot('s', 'u3');
    assert.equal(after.root, full.root);
  } finally {
    await cleanup();
  }
});

test('a rewind that fails part-way leaves the next snapshot to check everything: it is exact', async () => {
  const { ws, home, files, cleanup } = await workspace(32);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    await fc.startWatching();
    await fc.snapshot('s', 'u1');
    for (const f of files.slice(0, 20)) await writeFile(join(ws, f), 'edited\n');
    await fc.snapshot('s', 'u2');
    let writes = 0;
    restoreFaults.hook = (step, _rel, rollingBack) => {
      if (step === 'write' && !rollingBack && ++writes === 10) throw new Error('disk full');
    };
    try {
      await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), /disk full/);
    } finally {
      restoreFaults.hook = undefined;
    }
    const dirty = (fc as unknown as { tracker: { dirty: unknown } }).tracker.dirty;
    assert.equal(dirty, 'all');
    const after = await fc.snapshot('s', 'u3');
    await fc.dispose();
    const full = await new FileCheckpointer({ workspaceRoot: ws, home: join(home, 'other') }).snapshot('s', 'u3');
    assert.equal(after.root, full.root);
  } finally {
    await cleanup();
  }
});
