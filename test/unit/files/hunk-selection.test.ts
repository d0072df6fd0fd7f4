// A rewind of some hunks of a file (issue 27, item 3): the file now with only the chosen hunks taken back, counted
// as the preview counts them, keyed to the bytes the hunks were shown for (a file changed since is refused and
// nothing is rewound), undone and redone exactly (bytes and mode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { restoreFaults } from '../../../src/core/files/restore/restore';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

const anchorText = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const nowText = 'one\nTWO\nthree\nfour\nfive\nsix\nSEVEN\neight\n';

async function scenario(fn: (ctx: { ws: string; cp: FileCheckpointer }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-hunks-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'f.txt': anchorText, 'g.txt': 'g0\n', 'bin.dat': 'a\0b' });
  await chmod(join(ws, 'f.txt'), 0o750);
  const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await cp.snapshot('A', 'u1', 'user-message');
    await writeFile(join(ws, 'f.txt'), nowText);
    await writeFile(join(ws, 'g.txt'), 'g1\n');
    await writeFile(join(ws, 'bin.dat'), 'a\0c');
    await cp.snapshot('A', 'r1', 'turn-end');
    await fn({ ws, cp });
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
}

test('hunk selection: only the chosen hunks come back, counted as such; undo and redo are exact, mode included', async () => {
  await scenario(async ({ ws, cp }) => {
    const shown = (await cp.fileHunks('A', 'u1', ['f.txt']))[0]!;
    assert.ok(shown.ok);
    assert.deepEqual(
      shown.hunks.map((h) => [h.index, h.insertions, h.deletions]),
      [
        [1, 1, 1],
        [2, 2, 1],
      ],
    );
    const before = await fingerprint(ws);
    const opts = { anchor: userAnchor, hunks: [{ path: 'f.txt', hunks: [2], hash: shown.hash }] };
    const dry = await cp.rewindFiles('A', 'u1', { ...opts, dryRun: true });
    assert.equal(dry.canRewind, true, dry.error);
    assert.deepEqual(dry.filesChanged, ['f.txt'], 'a hunk selection is a selection: nothing else comes back');
    assert.deepEqual([dry.insertions, dry.deletions], [2, 1], "hunk 2's lines only");
    assert.deepEqual(dry.files.find((f) => f.path === 'f.txt')?.partial, { hunks: [2], of: 2, hash: shown.hash });
    assert.deepEqual(await fingerprint(ws), before, 'the dry run writes nothing');

    const real = await cp.rewindFiles('A', 'u1', opts);
    assert.deepEqual([real.filesChanged, real.insertions, real.deletions], [dry.filesChanged, dry.insertions, dry.deletions]);
    const partial = 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n';
    assert.equal(await readFile(join(ws, 'f.txt'), 'utf8'), partial);
    assert.equal(((await import('node:fs')).statSync(join(ws, 'f.txt')).mode & 0o7777).toString(8), '750', 'the mode is kept');
    assert.equal((await readTree(ws))['g.txt'], 'g1\n');

    await cp.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before, 'undo puts the bytes and the mode back');
    const redo = await cp.rewindFiles('A', 'u1', opts);
    assert.deepEqual(redo.filesChanged, ['f.txt']);
    assert.equal(await readFile(join(ws, 'f.txt'), 'utf8'), partial, 'redo takes back the same hunk');
    await cp.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
  });
});

