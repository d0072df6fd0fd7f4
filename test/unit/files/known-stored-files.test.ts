// A snapshot rewrites the tree of every folder on the path to a change, and every file of those folders must be in
// the store: files the store saw committed under the same hash are not looked up again (ObjectStore.isKnownStored),
// as long as nothing can have left the store since, and only copies known to be blobs count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { readKnownFile } from '../../../src/core/files/safe-read';
import { storeTree } from '../../../src/core/files/scan/snapshot-writer';
import { emptyDir, encodeTree, type DirNode, type FileNode } from '../../../src/core/files/store/tree';
import { Limiter } from '../../../src/core/files/scan/workspace-model';
import { tempBase } from './helpers';

async function fileNode(abs: string, data: Buffer): Promise<FileNode> {
  await writeFile(abs, data);
  const st = lstatSync(abs);
  return { kind: 'file', mode: 0o644, size: data.length, mtimeMs: st.mtimeMs, ino: st.ino, hash: hashObject('blob', data) };
}

/** A workspace with one folder `a` of `n` files, and its model. */
async function workspace(ws: string, n: number): Promise<{ root: DirNode; a: DirNode }> {
  await mkdir(join(ws, 'a'), { recursive: true });
  const root = emptyDir();
  const a = emptyDir();
  root.children.set('a', a);
  for (let i = 0; i < n; i++) a.children.set(`f${i}.txt`, await fileNode(join(ws, 'a', `f${i}.txt`), Buffer.from(`file ${i}\n`)));
  return { root, a };
}

/** Counts the store's index lookups (has, isBlob, hasVerified) while `fn` runs. */
async function lookups(store: ObjectStore, fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const s = store as unknown as Record<'has' | 'isBlob' | 'hasVerified', (...a: unknown[]) => boolean>;
  const saved = { has: s.has, isBlob: s.isBlob, hasVerified: s.hasVerified };
  for (const k of ['has', 'isBlob', 'hasVerified'] as const)
    s[k] = function (this: unknown, ...args: unknown[]) {
      n++;
      return saved[k].apply(this, args);
    };
  try {
    await fn();
  } finally {
    Object.assign(s, saved);
  }
  return n;
}

async function snapshot(ws: string, store: ObjectStore, root: DirNode, opts?: { verify: Set<string> }): Promise<{ hash: string; written: number }> {
  const w = store.newPack(opts ? { verify: opts.verify } : {});
  const hash = await storeTree(ws, root, '', w, new Limiter(8), []);
  await w.commit(false);
  return { hash, written: w.objectCount };
}

test('a snapshot looks up only the changed file of a rewritten folder; after gc it looks up every file again', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const { root, a } = await workspace(ws, 50);
    const store = await ObjectStore.open(join(base.dir, 'store'));
    await snapshot(ws, store, root);

    const change = async (i: number) => {
      a.children.set(`f${i}.txt`, await fileNode(join(ws, 'a', `f${i}.txt`), Buffer.from(`file ${i} changed\n`)));
      a.hash = undefined;
      root.hash = undefined;
    };
    await change(7);
    // before: one lookup per file of the folder (50), now the changed file only (plus the trees of the two folders)
    assert.ok((await lookups(store, () => snapshot(ws, store, root))) <= 8);
    // the same holds for a verifying writer (a pre-restore snapshot) for files it need not verify
    await change(8);
    assert.ok((await lookups(store, () => snapshot(ws, store, root, { verify: new Set() }))) <= 8);

    // gc rewrites the packs: what was known stored may be gone, so every file is looked up again
    const live = new Set<string>([root.hash!, a.hash!, ...[...a.children.values()].map((n) => n.hash!)]);
    await store.gc(live);
    await change(9);
    assert.ok((await lookups(store, () => snapshot(ws, store, root))) >= 50);
  } finally {
    await base.cleanup();
  }
});

test('a file whose content hashes like a stored tree is not taken as a known stored blob', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const { root, a } = await workspace(ws, 3);
    const store = await ObjectStore.open(join(base.dir, 'store'));
    // 'tree\0' + a stored tree's encoding: its blob hash is that tree's hash
    const encoded = encodeTree([{ name: 'x', kind: 'file', mode: 0o644, hash: hashObject('blob', Buffer.from('x')), size: 1 }]);
    const w = store.newPack();
    await w.add('tree', hashObject('tree', encoded), encoded);
    await w.commit(false);
    const crafted = await fileNode(join(ws, 'a', 'crafted'), Buffer.concat([Buffer.from('tree\0'), encoded]));
    assert.equal(crafted.hash, hashObject('tree', encoded));
    a.children.set('crafted', crafted);
    // a plain snapshot dedupes against the tree copy, as it always did, but a verifying writer must not skip its check
    await snapshot(ws, store, root);
    assert.equal(store.isKnownStored(crafted), false);
    assert.equal(store.isKnownStored(a.children.get('f0.txt') as FileNode), true);
  } finally {
    await base.cleanup();
  }
});

test('a file read against a version known from before: the same content is taken at once, another is read afresh', async () => {
  const base = await tempBase();
  try {
    const p = join(base.dir, 'f.txt');
    const node = await fileNode(p, Buffer.from('one\n'));
    const hashOf = (d: Buffer) => hashObject('blob', d);
    const same = readKnownFile(p, node, hashOf);
    assert.equal(same.data.toString(), 'one\n');
    assert.equal(same.hash, node.hash);
    // changed since (same size): the known version does not stand in for the second read
    await writeFile(p, 'two\n');
    const changed = readKnownFile(p, node, hashOf);
    assert.equal(changed.data.toString(), 'two\n');
    assert.equal(changed.hash, hashOf(Buffer.from('two\n')));
  } finally {
    await base.cleanup();
  }
});
