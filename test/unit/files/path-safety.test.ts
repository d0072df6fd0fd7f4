import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, PathSafetyError } from '../../../src/core/files';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { SnapshotRecords } from '../../../src/core/files/snapshot-records';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

interface Ctx {
  ws: string;
  outside: string;
  storeDir: string;
  fc: FileCheckpointer;
  sentinel: string[];
}

/** A workspace, a sentinel folder beside it that must never change, and a checkpointer. */
async function withSentinel(fn: (c: Ctx) => Promise<void>): Promise<void> {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const outside = join(base.dir, 'outside');
    await writeTree(ws, { 'dir/file.txt': 'inside\n', 'top.txt': 'top\n' });
    await writeTree(outside, { 'secret.txt': 'do not touch\n', 'dir/file.txt': 'outside copy\n' });
    const storeDir = join(base.dir, 'store');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), storeDir });
    const sentinel = await fingerprint(outside);
    try {
      await fn({ ws, outside, storeDir, fc, sentinel });
    } finally {
      await fc.dispose();
    }
    assert.deepEqual(await fingerprint(outside), sentinel, 'the folder outside the workspace is byte-identical');
  } finally {
    await base.cleanup();
  }
}

/** Writes a hash-consistent but hostile tree into the store and a record for it. */
async function craftSnapshot(storeDir: string, entries: unknown[], anchorId = 'crafted'): Promise<void> {
  const store = await ObjectStore.open(storeDir);
  const w = store.newPack();
  const blob = Buffer.from('pwned\n');
  await w.add('blob', hashObject('blob', blob), blob);
  const filled = JSON.parse(JSON.stringify(entries).replaceAll('BLOB', hashObject('blob', blob)));
  const data = Buffer.from(JSON.stringify(filled));
  const root = hashObject('tree', data);
  await w.add('tree', root, data);
  await w.commit(false);
  await store.closeHandles();
  await new SnapshotRecords(storeDir).put({
    v: 1,
    sessionId: 's',
    anchorId,
    kind: 'user-message',
    root,
    createdAt: new Date().toISOString(),
    files: 1,
    totalBytes: 6,
  });
}

// on POSIX a backslash is an ordinary character: `dir\..\..` is one harmless name there (it round-trips, see
// reliability-names.test.ts); on Windows it is a path that climbs out
const hostileNames = [
  '..',
  '.',
  '../outside',
  '/etc/passwd',
  'a/../../outside',
  '.git',
  '.GIT',
  'x\0y',
  ...(process.platform === 'win32' ? ['dir\\..\\..'] : []),
];
for (const name of hostileNames) {
  test(`a crafted tree entry named ${JSON.stringify(name)} is refused before anything is written`, async () => {
    await withSentinel(async ({ ws, storeDir, fc }) => {
      const before = await fingerprint(ws);
      await craftSnapshot(storeDir, [[name, 'f', 420, 'BLOB', 6]]);
      const dry = await fc.rewindFiles('s', 'crafted', { dryRun: true, anchor: userAnchor });
      assert.equal(dry.canRewind, false);
      assert.match(dry.error!, /tree object is invalid: unsafe name/);
      await assert.rejects(fc.rewindFiles('s', 'crafted', { anchor: userAnchor }), /tree object is invalid: unsafe name/);
      assert.deepEqual(await fingerprint(ws), before);
    });
  });
}

test('a crafted tree with a duplicate name or a bad shape is refused', async () => {
  await withSentinel(async ({ storeDir, fc }) => {
    await craftSnapshot(
      storeDir,
      [
        ['a', 'f', 420, 'BLOB', 6],
        ['a', 'd', 493, 'BLOB', 0],
      ],
      'dup',
    );
    await assert.rejects(fc.rewindFiles('s', 'dup', { anchor: userAnchor }), /lists a twice/);
    await craftSnapshot(storeDir, [{ name: 'a' }], 'shape');
    await assert.rejects(fc.rewindFiles('s', 'shape', { anchor: userAnchor }), /tree object is invalid/);
    await craftSnapshot(storeDir, [['a', 'f', 0o17777, 'BLOB', 6]], 'mode');
    await assert.rejects(fc.rewindFiles('s', 'mode', { anchor: userAnchor }), /tree object is invalid/);
  });
});

test('a tampered object (content no longer matches its hash) is detected and nothing is written', async () => {
  await withSentinel(async ({ ws, storeDir, fc }) => {
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'top.txt'), 'changed\n');
    const packs = (await readdir(join(storeDir, 'packs'))).filter((f) => f.endsWith('.pack'));
    for (const p of packs) {
      const buf = await readFile(join(storeDir, 'packs', p));
      for (let i = 0; i < buf.length; i++) buf[i] = buf[i]! ^ 0x20;
      await writeFile(join(storeDir, 'packs', p), buf);
    }
    const fresh = new FileCheckpointer({ workspaceRoot: ws, home: '/nonexistent', storeDir });
    await assert.rejects(fresh.rewindFiles('s', 'u1', { anchor: userAnchor }), /damaged|does not decompress|not valid JSON|invalid/);
    await fresh.dispose();
    assert.equal(await readFile(join(ws, 'top.txt'), 'utf8'), 'changed\n');
  });
});

