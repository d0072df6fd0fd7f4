// Scenario: names. Every name that is legal on this platform round-trips through a snapshot and a rewind; a name
// that cannot be stored or restored is reported when the snapshot is taken, never accepted and then fatal; a bad
// name inside an old snapshot is skipped and reported, and neither that rewind nor later snapshots fail because of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nameFromBytes } from '../../../src/core/files/file-names';
import { FileCheckpointer } from '../../../src/core/files';
import { hashObject, ObjectStore } from '../../../src/core/files/store/object-store';
import { SnapshotRecords } from '../../../src/core/files/snapshot-records';
import { tempBase, userAnchor, writeTree } from './helpers';
import { exactFingerprint } from './reliability-helpers';

const POSIX = process.platform !== 'win32';

test('POSIX names with a backslash or a drive-like colon round-trip; the rewind and later snapshots work', { skip: !POSIX }, async () => {
  const base = await tempBase('arw-rel-names-');
  const ws = join(base.dir, 'ws');
  await mkdir(ws, { recursive: true });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await writeTree(ws, { 'a\\b.txt': 'backslash\n', 'c:notes': 'colon\n', 'dir\\..\\..': 'dots\n', 'sub/C:x': 'x\n', 'plain.txt': 'p\n' });
    const before = await exactFingerprint(ws);
    const s1 = await fc.snapshot('s', 'u1');
    assert.deepEqual(s1.skipped, []);
    for (const n of ['a\\b.txt', 'c:notes', 'dir\\..\\..', 'sub/C:x']) await writeFile(join(ws, n), 'changed\n');
    await rm(join(ws, 'c:notes'));
    await writeFile(join(ws, 'plain.txt'), 'changed\n');
    const r = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(r.skipped, []);
    assert.deepEqual(await exactFingerprint(ws), before);
    await fc.snapshot('s', 'u2');
    await writeFile(join(ws, 'c:notes'), 'again\n');
    await fc.rewindFiles('s', 'u2', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'c:notes'), 'utf8'), 'colon\n');
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});

/** Writes a hash-consistent tree holding `names` (each a file "old\n") into the store, and a record for it. */
async function oldSnapshot(storeDir: string, names: string[], anchorId: string): Promise<void> {
  const store = await ObjectStore.open(storeDir);
  const w = store.newPack();
  const blob = Buffer.from('old\n');
  await w.add('blob', hashObject('blob', blob), blob);
  const data = Buffer.from(JSON.stringify(names.sort().map((n) => [n, 'f', 0o644, hashObject('blob', blob), 4])));
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
    files: names.length,
    totalBytes: 4 * names.length,
  });
}

test('a name in an old snapshot that cannot be created here (over 255 bytes) is skipped and reported; the rest is rewound', { skip: !POSIX }, async () => {
  const base = await tempBase('arw-rel-names-');
  const ws = join(base.dir, 'ws');
  const storeDir = join(base.dir, 'store');
  await mkdir(ws, { recursive: true });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), storeDir });
  try {
    await writeTree(ws, { 'ok.txt': 'new\n', 'z.txt': 'new\n' });
    const long = 'é'.repeat(200); // 200 characters, 400 bytes: no POSIX file system takes it
    await oldSnapshot(storeDir, ['ok.txt', long, 'z.txt'], 'old');
    const dry = await fc.rewindFiles('s', 'old', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.canRewind, true, dry.error);
    const r = await fc.rewindFiles('s', 'old', { anchor: userAnchor });
    assert.deepEqual(
      r.skipped.map((s) => s.path),
      [long],
    );
    assert.match(r.skipped[0]!.reason, /cannot be (created|restored)/);
    assert.equal(await readFile(join(ws, 'ok.txt'), 'utf8'), 'old\n');
    assert.equal(await readFile(join(ws, 'z.txt'), 'utf8'), 'old\n');
    const s = await fc.snapshot('s', 'after');
    assert.equal(s.files, 2);
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});

test('a path longer than the system allows (ENAMETOOLONG) is skipped and reported; the snapshot and a rewind work', { skip: !POSIX }, async () => {
  const base = await tempBase('arw-rel-names-');
  const ws = join(base.dir, 'ws');
  await mkdir(ws, { recursive: true });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  const cwd = process.cwd();
  try {
    await writeTree(ws, { 'top.txt': 'top\n', 'deep/near.txt': 'near\n' });
    // 22 folders of 200 characters below deep/: over 4,400 bytes, more than PATH_MAX; built with relative calls
    process.chdir(join(ws, 'deep'));
    for (let i = 0; i < 22; i++) {
      const name = String(i).padStart(3, '0') + 'x'.repeat(197);
      mkdirSync(name);
      process.chdir(name);
    }
    writeFileSync('far.txt', 'far\n');
    process.chdir(cwd);
    const s = await fc.snapshot('s', 'u1');
    assert.ok(s.skipped.length >= 1, 'the too-long path is reported');
    assert.ok(
      s.skipped.every((k) => /ENAMETOOLONG|longer than/.test(k.reason)),
      JSON.stringify(s.skipped),
    );
    await writeFile(join(ws, 'top.txt'), 'changed\n');
    await writeFile(join(ws, 'deep/near.txt'), 'changed\n');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'top.txt'), 'utf8'), 'top\n');
    assert.equal(await readFile(join(ws, 'deep/near.txt'), 'utf8'), 'near\n');
    await fc.snapshot('s', 'u2');
  } finally {
    process.chdir(cwd);
    await fc.dispose();
    execFileSync('rm', ['-rf', base.dir]);
  }
});

test('file names that are not valid UTF-8 are snapshotted under their own bytes, beside a valid name holding a real U+FFFD', { skip: !POSIX }, async () => {
  const base = await tempBase('arw-rel-names-');
  const ws = join(base.dir, 'ws');
  await mkdir(ws, { recursive: true });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await writeTree(ws, { 'ok.txt': 'ok\n', 'sub/ok.txt': 'ok\n' });
    writeFileSync(Buffer.concat([Buffer.from(ws + '/'), Buffer.from([0x66, 0xff, 0x2e, 0x74])]), 'bad name\n');
    writeFileSync(Buffer.concat([Buffer.from(ws + '/sub/'), Buffer.from([0xc3, 0x28])]), 'bad name in sub\n');
    writeFileSync(join(ws, 'real\uFFFDchar.txt'), 'a real U+FFFD in a valid name\n');
    for (const anchor of ['u1', 'u2']) {
      const s = await fc.snapshot('s', anchor);
      assert.deepEqual(s.skipped, [], `snapshot ${anchor}`);
      assert.equal(s.files, 5);
    }
    assert.equal((await fc.readFileAtAnchor('s', 'u1', 'real\uFFFDchar.txt'))?.toString(), 'a real U+FFFD in a valid name\n');
    assert.equal((await fc.readFileAtAnchor('s', 'u1', nameFromBytes(Buffer.from([0x66, 0xff, 0x2e, 0x74]))))?.toString(), 'bad name\n');
    assert.equal((await fc.readFileAtAnchor('s', 'u1', `sub/${nameFromBytes(Buffer.from([0xc3, 0x28]))}`))?.toString(), 'bad name in sub\n');
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});
