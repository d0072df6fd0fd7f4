// The system's limit on file watches (inotify's max_user_watches) reached: the folders the watcher could not watch
// are checked with lstat by every snapshot (and only they: no full check of the tree), the snapshots stay exactly what
// a process with no cache takes, and the checkpointer says so once, with the fix. The limit is the watcher's own
// (ScanTuning.watchLimit), failing as the system does (ENOSPC), so the test needs no root to lower the real one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, WATCH_LIMIT_FIX, type SnapshotSummary, type WatchLimitReport } from '../../../src/core/files';
import { tempBase, writeTree } from './helpers';

const TREE: Record<string, string> = {
  'top.txt': 'top\n',
  'a/f.txt': 'a\n',
  'a/b/f.txt': 'ab\n',
  'a/b/c/f.txt': 'abc\n',
  'a/b/c/d/f.txt': 'abcd\n',
  'e/f.txt': 'e\n',
  'e/g/f.txt': 'eg\n',
  'h/f.txt': 'h\n',
  'h/i/j/f.txt': 'hij\n',
  'h/.gitignore': '*.log\n',
};

const comparable = (s: SnapshotSummary) => ({ root: s.root, files: s.files, totalBytes: s.totalBytes, ignored: s.ignoredCount, skipped: s.skipped });

async function scratch(ws: string, home: string): Promise<ReturnType<typeof comparable>> {
  const fcp = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return comparable(await fcp.snapshot('s', 'x'));
  } finally {
    await fcp.dispose();
    await rm(home, { recursive: true, force: true });
  }
}

test('past the watch limit, the unwatched folders are checked by each snapshot (no full check), snapshots stay exact, and it is said once', async () => {
  const base = await tempBase('arw-watch-limit-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, TREE);
  const cp = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), fullCheckIntervalMs: 3_600_000, tuning: { watchLimit: 3 } });
  const reports: WatchLimitReport[] = [];
  try {
    await cp.startWatching((r) => reports.push(r));
    assert.equal(reports.length, 1, 'said once, when the watch started');
    assert.equal(reports[0]!.code, 'ENOSPC');
    assert.ok(reports[0]!.folders >= 2, `folders left unwatched: ${reports[0]!.folders}`);
    assert.ok(reports[0]!.message.includes(WATCH_LIMIT_FIX) && reports[0]!.message.includes(ws), reports[0]!.message);
    assert.deepEqual(cp.watchLimit, reports[0], 'the status says the same');

    assert.deepEqual(comparable(await cp.snapshot('s', 'u0')), await scratch(ws, join(base.dir, 'scratch-0')));
    const index = join(cp.storeDir, 'stat-index.bin');
    const indexAfterFullCheck = await readFile(index);
    // each round's changes are made right before its snapshot, deep in folders no watch covers and in watched ones
    const rounds: (() => Promise<void>)[] = [
      () => writeFile(join(ws, 'a/b/c/d/f.txt'), 'changed deep\n'),
      async () => {
        await mkdir(join(ws, 'a/b/c/d/new/deeper'), { recursive: true });
        await writeFile(join(ws, 'a/b/c/d/new/deeper/n.txt'), 'new\n');
        await writeFile(join(ws, 'top.txt'), 'top, changed\n');
      },
      async () => {
        await rm(join(ws, 'e/g/f.txt'));
        await rename(join(ws, 'h/i'), join(ws, 'h/k'));
      },
      async () => {
        await writeFile(join(ws, 'h/k/j/x.log'), 'ignored\n');
        await writeFile(join(ws, 'h/.gitignore'), '*.txt\n'); // rules changed in a folder that may not be watched
        await chmod(join(ws, 'a/b/f.txt'), 0o755);
      },
      async () => {
        await rm(join(ws, 'a/b'), { recursive: true });
        await writeFile(join(ws, 'e/g/same.txt'), 'ab\n'); // same bytes as a file gone: one blob, two places
      },
    ];
    for (const [i, change] of rounds.entries()) {
      await change();
      const got = comparable(await cp.snapshot('s', `u${i + 1}`));
      assert.deepEqual(got, await scratch(ws, join(base.dir, `scratch-${i + 1}`)), `snapshot after round ${i + 1}`);
      // a full check saves the stat index again (a tracked snapshot does not): the fallback looked only at the
      // unwatched folders and at what the watches reported
      assert.ok((await readFile(index)).equals(indexAfterFullCheck), `round ${i + 1} made no full check`);
    }
    assert.equal(reports.length, 1, 'said once only');
  } finally {
    await cp.dispose();
    await base.cleanup();
  }
});
