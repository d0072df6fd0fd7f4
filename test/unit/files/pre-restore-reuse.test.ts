// A rewind's pre-restore snapshot stores the bytes its preview read of the files it replaces (Plan.current) instead of
// reading each again, but only for a file whose stat data on disk is still what the model read: a file changed since
// is read again, so the snapshot (what the undo brings back) holds the bytes on disk, never the preview's.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs, { lstatSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { storeTree } from '../../../src/core/files/scan/snapshot-writer';
import { emptyDir, readTree, type FileNode } from '../../../src/core/files/store/tree';
import { Limiter } from '../../../src/core/files/scan/workspace-model';
import { unchangedSince } from '../../../src/core/files/safe-read';
import { tempBase } from './helpers';

async function fileNode(abs: string, data: Buffer): Promise<FileNode> {
  await writeFile(abs, data);
  const st = lstatSync(abs);
  return { kind: 'file', mode: 0o644, size: data.length, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev, hash: hashObject('blob', data) };
}

test('the pre-restore snapshot takes the preview’s bytes of an unchanged file, and reads a file changed since again', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await mkdir(ws, { recursive: true });
    const kept = Buffer.from('as the preview read it\n');
    const before = Buffer.from('before the edit\n');
    const root = emptyDir();
    root.children.set('kept.txt', await fileNode(join(ws, 'kept.txt'), kept));
    root.children.set('edited.txt', await fileNode(join(ws, 'edited.txt'), before));
    // what the preview read, by hash
    const current = new Map([
      [hashObject('blob', kept), kept],
      [hashObject('blob', before), before],
    ]);
    // edited after the preview read it (another size, so its stat data differs whatever the clock's tick)
    const after = Buffer.from('edited after the preview, before the rewind\n');
    await writeFile(join(ws, 'edited.txt'), after);

    const store = await ObjectStore.open(join(base.dir, 'store'));
    const w = store.newPack();
    const top = await storeTree(ws, root, '', w, new Limiter(8), [], undefined, current);
    await w.commit(false);
    const entries = new Map((await readTree(store, top)).map((e) => [e.name, e]));
    assert.equal(entries.get('kept.txt')?.hash, hashObject('blob', kept));
    assert.equal(entries.get('edited.txt')?.hash, hashObject('blob', after), 'the file edited since the preview is stored as it is on disk');
    assert.deepEqual(await store.read(entries.get('edited.txt')!.hash, 'blob'), after);
    assert.deepEqual(await store.read(entries.get('kept.txt')!.hash, 'blob'), kept);
  } finally {
    await base.cleanup();
  }
});

test('a file written in the last second is read again, though its stat data is what the preview saw', async () => {
  // Two writes of the same size in one timestamp tick keep every stat field: the preview read the first, the disk
  // holds the second. Only a second read tells them apart, so a recent file's preview bytes are never reused.
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await mkdir(ws, { recursive: true });
    const seen = Buffer.from('what the preview read\n');
    const onDisk = Buffer.from('same tick, other bytes');
    assert.equal(seen.length, onDisk.length);
    const node = await fileNode(join(ws, 'racy.txt'), onDisk);
    Object.assign(node, { hash: hashObject('blob', seen) }); // the model's view: the first write's bytes, the same stat
    const root = emptyDir();
    root.children.set('racy.txt', node);
    const store = await ObjectStore.open(join(base.dir, 'store'));
    const w = store.newPack();
    const top = await storeTree(ws, root, '', w, new Limiter(8), [], undefined, new Map([[hashObject('blob', seen), seen]]));
    await w.commit(false);
    const entry = (await readTree(store, top)).find((e) => e.name === 'racy.txt');
    assert.equal(entry?.hash, hashObject('blob', onDisk), "the snapshot holds the bytes on disk, not the preview's");
  } finally {
    await base.cleanup();
  }
});

test('a file written in the last second is not even lstat-ed for the reuse: it would be read again whatever the lstat said', async () => {
  const base = await tempBase();
  try {
    const abs = join(base.dir, 'recent.txt');
    const node = await fileNode(abs, Buffer.from('just written\n'));
    const calls = mock.method(fs, 'lstatSync');
    try {
      assert.equal(unchangedSince(abs, node), false);
      assert.equal(calls.mock.callCount(), 0);
      // a version from over a second ago is looked at on disk (here it no longer matches: the file is newer)
      assert.equal(unchangedSince(abs, { ...node, mtimeMs: node.mtimeMs - 5000, ctimeMs: node.ctimeMs - 5000 }), false);
      assert.equal(calls.mock.callCount(), 1);
    } finally {
      calls.mock.restore();
    }
  } finally {
    await base.cleanup();
  }
});
