// A rewind that failed and whose roll-back could not finish leaves its journal; the next rewind rolls back again
// first. Where the roll-back turns a folder back into the file it was, and someone has put a file of their own in that
// folder meanwhile, rmdir(2) leaves the folder and the file cannot be written over it: the roll-back leaves the folder
// and says so. The dry run's forecast of that roll-back must too, or it plans from a file that never comes back and
// previews a different rewind from the one that runs (promise 13).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { restoreFaults } from '../../../src/core/files/restore/restore';
import { tempBase, userAnchor, writeTree } from './helpers';
import { exactFingerprint } from './reliability-helpers';
import { previewOutcome, realOrRefusal } from './preview-outcome';

test('a roll-back that meets a file of the user in the folder it would turn back into a file: the dry run says what the rewind then does', async () => {
  const base = await tempBase('arw-preview-folder-left-');
  const ws = join(base.dir, 'ws');
  const opts = { workspaceRoot: ws, home: join(base.dir, 'home'), storeDir: join(base.dir, 'store') };
  await writeTree(ws, { 'd/a.txt': 'a at u1\n', 'z.txt': 'z at u1\n' });
  const fc = new FileCheckpointer(opts);
  try {
    await fc.snapshot('s', 'u1');
    // the agent turns the folder d into a file
    await rm(join(ws, 'd'), { recursive: true });
    await writeFile(join(ws, 'd'), 'd, a file by the agent\n');
    await writeFile(join(ws, 'z.txt'), 'z by the agent\n');
    await fc.snapshot('s', 'a1', 'turn-end');
    // the rewind to u1 makes d a folder again, writes d/a.txt, then fails at z.txt; its roll-back cannot remove
    // d/a.txt, so d stays a folder and the journal stays, marked failed
    restoreFaults.hook = (step, rel, rollingBack) => {
      if ((!rollingBack && step === 'write' && rel === 'z.txt') || (rollingBack && step === 'unlink' && rel === 'd/a.txt'))
        throw Object.assign(new Error(`EIO: i/o error, ${step} '${rel}'`), { code: 'EIO' });
    };
    await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), /could not all be put back/);
    restoreFaults.hook = undefined;
    assert.ok(existsSync(join(opts.storeDir, 'journal.json')));
    assert.equal(await readFile(join(ws, 'd/a.txt'), 'utf8'), 'a at u1\n', 'd is still the folder the rewind made');
    // meanwhile the user puts a file of their own in that folder
    await mkdir(join(ws, 'd'), { recursive: true });
    await writeFile(join(ws, 'd/mine.txt'), 'mine\n');
    const before = await exactFingerprint(ws);

    const dryRunner = new FileCheckpointer(opts);
    const dry = await dryRunner.rewindFiles('s', 'u1', { anchor: userAnchor, dryRun: true });
    await dryRunner.dispose();
    assert.deepEqual(await exactFingerprint(ws), before, 'the dry run writes nothing');
    const { real, refused, why } = await realOrRefusal(() => fc.rewindFiles('s', 'u1', { anchor: userAnchor }), dry);
    assert.equal(refused, undefined, why);
    assert.deepEqual(previewOutcome(dry, { reasons: true }), previewOutcome(real!, { reasons: true }), why);
    assert.ok(
      real!.skipped.some((s) => s.path === 'd' && /d is a folder now; refusing to replace it/.test(s.reason)),
      `the roll-back left the folder and said so${why}`,
    );
    assert.equal(await readFile(join(ws, 'd/mine.txt'), 'utf8'), 'mine\n', "the user's file is kept");
    assert.equal(await readFile(join(ws, 'd/a.txt'), 'utf8'), 'a at u1\n');
    assert.equal(await readFile(join(ws, 'z.txt'), 'utf8'), 'z at u1\n');
  } finally {
    restoreFaults.hook = undefined;
    await fc.dispose();
    await base.cleanup();
  }
});
