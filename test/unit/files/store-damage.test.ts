// A damaged checkpoint store (real files, real byte flips, truncations and deletions) never takes the user's files or
// the product down: the next snapshot and gc work, snapshots whose objects survive still restore, snapshots that lost
// objects are refused with an error naming what is missing, and an undo never depends on a damaged object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync, truncateSync, unlinkSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { decodeTree } from '../../../src/core/files/store/tree';
import { entryAt, indexCount } from '../../../src/core/files/store/pack-index';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

const packDir = (fc: FileCheckpointer) => join(fc.storeDir, 'packs');
const packsOf = (fc: FileCheckpointer) =>
  readdirSync(packDir(fc))
    .filter((n) => n.endsWith('.pack'))
    .map((n) => n.slice(0, -5));

/** The pack holding `hash` and where its stored bytes are. */
function locate(fc: FileCheckpointer, hash: string): { pack: string; offset: number; length: number } | undefined {
  for (const pack of packsOf(fc)) {
    const idx = readFileSync(join(packDir(fc), pack + '.idx'));
    const n = indexCount(idx) ?? 0;
    for (let i = 0; i < n; i++) {
      const e = entryAt(idx, i);
      if (e.hash === hash) return { pack, offset: e.offset, length: e.length };
    }
  }
  return undefined;
}

function flipByteOf(fc: FileCheckpointer, hash: string): string {
  const at = locate(fc, hash);
  assert.ok(at, 'object is stored');
  const file = join(packDir(fc), at.pack + '.pack');
  const buf = readFileSync(file);
  buf[at.offset + Math.floor(at.length / 2)]! ^= 0x5a;
  writeFileSync(file, buf);
  return at.pack;
}

const blobHash = (text: string) => hashObject('blob', Buffer.from(text));

test('undo survives a damaged pack: the pre-restore snapshot does not dedupe against a damaged copy of what it must bring back', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const v1 = 'version one\n'.repeat(40);
    const v2 = 'the agent wrote this, version two\n'.repeat(40);
    await writeTree(ws, { 'a.txt': v1, 'b.txt': 'stays\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1', 'user-message');
    await writeFile(join(ws, 'a.txt'), v2);
    await fc.snapshot('s', 'u2', 'user-message');
    const agentState = await fingerprint(ws);
    flipByteOf(fc, blobHash(v2)); // the copy of the agent's a.txt in the store goes bad
    await fc.dispose();

    const fresh = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    const res = await fresh.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
    assert.deepEqual(res.filesChanged, ['a.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), v1);
    await fresh.dispose();
    // a new process undoes: the agent's a.txt must come back
    const again = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await again.undoLastRewind('s');
    assert.deepEqual(await fingerprint(ws), agentState);
    await again.dispose();
  } finally {
    await base.cleanup();
  }
});

/** The hash of the folder `rel` in the tree `root` (read from the store as it is on disk). */
async function treeHashAt(fc: FileCheckpointer, root: string, rel: string): Promise<string> {
  const store = await ObjectStore.open(fc.storeDir);
  try {
    let hash = root;
    for (const name of rel.split('/')) hash = decodeTree(await store.read(hash, 'tree')).find((e) => e.name === name)!.hash;
    return hash;
  } finally {
    await store.closeHandles();
  }
}

// The pre-restore snapshot checks only the folders an undo reads (those on the paths the rewind changes): a damaged
// copy of one of those is written afresh, a damaged folder elsewhere is not in the undo's way.
test('undo survives a damaged folder tree on the rewound path, and a damaged folder elsewhere does not stop the rewind or its undo', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const v1 = 'version one\n'.repeat(40);
    const v2 = 'the agent wrote this, version two\n'.repeat(40);
    await writeTree(ws, { 'd/e/a.txt': v1, 'd/e/b.txt': 'stays\n', 'other/x.txt': 'untouched\n', 'other/y.txt': 'untouched too\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1', 'user-message');
    await writeFile(join(ws, 'd/e/a.txt'), v2);
    const u2 = await fc.snapshot('s', 'u2', 'user-message');
    const agentState = await fingerprint(ws);
    // the folder d/e as the agent left it (what the undo reads) and the untouched folder, both damaged in the store
    flipByteOf(fc, await treeHashAt(fc, u2.root, 'd/e'));
    flipByteOf(fc, await treeHashAt(fc, u2.root, 'other'));
    await fc.dispose();

    const fresh = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    const res = await fresh.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
    assert.deepEqual(res.filesChanged, ['d/e/a.txt']);
    assert.equal(await readFile(join(ws, 'd/e/a.txt'), 'utf8'), v1);
    await fresh.dispose();
    const again = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await again.undoLastRewind('s');
    assert.deepEqual(await fingerprint(ws), agentState);
    await again.dispose();
  } finally {
    await base.cleanup();
  }
});

test('a second user-message snapshot of the same anchor is refused when the files changed, and is a no-op when they did not', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'at U\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    const first = await fc.snapshot('s', 'U', 'user-message');
    const same = await fc.snapshot('s', 'U', 'user-message');
    assert.equal(same.root, first.root);
    assert.equal(same.createdAt, first.createdAt, 'the first record stays');
    await writeFile(join(ws, 'a.txt'), 'later\n');
    await assert.rejects(fc.snapshot('s', 'U', 'user-message'), /message U already has a file snapshot/);
    // the state at U is still what a rewind brings back
    await fc.rewindFiles('s', 'U', { dryRun: false, anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'at U\n');
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});

