// A tracked checkpointer (the checkpoint service's, the extension's) looks only at the paths its watcher reports. A
// report the watcher missed must never make a rewind or its undo overwrite an edit the model does not know of: the
// paths they are about to write are checked on disk first, so such an edit is seen as the user's, as a full scan sees it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase, userAnchor, writeTree } from './helpers';

/** u1, then the agent's turn (reported to the tracker) edits a.txt and creates new.txt; then edits by hand it never hears of. */
async function missedHandEdits(fn: (ws: string, fc: FileCheckpointer) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-missed-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    fc.notifyChanged([]); // tracking: after the first full check only reported paths are looked at
    await fc.snapshot('s', 'u1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'alpha by the agent\n');
    await writeFile(join(ws, 'new.txt'), 'made by the agent\n');
    fc.notifyChanged(['a.txt', 'new.txt']);
    await fc.snapshot('s', 't1', 'turn-end');
    await writeFile(join(ws, 'a.txt'), 'alpha typed by hand\n'); // never reported
    await writeFile(join(ws, 'new.txt'), 'new typed by hand\n');
    await fn(ws, fc);
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
}

test("edits by hand the watcher missed are the user's: the preview lists them as such and the rewind leaves them", async () => {
  await missedHandEdits(async (ws, fc) => {
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry.userModified, ['a.txt', 'new.txt']);
    assert.deepEqual(dry.filesChanged, []);
    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(real.userModified, ['a.txt', 'new.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'alpha typed by hand\n');
    assert.equal(await readFile(join(ws, 'new.txt'), 'utf8'), 'new typed by hand\n');
  });
});

test("edits by hand the watcher missed, overwritten on request: the undo brings them back, not the turn's version", async () => {
  await missedHandEdits(async (ws, fc) => {
    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor, overwriteUserModified: true });
    assert.deepEqual(real.filesChanged, ['a.txt', 'new.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'alpha\n');
    await fc.undoLastRewind('s');
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'alpha typed by hand\n');
    assert.equal(await readFile(join(ws, 'new.txt'), 'utf8'), 'new typed by hand\n');
  });
});

test('a file edited by hand after a rewind and the next prompt, unreported: the undo leaves it and says so', async () => {
  await missedHandEdits(async (ws, fc) => {
    fc.notifyChanged(['a.txt', 'new.txt']); // this time the watcher saw the hand edits
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor, overwriteUserModified: true });
    await fc.snapshot('s', 'u2', 'user-message'); // the next prompt: the tracker has looked at what the rewind wrote
    await writeFile(join(ws, 'a.txt'), 'alpha typed again after the rewind\n'); // never reported
    const undo = await fc.undoLastRewind('s');
    assert.deepEqual(undo.userModified, ['a.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'alpha typed again after the rewind\n');
    assert.equal(await readFile(join(ws, 'new.txt'), 'utf8'), 'new typed by hand\n');
  });
});

test('a file the refresh just read, edited again and reported before the paths are checked, is read again: the preview counts what the rewind will take back', async () => {
  await missedHandEdits(async (ws, fc) => {
    fc.notifyChanged(['a.txt', 'new.txt']); // the hand edits were seen this time
    // the watcher reports a second edit of a.txt while the preview plans, after its refresh read the first one
    const tracker = (fc as unknown as { tracker: { refreshModel: (...a: unknown[]) => Promise<unknown> } }).tracker;
    const refresh = tracker.refreshModel.bind(tracker);
    let edits = 0;
    tracker.refreshModel = async (...a: unknown[]) => {
      const model = await refresh(...a);
      if (edits++ === 0) {
        await writeFile(join(ws, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
        fc.notifyChanged(['a.txt']);
      }
      return model;
    };
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor, overwriteUserModified: true });
    tracker.refreshModel = refresh;
    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor, overwriteUserModified: true });
    const a = (r: typeof dry) => r.files.find((f) => f.path === 'a.txt');
    assert.equal(a(dry)?.insertions, 5);
    assert.deepEqual(a(dry), a(real));
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'alpha\n');
  });
});
