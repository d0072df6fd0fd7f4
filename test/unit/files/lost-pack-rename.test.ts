// A snapshot renames its record in while its pack's folder is still being fsynced (one fsync round, not two). A power
// cut in between may keep the record's rename and lose the pack's: the pack is then on disk, whole, under its temp
// name. These tests make that state by hand and check that the next locked operation puts the pack back in place (so
// the snapshot restores exactly), and that a temp pack a writer left unfinished is dropped without a quarantine report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, renameSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

const packs = (fc: FileCheckpointer) =>
  readdirSync(join(fc.storeDir, 'packs'))
    .filter((n) => /^[0-9a-z]+-[0-9a-f]+\.pack$/.test(n))
    .map((n) => n.slice(0, -5));

/** Takes snapshot u2 and then undoes its pack's renames, as a power cut could: its record stays. Returns its pack. */
async function snapshotLosingPackRename(fc: FileCheckpointer): Promise<string> {
  const before = new Set(packs(fc));
  await fc.snapshot('s', 'u2', 'user-message');
  const made = packs(fc).filter((p) => !before.has(p));
  assert.equal(made.length, 1, 'the snapshot wrote one pack');
  const dir = join(fc.storeDir, 'packs');
  renameSync(join(dir, made[0]! + '.pack'), join(dir, `tmp-${made[0]!}.pack`));
  renameSync(join(dir, made[0]! + '.idx'), join(dir, `tmp-${made[0]!}.idx`));
  return made[0]!;
}

async function setup() {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  await writeTree(ws, { 'a.txt': 'one\n'.repeat(50), 'sub/b.txt': 'two\n'.repeat(50) });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  await fc.snapshot('s', 'u1', 'user-message');
  await writeFile(join(ws, 'a.txt'), 'the agent changed this\n'.repeat(50));
  await writeFile(join(ws, 'sub/c.txt'), 'a new file\n'.repeat(50));
  return { base, ws, home, fc };
}

test('a record whose pack rename a power cut lost: the next locked operation puts the pack in place and the snapshot restores exactly', async () => {
  const { base, ws, home, fc } = await setup();
  try {
    const atU2 = await fingerprint(ws);
    const pack = await snapshotLosingPackRename(fc);
    await fc.dispose();
    await writeFile(join(ws, 'a.txt'), 'later work\n');

    const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
    const res = await fresh.rewindFiles('s', 'u2', { dryRun: false, anchor: userAnchor });
    assert.deepEqual(res.filesChanged, ['a.txt']);
    assert.deepEqual(await fingerprint(ws), atU2);
    assert.ok(existsSync(join(fresh.storeDir, 'packs', pack + '.pack')), 'the pack is back under its name');
    assert.ok(existsSync(join(fresh.storeDir, 'packs', pack + '.idx')), 'with its index rebuilt');
    assert.equal(existsSync(join(fresh.storeDir, 'quarantine')), false, 'nothing was reported lost');
    await fresh.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
    assert.equal((await fresh.gc()).removedObjects, 0);
    await fresh.dispose();
  } finally {
    await base.cleanup();
  }
});

test('a temp pack a writer left unfinished is dropped by the next locked operation, not quarantined', async () => {
  const { base, ws, home, fc } = await setup();
  try {
    const pack = await snapshotLosingPackRename(fc);
    await fc.dispose();
    const tmp = join(fc.storeDir, 'packs', `tmp-${pack}.pack`);
    truncateSync(tmp, statSync(tmp).size - 5);
    unlinkSync(join(fc.storeDir, 'packs', `tmp-${pack}.idx`));

    const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
    await fresh.snapshot('s', 'u3', 'user-message');
    assert.equal(existsSync(tmp), false);
    assert.equal(existsSync(join(fresh.storeDir, 'packs', pack + '.pack')), false);
    assert.equal(existsSync(join(fresh.storeDir, 'quarantine')), false);
    // u3 stored what it needed afresh; u1 still restores
    const atU3 = await fingerprint(ws);
    await fresh.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
    await fresh.rewindFiles('s', 'u3', { dryRun: false, anchor: userAnchor });
    assert.deepEqual(await fingerprint(ws), atU3);
    await fresh.dispose();
  } finally {
    await base.cleanup();
  }
});
