// Attribution reads the timeline's changed-path index (timeline-changes.ts) for the points between the message and
// now: the trees of those points are read only on the way to the files the index says changed there, and the answer
// is the one comparing every pair of trees gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { ObjectStore } from '../../../src/core/files/store/object-store';
import { TreeReader } from '../../../src/core/files/store/tree-diff';
import { TIMELINE_CHANGES_FILE } from '../../../src/core/files/timeline-changes';
import { tempBase, userAnchor, writeTree } from './helpers';

/** A session's turns change `d0/f.txt` and put it back, then change `d5/g.txt`; the user edits `top.txt`. */
async function scenario(fn: (ctx: { ws: string; home: string; a: FileCheckpointer }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-attribution-index-');
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  await writeTree(ws, { 'd0/f.txt': 'f0\n', 'd0/other.txt': 'o0\n', 'd5/g.txt': 'g0\n', 'd5/h.txt': 'h0\n', 'top.txt': 't0\n' });
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const edit = (rel: string, text: string) => writeFile(join(ws, rel), text);
  try {
    await a.snapshot('A', 'u1', 'user-message');
    await edit('d0/f.txt', 'f1 by A\n');
    await a.snapshot('A', 'r1', 'turn-end');
    await edit('d0/f.txt', 'f0\n'); // as it was at u1 again
    await a.snapshot('A', 'u2', 'user-message');
    await edit('d5/g.txt', 'g1 by A\n');
    await a.snapshot('A', 'r2', 'turn-end');
    await edit('top.txt', 't1 by hand\n');
    await fn({ ws, home, a });
  } finally {
    await a.dispose();
    await base.cleanup();
  }
}

const changedBy = (files: { path: string; changedBy?: string }[]) => files.map((f) => `${f.path}:${f.changedBy}`);

test('a dry run reads no tree of the points since the message on the way to files that are as they were then (the index says where each changed)', async () => {
  await scenario(async ({ a }) => {
    const store = await ObjectStore.open(a.storeDir);
    const d0Trees = new Set<string>();
    try {
      for (const p of await a.timelinePoints()) d0Trees.add((await new TreeReader(store).entries(p.root)).get('d0')!.hash);
    } finally {
      await store.closeHandles();
    }
    assert.equal(d0Trees.size, 2, 'd0 has two versions on the timeline');
    const read = new Set<string>();
    const entries = TreeReader.prototype.entries;
    TreeReader.prototype.entries = function (this: TreeReader, hash: string) {
      read.add(hash);
      return entries.call(this, hash);
    };
    let dry;
    try {
      dry = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor });
    } finally {
      TreeReader.prototype.entries = entries;
    }
    assert.equal(dry.canRewind, true, dry.error);
    assert.deepEqual(changedBy(dry.files), ['d5/g.txt:this-session', 'top.txt:user']);
    assert.deepEqual(
      [...d0Trees].filter((h) => read.has(h)),
      [],
      'a tree of d0, where nothing differs from the message, was read',
    );
  });
});

test('the answer from the index is the one from the trees: the same dry run with the index gone, and with it damaged', async () => {
  await scenario(async ({ ws, home, a }) => {
    const withIndex = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor });
    const fromU2 = await a.rewindFiles('A', 'u2', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(changedBy(withIndex.files), ['d5/g.txt:this-session', 'top.txt:user']);
    assert.deepEqual(changedBy(fromU2.files), ['d5/g.txt:this-session', 'top.txt:user']);
    const index = join(a.storeDir, TIMELINE_CHANGES_FILE);
    for (const damage of ['garbage', 'gone'] as const) {
      if (damage === 'garbage') await writeFile(index, 'not a line\n');
      else await rm(index, { force: true });
      const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        assert.deepEqual((await fresh.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor })).files, withIndex.files, damage);
        assert.deepEqual((await fresh.rewindFiles('A', 'u2', { dryRun: true, anchor: userAnchor })).files, fromU2.files, damage);
      } finally {
        await fresh.dispose();
      }
    }
  });
});