type Damage = { name: string; apply: (fc: FileCheckpointer, packOfU1: string) => void; lost: boolean };
const damages: Damage[] = [
  { name: 'index truncated', apply: (fc, p) => truncateSync(join(packDir(fc), p + '.idx'), 30), lost: false },
  { name: 'index byte flipped (magic)', apply: (fc, p) => flipAt(join(packDir(fc), p + '.idx'), 2), lost: false },
  { name: 'index deleted', apply: (fc, p) => unlinkSync(join(packDir(fc), p + '.idx')), lost: false },
  { name: 'pack truncated', apply: (fc, p) => truncateSync(join(packDir(fc), p + '.pack'), 60), lost: true },
  { name: 'pack byte flipped', apply: (fc) => void flipByteOf(fc, blobHash(ONLY_AT_U1)), lost: true },
  { name: 'pack deleted', apply: (fc, p) => unlinkSync(join(packDir(fc), p + '.pack')), lost: true },
];
const ONLY_AT_U1 = 'only at u1, gone from the workspace later\n'.repeat(30);

function flipAt(file: string, at: number): void {
  const buf = readFileSync(file);
  buf[at]! ^= 0xff;
  writeFileSync(file, buf);
}

for (const d of damages) {
  test(`store damage: ${d.name} → next snapshot and gc work; what survives restores; what was lost is refused by name`, async () => {
    const base = await tempBase();
    try {
      const ws = join(base.dir, 'ws');
      const home = join(base.dir, 'home');
      await writeTree(ws, { 'keep.txt': 'kept everywhere\n', 'gone.txt': ONLY_AT_U1 });
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      await fc.snapshot('s', 'u1', 'user-message');
      const [packOfU1] = packsOf(fc);
      const atU1 = await fingerprint(ws);
      unlinkSync(join(ws, 'gone.txt'));
      await writeFile(join(ws, 'new.txt'), 'new at u2\n');
      await fc.snapshot('s', 'u2', 'user-message');
      const atU2 = await fingerprint(ws);
      await fc.dispose();
      d.apply(fc, packOfU1!);

      const next = new FileCheckpointer({ workspaceRoot: ws, home });
      await writeFile(join(ws, 'third.txt'), 'u3\n');
      const s3 = await next.snapshot('s', 'u3', 'user-message');
      assert.ok(s3.files >= 3);
      await next.gc();
      // u2's objects were all written after the damage or in an intact pack: it restores exactly
      await next.rewindFiles('s', 'u2', { dryRun: false, anchor: userAnchor });
      assert.deepEqual(await fingerprint(ws), atU2);
      const dry = await next.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
      if (d.lost) {
        assert.equal(dry.canRewind, false);
        assert.match(dry.error ?? '', /missing|damaged/);
        assert.match(dry.error ?? '', /gone\.txt|folder \(workspace root\)/, 'the error names the file (or folder) that cannot be brought back');
        await assert.rejects(next.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor }), /gone\.txt|workspace root/);
        assert.deepEqual(await fingerprint(ws), atU2, 'a refused rewind touches nothing');
      } else {
        assert.equal(dry.canRewind, true, dry.error);
        await next.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
        assert.deepEqual(await fingerprint(ws), atU1);
      }
      // and the store keeps working after that: another snapshot, another gc
      await next.snapshot('s', 'u4', 'user-message');
      await next.gc();
      await next.dispose();
    } finally {
      await base.cleanup();
    }
  });
}

test('a damaged pack is moved aside into quarantine/ with a report; its intact objects are kept', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'aaa\n'.repeat(50), 'b.txt': 'bbb\n'.repeat(50) });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot('s', 'u1', 'user-message');
    await fc.dispose();
    const [pack] = packsOf(fc);
    truncateSync(join(packDir(fc), pack + '.pack'), readFileSync(join(packDir(fc), pack + '.pack')).length - 10);
    const next = new FileCheckpointer({ workspaceRoot: ws, home });
    await next.gc();
    const q = join(fc.storeDir, 'quarantine');
    assert.ok(existsSync(join(q, pack + '.pack')) && existsSync(join(q, pack + '.json')));
    const report = JSON.parse(readFileSync(join(q, pack + '.json'), 'utf8'));
    assert.equal(report.pack, pack);
    assert.ok(report.salvagedObjects >= 1);
    await next.dispose();
  } finally {
    await base.cleanup();
  }
});

test('deleting or damaging a snapshot record: that snapshot is refused clearly, the others and the store keep working', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'one\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot('s', 'u1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'two\n');
    await fc.snapshot('s', 'u2', 'user-message');
    await fc.dispose();
    const recDir = join(fc.storeDir, 'snapshots');
    const [sdir] = readdirSync(recDir);
    const recs = readdirSync(join(recDir, sdir!)).filter((f) => f.endsWith('.json'));
    const byAnchor = new Map(recs.map((f) => [JSON.parse(readFileSync(join(recDir, sdir!, f), 'utf8')).anchorId as string, join(recDir, sdir!, f)]));
    writeFileSync(byAnchor.get('u1')!, readFileSync(byAnchor.get('u1')!).subarray(0, 20)); // truncated
    const next = new FileCheckpointer({ workspaceRoot: ws, home });
    const dry = await next.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.canRewind, false);
    assert.match(dry.error ?? '', /has no file snapshot/);
    unlinkSync(byAnchor.get('u2')!);
    await next.snapshot('s', 'u3', 'user-message');
    await next.gc();
    assert.equal((await next.rewindFiles('s', 'u2', { dryRun: true, anchor: userAnchor })).canRewind, false);
    await next.dispose();
  } finally {
    await base.cleanup();
  }
});