test('a record whose root is not a hash is not a snapshot', async () => {
  await withSentinel(async ({ storeDir, fc }) => {
    const dir = join(storeDir, 'snapshots');
    await new SnapshotRecords(storeDir).put({
      v: 1,
      sessionId: 's',
      anchorId: 'bad',
      kind: 'user-message',
      root: 'a'.repeat(64),
      createdAt: '',
      files: 0,
      totalBytes: 0,
    });
    const [sessionDir] = await readdir(dir);
    const [file] = await readdir(join(dir, sessionDir!));
    const rec = JSON.parse(await readFile(join(dir, sessionDir!, file!), 'utf8'));
    rec.root = '../../../outside';
    await writeFile(join(dir, sessionDir!, file!), JSON.stringify(rec));
    const dry = await fc.rewindFiles('s', 'bad', { dryRun: true, anchor: userAnchor });
    assert.match(dry.error!, /has no file snapshot/);
  });
});

test('a folder replaced by a symlink to the outside is restored as a folder, never written through', async () => {
  await withSentinel(async ({ ws, outside, fc }) => {
    await fc.snapshot('s', 'u1');
    await rm(join(ws, 'dir'), { recursive: true });
    await symlink(outside, join(ws, 'dir'));
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.status]),
      [
        ['dir', 'typeChanged'],
        ['dir/file.txt', 'deleted'],
      ],
    );
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal((await lstat(join(ws, 'dir'))).isDirectory(), true);
    assert.equal(await readFile(join(ws, 'dir/file.txt'), 'utf8'), 'inside\n');
  });
});

test('a stale tracker that still thinks a symlinked parent is a folder cannot write through it', async () => {
  await withSentinel(async ({ ws, outside, fc }) => {
    fc.notifyChanged([]); // tracking mode: after the first full scan, only reported paths are looked at
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'dir/file.txt'), 'edited\n');
    fc.notifyChanged(['dir/file.txt']);
    await fc.snapshot('s', 'u2');
    // now swap the folder for a link to the outside without telling the tracker
    await rm(join(ws, 'dir'), { recursive: true });
    await symlink(outside, join(ws, 'dir'));
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), (err: Error) => err instanceof PathSafetyError && /symlink dir/.test(err.message));
    assert.equal((await lstat(join(ws, 'dir'))).isSymbolicLink(), true);
  });
});

test('symlinks in a snapshot come back as links; a link pointing outside is recreated, not followed', async () => {
  await withSentinel(async ({ ws, outside, fc }) => {
    await symlink(join(outside, 'secret.txt'), join(ws, 'escape'));
    await fc.snapshot('s', 'u1');
    await rm(join(ws, 'escape'));
    await writeFile(join(ws, 'escape'), 'now a file\n');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal((await lstat(join(ws, 'escape'))).isSymbolicLink(), true);
  });
});

test('crafted paths never reach outside: readFileAtAnchor refuses them', async () => {
  await withSentinel(async ({ fc }) => {
    await fc.snapshot('s', 'u1');
    for (const p of ['../outside/secret.txt', '/etc/passwd', 'dir/../../outside/secret.txt', '.git/config', '', 'dir//file.txt']) {
      await assert.rejects(fc.readFileAtAnchor('s', 'u1', p), PathSafetyError, p);
    }
    assert.equal((await fc.readFileAtAnchor('s', 'u1', 'dir/file.txt'))?.toString(), 'inside\n');
    assert.equal(await fc.readFileAtAnchor('s', 'u1', 'missing.txt'), undefined);
  });
});

test('a crafted restore journal cannot make recovery write outside the workspace', async () => {
  await withSentinel(async ({ ws, outside, storeDir, fc }) => {
    await fc.snapshot('s', 'u1');
    const hash = hashObject('blob', Buffer.from('inside\n'));
    const journal = (path: string) =>
      JSON.stringify({ v: 1, tag: 'abc', workspaceRoot: ws, ops: [{ path, from: null, to: { kind: 'file', hash, mode: 420 } }] });
    await writeFile(join(storeDir, 'journal.json'), journal('../outside/secret.txt'));
    await assert.rejects(fc.recover(), PathSafetyError);
    await symlink(outside, join(ws, 'link'));
    await writeFile(join(storeDir, 'journal.json'), journal('link/secret.txt'));
    await assert.rejects(fc.recover(), /symlink link/);
    await writeFile(join(storeDir, 'journal.json'), '{"v":1,');
    await assert.rejects(fc.recover(), /journal .* is damaged/);
    await mkdir(join(ws, 'ok'));
  });
});