test('hunk selection beside whole files: both in one rewind, one undo', async () => {
  await scenario(async ({ ws, cp }) => {
    const shown = (await cp.fileHunks('A', 'u1', ['f.txt']))[0]!;
    assert.ok(shown.ok);
    const before = await fingerprint(ws);
    const r = await cp.rewindFiles('A', 'u1', { anchor: userAnchor, only: ['g.txt'], hunks: [{ path: 'f.txt', hunks: [1], hash: shown.hash }] });
    assert.deepEqual(r.filesChanged.sort(), ['f.txt', 'g.txt']);
    assert.deepEqual([r.insertions, r.deletions], [2, 2]);
    const tree = await readTree(ws);
    assert.equal(tree['f.txt'], 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\neight\n');
    assert.equal(tree['g.txt'], 'g0\n');
    assert.equal(tree['bin.dat'], 'a\0c', 'not chosen');
    await cp.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
  });
});

test('hunk selection: a file changed since its hunks were shown is refused, and nothing is rewound', async () => {
  await scenario(async ({ ws, cp }) => {
    const shown = (await cp.fileHunks('A', 'u1', ['f.txt']))[0]!;
    assert.ok(shown.ok);
    await writeFile(join(ws, 'f.txt'), nowText + 'nine\n');
    const before = await fingerprint(ws);
    const opts = { anchor: userAnchor, only: ['g.txt'], hunks: [{ path: 'f.txt', hunks: [1], hash: shown.hash }] };
    const dry = await cp.rewindFiles('A', 'u1', { ...opts, dryRun: true });
    assert.equal(dry.canRewind, false);
    assert.match(dry.error ?? '', /^f\.txt changed since its hunks were shown.*Nothing was rewound/);
    await assert.rejects(cp.rewindFiles('A', 'u1', opts), /f\.txt changed since its hunks were shown/);
    assert.deepEqual(await fingerprint(ws), before, 'not even the whole file beside it came back');
    await assert.rejects(cp.undoLastRewind('A'), /no file rewind to undo/, 'nothing was recorded to undo');
  });
});

test('hunk selection: a hunk the file does not have, a binary file, an unchanged file, a path out of the workspace are refused with their reason', async () => {
  await scenario(async ({ ws, cp }) => {
    const before = await fingerprint(ws);
    await assert.rejects(
      cp.rewindFiles('A', 'u1', { anchor: userAnchor, hunks: [{ path: 'f.txt', hunks: [3] }] }),
      /f\.txt has 2 hunks \(numbered from 1\): there is no hunk 3/,
    );
    await assert.rejects(
      cp.rewindFiles('A', 'u1', { anchor: userAnchor, hunks: [{ path: 'bin.dat', hunks: [1] }] }),
      /bin\.dat cannot be taken back hunk by hunk \(binary/,
    );
    const binHunks = (await cp.fileHunks('A', 'u1', ['bin.dat']))[0];
    assert.deepEqual(binHunks, { path: 'bin.dat', ok: false, reason: 'binary: whole file only' });
    await assert.rejects(cp.rewindFiles('A', 'u1', { anchor: userAnchor, hunks: [{ path: '../out.txt', hunks: [1] }] }), /\.\./);
    assert.deepEqual(await fingerprint(ws), before);
    await writeFile(join(ws, 'g.txt'), 'g0\n');
    await assert.rejects(
      cp.rewindFiles('A', 'u1', { anchor: userAnchor, hunks: [{ path: 'g.txt', hunks: [1] }] }),
      /g\.txt is as it was at that message already: it has no hunks to take back/,
    );
  });
});

test('hunk selection: a rewind killed right after its journal was written is finished by recovery, the new content included', async () => {
  await scenario(async ({ ws, cp }) => {
    const shown = (await cp.fileHunks('A', 'u1', ['f.txt']))[0]!;
    assert.ok(shown.ok);
    const before = await fingerprint(ws);
    const journal = join(cp.storeDir, 'journal.json');
    const kept = join(cp.storeDir, 'journal.kept');
    // the journal as a killed process would leave it: taken at the first write, then the step fails (and is rolled back)
    restoreFaults.hook = (step, _rel, rollingBack) => {
      if (step !== 'write' || rollingBack) return;
      restoreFaults.hook = undefined;
      void copyFile(journal, kept);
      throw new Error('killed');
    };
    try {
      await assert.rejects(cp.rewindFiles('A', 'u1', { anchor: userAnchor, hunks: [{ path: 'f.txt', hunks: [1], hash: shown.hash }] }), /killed/);
    } finally {
      restoreFaults.hook = undefined;
    }
    assert.deepEqual(await fingerprint(ws), before, 'rolled back');
    await copyFile(kept, journal);
    const fresh = new FileCheckpointer({ workspaceRoot: ws, home: join(cp.storeDir, '..'), storeDir: cp.storeDir });
    try {
      const r = await fresh.recover();
      assert.equal(r.outcome, 'completed');
      assert.equal(await readFile(join(ws, 'f.txt'), 'utf8'), 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\neight\n', 'hunk 1 taken back from the stored content');
    } finally {
      await fresh.dispose();
    }
  });
});
