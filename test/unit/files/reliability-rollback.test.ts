// Scenario: a rewind that fails half-way is rolled back at once to the exact before state and says which path
// failed and why; it never leaves a journal that a later ordinary operation "finishes" over the user's newer edits.
// A refused rewind (it would go through a symlink) writes nothing and leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, PathSafetyError } from '../../../src/core/files';
import { restoreFaults } from '../../../src/core/files/restore/restore';
import { tempBase, userAnchor, writeTree } from './helpers';
import { chattr, chattrWorks, exactFingerprint } from './reliability-helpers';

const FILES = 24;

/** A workspace snapshotted as u1 (with a turn end), then changed everywhere: the "before" of the rewind. */
async function changedWorkspace(dir: string) {
  const ws = join(dir, 'ws');
  const storeDir = join(dir, 'store');
  const files: Record<string, string> = { 'ro/b.txt': 'b at u1\n', 'ro/gone.txt': 'gone at u1\n' };
  for (let i = 0; i < FILES; i++) files[`f${String(i).padStart(2, '0')}.txt`] = `file ${i} at u1\n`;
  await writeTree(ws, files);
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, 'home'), storeDir });
  await fc.snapshot('s', 'u1');
  await fc.snapshot('s', 'a1', 'turn-end');
  for (let i = 0; i < FILES; i++) await writeFile(join(ws, `f${String(i).padStart(2, '0')}.txt`), `file ${i} changed by the agent\n`);
  await chmod(join(ws, 'f03.txt'), 0o600);
  await unlink(join(ws, 'f05.txt'));
  await writeFile(join(ws, 'new.txt'), 'new\n');
  await writeFile(join(ws, 'ro/b.txt'), 'b changed by the agent\n');
  await unlink(join(ws, 'ro/gone.txt'));
  await writeFile(join(ws, 'ro/added.txt'), 'added by the agent\n');
  await fc.snapshot('s', 'a2', 'turn-end');
  return { ws, storeDir, fc };
}

for (const kind of ['write (EPERM creating a file in an immutable folder)', 'unlink (EPERM removing a file of an immutable folder)'] as const) {
  test(`a rewind that fails half-way on ${kind} is rolled back at once, names the path, and a later snapshot finishes nothing`, async (t) => {
    const base = await tempBase('arw-rel-rollback-');
    if (!chattrWorks(base.dir)) {
      await base.cleanup();
      return t.skip('chattr +i does not work on this file system');
    }
    const { ws, storeDir, fc } = await changedWorkspace(base.dir);
    try {
      if (kind.startsWith('unlink')) {
        // only the removal of ro/added.txt is left to fail: ro/b.txt and ro/gone.txt are as they were at u1
        await writeFile(join(ws, 'ro/b.txt'), 'b at u1\n');
        await writeFile(join(ws, 'ro/gone.txt'), 'gone at u1\n');
        await fc.snapshot('s', 'a3', 'turn-end');
      } else {
        // only the writes into ro/ are left to fail (ro/b.txt changed, ro/gone.txt deleted): nothing to remove there
        await unlink(join(ws, 'ro/added.txt'));
        await fc.snapshot('s', 'a3', 'turn-end');
      }
      const before = await exactFingerprint(ws);
      chattr('+i', join(ws, 'ro'));
      const failed = 'ro/' + (kind.startsWith('unlink') ? 'added.txt' : 'b.txt');
      await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), (err: Error) => {
        assert.ok(err.message.includes(failed), `the error names ${failed}: ${err.message}`);
        assert.match(err.message, /EPERM|not permitted/);
        assert.match(err.message, /put back/);
        return true;
      });
      assert.deepEqual(await exactFingerprint(ws), before, 'every file and mode exactly as before the rewind');
      assert.equal(existsSync(join(storeDir, 'journal.json')), false, 'no journal left for a later operation to finish');
      assert.equal(
        (await fc.listSnapshots('s')).some((r) => r.kind === 'pre-restore'),
        false,
        'nor the snapshot taken for its undo',
      );
      chattr('-i', join(ws, 'ro'));
      // the user goes on by hand; the next ordinary operation must not finish the failed rewind over that
      await writeFile(join(ws, 'f00.txt'), 'edited by hand\n');
      await writeFile(join(ws, 'ro/b.txt'), 'b edited by hand\n');
      await fc.snapshot('s', 'u2');
      assert.equal(await readFile(join(ws, 'f00.txt'), 'utf8'), 'edited by hand\n');
      assert.equal(await readFile(join(ws, 'ro/b.txt'), 'utf8'), 'b edited by hand\n');
      assert.equal(await readFile(join(ws, 'f01.txt'), 'utf8'), 'file 1 changed by the agent\n');
      assert.equal((await fc.recover()).outcome, 'none');
    } finally {
      if (existsSync(join(ws, 'ro'))) chattr('-i', join(ws, 'ro'));
      await fc.dispose();
      await base.cleanup();
    }
  });
}

