// A long-lived (tracked) checkpointer keeps its tree compact: after a full check its model is rebuilt from the stat
// index it saved (typed arrays, folders expanded only where something looks), instead of an object per file. What it
// snapshots is unchanged (the equivalence property tests hold it on random trees); here: that the model is compact
// after the first snapshot and after a periodic full check, that folders are expanded only along changed paths, that
// listing the folders to watch expands none, and that snapshots and a rewind stay exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, type SnapshotSummary } from '../../../src/core/files';
import { IndexedDir, StatIndex } from '../../../src/core/files/scan/stat-index';
import { collectGarbage } from '../../../src/core/collect-garbage';
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

/** The compaction runs right after the operation that asked for it, in the checkpointer's queue: waits for it (polls
 *  for at most 10 s, on a busy machine). */
async function settle(cp: FileCheckpointer): Promise<void> {
  for (let i = 0; i < 200 && expandedFolders(cp).length > 0; i++) {
    await cp.listSnapshots('s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

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
  const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), fullCheckIntervalMs: 3_600_000 });
  try {
    await cp.startWatching();
    const first: SnapshotSummary = await cp.snapshot('s', 'u0');
    await settle(cp);
    assert.deepEqual(expandedFolders(cp), [], 'compact after the first snapshot');
    assert.equal(first.root, await scratch(ws, join(base.dir, 'scratch-0')));

    await writeFile(join(ws, 'd1/e0/f4.txt'), 'changed\n');
    const second = await cp.snapshot('s', 'u1');
    assert.deepEqual(expandedFolders(cp).sort(), ['', 'd1', 'd1/e0'], 'only the path to the change is expanded');
    assert.equal(second.root, await scratch(ws, join(base.dir, 'scratch-1')));

    // a full check (the watcher overflowed) walks the whole tree into objects: compact again after it
    cp.markAllDirty();
    assert.equal((await cp.snapshot('s', 'u2')).root, second.root);
    await settle(cp);
    assert.deepEqual(expandedFolders(cp), [], 'compact after a full check');

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

test('a tracked checkpointer that starts from a saved stat index expands nothing to list the folders it watches, and watches them all', async () => {
  const base = await tempBase('arw-compact-start-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`p${i % 2}/q${i % 4}/r${i % 5}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const home = join(base.dir, 'home');
  // files written moments ago are hashed again by every check (racy timestamps): a short window, and older files
  const tuning = { racyMs: 50 };
  await new Promise((r) => setTimeout(r, 200));
  const first = new FileCheckpointer({ workspaceRoot: ws, home, tuning });
  await first.snapshot('s', 'u0');
  await first.dispose();
  const cp = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000, tuning });
  try {
    await cp.startWatching();
    await cp.snapshot('s', 'u1'); // checks the tree against the loaded index, then lists the folders to watch
    assert.deepEqual(expandedFolders(cp), [], 'nothing expanded, before any compaction ran');
    // every folder is watched: a change deep down is seen through the watcher (no full check: the index stays)
    const index = await readFile(join(cp.storeDir, 'stat-index.bin'));
    await writeFile(join(ws, 'p1/q3/r4/f39.txt'), 'changed deep\n');
    await writeFile(join(ws, 'p0/q2/r1/new.txt'), 'new deep\n');
    const got = await cp.snapshot('s', 'u2');
    assert.equal(got.root, await scratch(ws, join(base.dir, 'scratch')));
    assert.ok((await readFile(join(cp.storeDir, 'stat-index.bin'))).equals(index), 'seen through the watcher, not a full check');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});

test('the periodic full check of a tracked checkpointer leaves its tree compact', async () => {
  const base = await tempBase('arw-compact-periodic-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`d${i % 3}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), fullCheckIntervalMs: 300 });
  try {
    await cp.startWatching();
    await cp.snapshot('s', 'u0');
    await writeFile(join(ws, 'd1/f4.txt'), 'changed\n');
    await cp.snapshot('s', 'u1');
    assert.notDeepEqual(expandedFolders(cp), [], 'the path to the change is expanded');
    // the check runs every 300 ms here, with nothing asked of the checkpointer: it walks the whole tree into objects
    // and the tree is rebuilt from the index right after
    await new Promise((r) => setTimeout(r, 1500));
    await settle(cp);
    assert.deepEqual(expandedFolders(cp), [], 'compact after the periodic check');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});

test('the stat index a tracked checkpointer loaded is collected as soon as its tree is rebuilt from the one it saved', async () => {
  const base = await tempBase('arw-compact-collect-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const home = join(base.dir, 'home');
  // files written moments ago are hashed again by every check (racy timestamps): a short window, and older files,
  // so that the check finds nothing changed and the tree stays the loaded index's
  const tuning = { racyMs: 50 };
  await new Promise((r) => setTimeout(r, 200));
  const first = new FileCheckpointer({ workspaceRoot: ws, home, tuning });
  await first.snapshot('s', 'u0');
  await first.dispose();
  const cp = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000, tuning });
  const rootIndex = () => ((cp as unknown as { tracker: { model?: { root: DirNode } } }).tracker.model?.root as IndexedDir | undefined)?.index;
  try {
    await cp.startWatching();
    await cp.snapshot('s', 'u1'); // loads the index, checks the tree against it, saves a new one
    assert.ok(rootIndex(), 'the tree comes from the loaded index until the compaction runs');
    // in V8's old space, where only a full collection frees it (a service's 18 MB at 200,000 files): the test's own
    // collection moves it there while the tree still holds it (and the test keeps it in no variable of its own)
    assert.ok(collectGarbage());
    const ref = new WeakRef(rootIndex()!);
    for (let i = 0; i < 200 && rootIndex() === ref.deref(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.notEqual(rootIndex(), undefined);
    await new Promise((r) => setImmediate(r)); // a WeakRef holds its target until the turn that read it ends
    assert.equal(ref.deref(), undefined, 'the loaded index is freed with the compaction, not at some later full collection');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});

test(
  "a tracked checkpointer's compact tree reads its files' names, numbers and hashes from the stat index file it saved, and stays exact when that file is replaced",
  { skip: process.platform === 'win32' },
  async () => {
    const base = await tempBase('arw-compact-disk-');
    const ws = join(base.dir, 'ws');
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d${i % 4}/e${i % 3}/f${i}.txt`] = `content ${i}\n`;
    await writeTree(ws, files);
    const tuning = { racyMs: 50 };
    await new Promise((r) => setTimeout(r, 200));
    const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), fullCheckIntervalMs: 3_600_000, tuning });
    const rootIndex = () => ((cp as unknown as { tracker: { model?: { root: DirNode } } }).tracker.model?.root as IndexedDir | undefined)?.index;
    try {
      await cp.startWatching();
      await cp.snapshot('s', 'u0');
      for (let i = 0; i < 200 && !(rootIndex() instanceof StatIndex && rootIndex()!.onDisk); i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(rootIndex()?.onDisk, true, 'left in the file it saved');
      // another process replaces the file (as a fresh process's save does, by a rename): the tree reads the one it checked
      const file = join(cp.storeDir, 'stat-index.bin');
      await writeFile(`${file}.other`, 'not an index');
      await rename(`${file}.other`, file);
      await writeFile(join(ws, 'd1/e2/f5.txt'), 'changed\n');
      await writeFile(join(ws, 'd3/e0/new.txt'), 'new\n');
      await new Promise((r) => setTimeout(r, 200)); // not racy: the full check below reads neither again
      const second = await cp.snapshot('s', 'u1');
      assert.equal(second.root, await scratch(ws, join(base.dir, 'scratch-1')));
      assert.equal(second.hashedFiles, 2, 'only the two changed files read');
      // a full check walks every folder, each read from that file
      cp.markAllDirty();
      const third = await cp.snapshot('s', 'u2');
      assert.equal(third.root, second.root);
      assert.equal(third.hashedFiles, 0);
    } finally {
      await cp.dispose();
      await base.cleanup();
    }
  },
);
