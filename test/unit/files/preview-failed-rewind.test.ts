// A rewind that failed and could not put back all it had changed keeps its journal, marked failed; the next rewind
// first tries again to put those files back, and is refused while one still cannot be. Its dry run must say the same
// (promise 13): the same refusal in the same words while the cause stays (here an immutable folder), and, once the
// cause is gone, the rewind planned from the files as the roll-back leaves them. Nothing is written by the dry run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { restoreFaults } from '../../../src/core/files/restore/restore';
import { tempBase, userAnchor, writeTree } from './helpers';
import { chattr, chattrWorks, exactFingerprint } from './reliability-helpers';
import { previewOutcome, realOrRefusal } from './preview-outcome';

for (const cause of ['stays', 'is fixed'] as const) {
  test(`a failed rewind's journal pending, and the cause ${cause}: the dry run says what the real rewind then does`, async (t) => {
    const base = await tempBase('arw-preview-failed-');
    if (!chattrWorks(base.dir)) {
      await base.cleanup();
      return t.skip('chattr +i does not work on this file system');
    }
    const ws = join(base.dir, 'ws');
    const opts = { workspaceRoot: ws, home: join(base.dir, 'home'), storeDir: join(base.dir, 'store') };
    await writeTree(ws, { 'ro/x.txt': 'x at u1\n', 'y.txt': 'y at u1\n', 'z.txt': 'z at u1\n' });
    const fc = new FileCheckpointer(opts);
    try {
      await fc.snapshot('s', 'u1');
      await writeFile(join(ws, 'ro/x.txt'), 'x by the agent\nmore\n');
      await writeFile(join(ws, 'y.txt'), 'y by the agent\n');
      await writeFile(join(ws, 'z.txt'), 'z by the agent\n');
      await fc.snapshot('s', 'a1', 'turn-end');
      // the rewind cannot write z.txt; rolling back, it cannot put ro/x.txt back: the journal stays, marked failed
      restoreFaults.hook = (step, rel, rollingBack) => {
        if (step === 'write' && ((!rollingBack && rel === 'z.txt') || (rollingBack && rel === 'ro/x.txt')))
          throw Object.assign(new Error(`EIO: i/o error, write '${rel}'`), { code: 'EIO' });
      };
      await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), /could not all be put back/);
      restoreFaults.hook = undefined;
      assert.equal(await readFile(join(ws, 'ro/x.txt'), 'utf8'), 'x at u1\n', 'left as the failed rewind wrote it');
      assert.ok(existsSync(join(opts.storeDir, 'journal.json')));
      if (cause === 'stays') chattr('+i', join(ws, 'ro')); // now the retry cannot put it back either
      const before = await exactFingerprint(ws);
      const journal = await readFile(join(opts.storeDir, 'journal.json'), 'utf8');

      const dryRunner = new FileCheckpointer(opts);
      const dry = await dryRunner.rewindFiles('s', 'u1', { anchor: userAnchor, dryRun: true });
      await dryRunner.dispose();
      assert.deepEqual(await exactFingerprint(ws), before, 'the dry run writes nothing');
      assert.equal(await readFile(join(opts.storeDir, 'journal.json'), 'utf8'), journal, 'nor touches the journal');
      const { real, refused, why } = await realOrRefusal(() => fc.rewindFiles('s', 'u1', { anchor: userAnchor }), dry);
      if (cause === 'stays') {
        assert.match(refused ?? '', /^An earlier rewind failed and some of its files could not be put back yet: ro\/x\.txt \(EPERM/, why);
        assert.equal(dry.canRewind, false, why);
        assert.equal(dry.error, refused, why);
      } else {
        assert.equal(refused, undefined, why);
        assert.deepEqual(dry.recoveryFirst, { action: 'rolled back', paths: ['ro/x.txt'] }, why);
        assert.deepEqual(previewOutcome(dry), previewOutcome(real!), why);
        assert.deepEqual(real!.filesChanged, ['ro/x.txt', 'y.txt', 'z.txt']);
      }
    } finally {
      restoreFaults.hook = undefined;
      if (existsSync(join(ws, 'ro'))) chattr('-i', join(ws, 'ro'));
      await fc.dispose();
      await base.cleanup();
    }
  });
}