test('when even the roll-back cannot complete, the journal is kept but never rolled forward: recovery only puts back paths still as the failed rewind wrote them, and reports the rest', async () => {
  const base = await tempBase('arw-rel-rollback-');
  const { ws, storeDir, fc } = await changedWorkspace(base.dir);
  try {
    const before = await exactFingerprint(ws);
    // the rewind cannot write f20.txt; then, rolling back, f00.txt and f01.txt cannot be put back
    restoreFaults.hook = (step, rel, rollingBack) => {
      if (step === 'write' && ((!rollingBack && rel === 'f20.txt') || (rollingBack && (rel === 'f00.txt' || rel === 'f01.txt')))) {
        throw Object.assign(new Error(`EIO: i/o error, write '${rel}'`), { code: 'EIO' });
      }
    };
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), (err: Error) => {
      assert.match(err.message, /f20\.txt/);
      assert.match(err.message, /could not all be put back/);
      assert.match(err.message, /f00\.txt/);
      return true;
    });
    restoreFaults.hook = undefined;
    assert.equal(existsSync(join(storeDir, 'journal.json')), true, 'the journal is kept');
    assert.equal(JSON.parse(await readFile(join(storeDir, 'journal.json'), 'utf8')).failed !== undefined, true, 'and marked as a failed rewind');
    assert.equal(await readFile(join(ws, 'f00.txt'), 'utf8'), 'file 0 at u1\n', 'left as the failed rewind wrote it');
    // the user edits one of them by hand: recovery must keep that edit, and finish nothing
    await writeFile(join(ws, 'f00.txt'), 'edited by hand\n');
    // a new rewind is refused while the failed one still has files to put back (it would lose their journal)
    restoreFaults.hook = (_step, rel, rollingBack) => {
      if (rollingBack && rel === 'f01.txt') throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    };
    const s1 = await fc.snapshot('s', 'while-pending');
    assert.deepEqual(s1.skipped.map((k) => k.path).sort(), ['f00.txt', 'f01.txt'], 'the snapshot that ran recovery reports what it left');
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), /An earlier rewind failed.*f01\.txt/);
    restoreFaults.hook = undefined;
    const rec = await fc.recover();
    assert.equal(rec.outcome, 'rolledBack');
    assert.deepEqual(
      rec.notRestored?.map((n) => n.path),
      ['f00.txt'],
    );
    assert.equal(await readFile(join(ws, 'f00.txt'), 'utf8'), 'edited by hand\n');
    assert.equal(existsSync(join(storeDir, 'journal.json')), false);
    const expected = before.map((l) => (l.startsWith('f00.txt ') ? l.replace(/[0-9a-f]{16}$/, '') : l));
    const now = (await exactFingerprint(ws)).map((l) => (l.startsWith('f00.txt ') ? l.replace(/[0-9a-f]{16}$/, '') : l));
    assert.deepEqual(now, expected, 'everything else exactly as before the rewind');
    await fc.snapshot('s', 'u3');
    assert.equal(await readFile(join(ws, 'f00.txt'), 'utf8'), 'edited by hand\n');
  } finally {
    restoreFaults.hook = undefined;
    await fc.dispose();
    await base.cleanup();
  }
});

test('a refused rewind (a folder became a symlink) writes nothing and leaves no journal: later snapshots work', async () => {
  const base = await tempBase('arw-rel-refused-');
  const ws = join(base.dir, 'ws');
  const outside = join(base.dir, 'outside');
  const storeDir = join(base.dir, 'store');
  await writeTree(ws, { 'a.txt': 'a\n', 'dir/file.txt': 'inside\n', 'z.txt': 'z\n' });
  await writeTree(outside, { 'file.txt': 'outside\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), storeDir });
  try {
    fc.notifyChanged([]); // tracking: the tracker is not told about the swap below
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'dir/file.txt'), 'edited\n');
    await writeFile(join(ws, 'a.txt'), 'a edited\n');
    await writeFile(join(ws, 'z.txt'), 'z edited\n');
    fc.notifyChanged(['dir/file.txt', 'a.txt', 'z.txt']);
    await fc.snapshot('s', 'u2');
    await rm(join(ws, 'dir'), { recursive: true });
    await symlink(outside, join(ws, 'dir'));
    const before = await exactFingerprint(ws);
    const outsideBefore = await exactFingerprint(outside);
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), (err: Error) => err instanceof PathSafetyError && /symlink dir/.test(err.message));
    assert.deepEqual(await exactFingerprint(ws), before, 'nothing written, not even the files before it in the order');
    assert.deepEqual(await exactFingerprint(outside), outsideBefore);
    assert.equal(existsSync(join(storeDir, 'journal.json')), false, 'no journal left behind');
    assert.equal(
      (await fc.listSnapshots('s')).some((r) => r.kind === 'pre-restore'),
      false,
      'not even a pre-restore snapshot',
    );
    fc.markAllDirty();
    const s = await fc.snapshot('s', 'u3');
    assert.equal(s.files, 3);
    await unlink(join(ws, 'dir'));
    await mkdir(join(ws, 'dir'));
    fc.markAllDirty();
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'dir/file.txt'), 'utf8'), 'inside\n');
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});

test('a rewind that removed a whole folder and then failed puts the folder and its files back (mode included)', async () => {
  const base = await tempBase('arw-rel-rollback-');
  const ws = join(base.dir, 'ws');
  const storeDir = join(base.dir, 'store');
  await writeTree(ws, { 'a.txt': 'a\n', 'z.txt': 'z at u1\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), storeDir });
  try {
    await fc.snapshot('s', 'u1');
    await writeTree(ws, { 'made/x1.txt': 'x1\n', 'made/sub/x2.txt': 'x2\n', 'z.txt': 'z changed\n' });
    await chmod(join(ws, 'made'), 0o750);
    await fc.snapshot('s', 'a1', 'turn-end');
    const before = await exactFingerprint(ws);
    restoreFaults.hook = (step, rel, rollingBack) => {
      if (!rollingBack && step === 'write' && rel === 'z.txt') throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    };
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), /could not change z\.txt: EIO.*put back as it was before/);
    assert.deepEqual(await exactFingerprint(ws), before);
    assert.equal(existsSync(join(storeDir, 'journal.json')), false);
  } finally {
    restoreFaults.hook = undefined;
    await fc.dispose();
    await base.cleanup();
  }
});
