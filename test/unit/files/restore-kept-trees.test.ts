// A rewind's pre-restore point gets its changed-path line (timeline-changes.ts) from the folder trees its dry run read
// and its snapshot wrote, kept in memory (tree-cache.ts), once the rewind has answered: no tree is read from the store
// again for it, and the line is the one the store's trees give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { ObjectStore } from '../../../src/core/files/store/object-store';
import { TreeCache } from '../../../src/core/files/store/tree-cache';
import { TreeReader } from '../../../src/core/files/store/tree-diff';
import { changedPaths, TIMELINE_CHANGES_FILE } from '../../../src/core/files/timeline-changes';
import type { TreeEntry } from '../../../src/core/files/store/tree';
import { tempBase, userAnchor, writeTree } from './helpers';

const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`pkg${i % 3}/mod${i % 5}/f${i}.txt`, `line ${i}\n`.repeat(10)]));

async function countTreeReads<T>(fn: () => Promise<T>): Promise<{ value: T; reads: number }> {
  const orig = ObjectStore.prototype.read;
  let reads = 0;
  ObjectStore.prototype.read = function (this: ObjectStore, hash: string, kind, path?: string) {
    if (kind === 'tree') reads++;
    return orig.call(this, hash, kind, path);
  };
  try {
    return { value: await fn(), reads };
  } finally {
    ObjectStore.prototype.read = orig;
  }
}

test("a rewind's pre-restore changed-path line comes from the trees kept in memory, and is the store's", async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, files);
    const home = join(base.dir, 'home');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot('s', 'u1');
    // edits since the last point, spread over folders, so the point before and the pre-restore point differ
    const edited = Object.keys(files).filter((_, i) => i % 4 === 0);
    for (const rel of edited) await writeFile(join(ws, rel), 'changed\n');
    await writeFile(join(ws, 'pkg1/new.txt'), 'new\n');
    const preview = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(preview.filesChanged.length, edited.length + 1);
    const { reads } = await countTreeReads(async () => {
      await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
      await fc.dispose(); // waits for the line the rewind left to write after it answered
    });
    assert.equal(reads, 0, 'trees read from the store for the rewind and its line');
    const points = await fc.timeline.points();
    const [before, pre] = points.slice(-2);
    assert.equal(pre!.anchorId.startsWith('pre-restore:'), true);
    const lines = (await readFile(join(fc.storeDir, TIMELINE_CHANGES_FILE), 'utf8')).split('\n').filter((l) => l !== '');
    const line = lines.map((l) => JSON.parse(l.slice(9)) as { from: string; to: string; paths: unknown }).find((l) => l.to === pre!.root);
    assert.ok(line, 'the pre-restore point has its line');
    assert.equal(line.from, before!.root);
    const store = await ObjectStore.open(fc.storeDir);
    try {
      assert.deepEqual(line.paths, await changedPaths(new TreeReader(store), before!.root, pre!.root));
    } finally {
      await store.closeHandles();
    }
    // history and blame read from the index what they compute without it (fresh processes, as the CLI's)
    const answers = async () => {
      const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        return JSON.stringify([await fresh.fileHistory(edited[0]!), await fresh.blame(edited[0]!), await fresh.fileHistory('pkg1/new.txt')]);
      } finally {
        await fresh.dispose();
      }
    };
    const withIndex = await answers();
    await rm(join(fc.storeDir, TIMELINE_CHANGES_FILE));
    assert.equal(await answers(), withIndex);
  } finally {
    await base.cleanup();
  }
});

const entry = (name: string): TreeEntry => ({ name, kind: 'file', mode: 0o644, hash: 'a'.repeat(64), size: 1 });
const tree = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => entry(`${prefix}${i}`));

test('the tree cache keeps at most its number of entries, dropping the least recently used trees first', () => {
  const cache = new TreeCache(10);
  cache.setEntries('t1', tree(4, 'a'));
  cache.setEntries('t2', tree(4, 'b'));
  assert.ok(cache.get('t1')); // t1 is now the more recently used
  cache.setEntries('t3', tree(4, 'c')); // 12 entries: t2 goes
  assert.equal(cache.get('t2'), undefined);
  assert.deepEqual([...cache.get('t1')!.keys()], ['a0', 'a1', 'a2', 'a3']);
  assert.ok(cache.get('t3'));
  cache.setEntries('big', tree(11, 'd')); // larger than the cache: not kept, nothing dropped for it
  assert.equal(cache.get('big'), undefined);
  assert.equal(cache.size, 2);
});

test('the tree cache does not keep a tree with a name a reader of its object would leave out', () => {
  const cache = new TreeCache();
  cache.setEntries('t', [entry('ok'), entry('x'.repeat(300))]);
  assert.equal(cache.get('t'), undefined);
});

test("a long-lived checkpointer whose pack was cut short to nothing: the preview refuses with the rewind's reason, as a fresh process does", async () => {
  // the snapshot's trees were kept in memory when it wrote them; a plan that took them from there met the damage at
  // the file's blob where the rewind, whose locked reload repairs the pack first, met it at the root folder
  // (preview-agrees, fast-check seed 1648434217)
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    try {
      fc.notifyChanged([]); // tracking, as the service's and the extension's
      await fc.snapshot('s', 'u1');
      await writeFile(join(ws, 'a.txt'), '');
      fc.notifyChanged(['a.txt']);
      const packDir = join(fc.storeDir, 'packs');
      const packs = (await readdir(packDir)).filter((n) => n.endsWith('.pack'));
      assert.equal(packs.length, 1);
      await truncate(join(packDir, packs[0]!), 0);
      const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
      const refused = await fc.rewindFiles('s', 'u1', { anchor: userAnchor }).then(
        () => undefined,
        (err: Error) => err.message,
      );
      assert.ok(refused, 'the rewind is refused');
      assert.equal(dry.canRewind, false);
      assert.equal(dry.error, `Cannot preview the rewind: ${refused}`);
      assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), '');
    } finally {
      await fc.dispose();
    }
  } finally {
    await base.cleanup();
  }
});
