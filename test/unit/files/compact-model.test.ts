// A long-lived (tracked) checkpointer keeps its tree compact: after a full check its model is rebuilt from the stat
// index it saved (typed arrays, folders expanded only where something looks), instead of an object per file. What it
// snapshots is unchanged (the equivalence property tests hold it on random trees); here: that the model is compact
// after the first snapshot and after a periodic full check, that folders are expanded only along changed paths, that
// listing the folders to watch expands none, and that snapshots and a rewind stay exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, type SnapshotSummary } from '../../../src/core/files';
import { IndexedDir } from '../../../src/core/files/scan/stat-index';
import type { DirNode } from '../../../src/core/files/store/tree';
import { readTree, tempBase, userAnchor, writeTree } from './helpers';

/** The model's folders that are objects (expanded), by walking only what is expanded. */
function expandedFolders(cp: FileCheckpointer): string[] {
  const root = (cp as unknown as { tracker: { model?: { root: DirNode } } }).tracker.model?.root;
  const out: string[] = [];
  const walk = (d: DirNode, rel: string) => {
    if (d instanceof IndexedDir && d.untouched) return;
    out.push(rel);
    for (const [name, c] of d.children) if (c.kind === 'dir') walk(c, rel === '' ? name : `${rel}/${name}`);
  };
  if (root) walk(root, '');
  return out;
}

const settle = () => new Promise((r) => setTimeout(r, 50)); // the compaction runs right after the operation

async function scratch(ws: string, home: string): Promise<string> {
  const fcp = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await fcp.snapshot('s', 'x')).root;
  } finally {
    await fcp.dispose();
    await rm(home, { recursive: true, force: true });
  }
}

test('a tracked checkpointer rebuilds its tree from the stat index after a full check, expands only changed paths, and stays exact', async () => {
  const base = await tempBase('arw-compact-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) files[`d${i % 3}/e${i % 2}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), fullCheckIntervalMs: 400 });
  try {
    await cp.startWatching();
    const first: SnapshotSummary = await cp.snapshot('s', 'u0');
    await settle();
    assert.deepEqual(expandedFolders(cp), [], 'compact after the first snapshot');
    assert.equal(first.root, await scratch(ws, join(base.dir, 'scratch-0')));

    await writeFile(join(ws, 'd1/e0/f4.txt'), 'changed\n');
    const second = await cp.snapshot('s', 'u1');
    assert.deepEqual(expandedFolders(cp).sort(), ['', 'd1', 'd1/e0'], 'only the path to the change is expanded');
    assert.equal(second.root, await scratch(ws, join(base.dir, 'scratch-1')));

    // the periodic full check (every 400 ms here) walks the whole tree into objects: compact again after it
    await new Promise((r) => setTimeout(r, 1000));
    await cp.listSnapshots('s'); // waits for the queue the check ran in
    await settle();
    assert.deepEqual(expandedFolders(cp), [], 'compact after the periodic full check');

    // a rewind through the compact tree: its preview, pre-restore snapshot and restore see every file as it is
    await writeFile(join(ws, 'd2/e1/f5.txt'), 'edited again\n');
    await writeFile(join(ws, 'd0/new.txt'), 'new\n');
    const before = await readTree(ws);
    const r = await cp.rewindFiles('s', 'u0', { anchor: userAnchor });
    assert.deepEqual([...r.filesChanged].sort(), ['d0/new.txt', 'd1/e0/f4.txt', 'd2/e1/f5.txt']);
    assert.equal(await scratch(ws, join(base.dir, 'scratch-2')), first.root, 'the files are those of u0');
    await cp.undoLastRewind('s');
    assert.deepEqual(await readTree(ws), before, 'undo puts back what the rewind replaced');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});
