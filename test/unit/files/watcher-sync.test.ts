// The watcher sync barrier (watchman-style cookies): a change made just before a snapshot is always in it, even
// when the watcher reports late; when the barrier cannot sync, that snapshot checks the whole tree instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangeFeed, COOKIE_PREFIX, FileCheckpointer, watchWorkspace } from '../../../src/core/files';
import { tempBase, userAnchor, writeTree } from './helpers';

async function workspace(): Promise<{ ws: string; home: string; cleanup: () => Promise<void> }> {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  return { ws, home: join(base.dir, 'home'), cleanup: base.cleanup };
}

const cookiesIn = (dir: string) => readdirSync(dir).filter((n) => n.startsWith(COOKIE_PREFIX));

test('a change made right before a snapshot is in it, even through a watcher that batches its reports like the editor', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
  // the extension's path: watcher → 100 ms batch (WorkspaceFileWatcher) → notifyChanged, with the cookie barrier
  const feed = new ChangeFeed({ sink: (paths) => fc.notifyChanged(paths), batchMs: 100 });
  const stop = await watchWorkspace(fc.workspaceRoot, { onChange: (rels) => feed.note(rels), onOverflow: () => fc.markAllDirty() });
  fc.setWatcherSync({ settle: () => feed.settle(fc.workspaceRoot) });
  try {
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u0');
    for (let i = 1; i <= 30; i++) {
      const rel = `d${i % 4}/f${i}.txt`;
      if (i % 3 === 0)
        execFileSync('sed', ['-i', `s/.*/sed ${i}/`, rel], { cwd: ws }); // a shell command's change
      else writeFileSync(join(ws, rel), `write ${i}\n`);
      if (i % 5 === 0) writeFileSync(join(ws, `d${i % 4}/new${i}.txt`), `new ${i}\n`);
      const summary = await fc.snapshot('s', `u${i}`);
      assert.ok(summary.hashedFiles <= 3, `tracked, not a full check (hashed ${summary.hashedFiles})`);
      const want = i % 3 === 0 ? `sed ${i}\n` : `write ${i}\n`;
      assert.equal((await fc.readFileAtAnchor('s', `u${i}`, rel))?.toString(), want, `snapshot ${i} has the change made just before it`);
      if (i % 5 === 0) assert.equal((await fc.readFileAtAnchor('s', `u${i}`, `d${i % 4}/new${i}.txt`))?.toString(), `new ${i}\n`);
    }
    assert.deepEqual(cookiesIn(ws), [], 'cookies are removed');
  } finally {
    stop();
    feed.dispose();
    await fc.dispose();
    await cleanup();
  }
});

test('a delivery that reports the cookie before earlier changes (as VS Code does: created, then changed, one URI per call) still syncs them', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
  const feed = new ChangeFeed({ sink: (paths) => fc.notifyChanged(paths), batchMs: 100 });
  // VS Code's extension host gets one event per batch and fires onDidCreate for each created URI, then onDidChange
  // for each changed one, synchronously: a file changed before the cookie was made is reported after it
  let batch: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deliver = () => {
    timer = undefined;
    const all = batch;
    batch = [];
    const isNew = (rel: string) => rel.startsWith(COOKIE_PREFIX) || rel.includes('/new');
    for (const rel of all.filter(isNew)) feed.note([rel]);
    for (const rel of all.filter((r) => !isNew(r))) feed.note([rel]);
  };
  const stop = await watchWorkspace(fc.workspaceRoot, {
    onChange: (rels) => {
      batch.push(...rels);
      timer ??= setTimeout(deliver, 30);
    },
    onOverflow: () => fc.markAllDirty(),
  });
  fc.setWatcherSync({ settle: () => feed.settle(fc.workspaceRoot) });
  try {
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u0');
    for (let i = 1; i <= 8; i++) {
      writeFileSync(join(ws, `d${i % 4}/f${i}.txt`), `write ${i}\n`);
      writeFileSync(join(ws, `d${i % 4}/new${i}.txt`), `new ${i}\n`);
      await fc.snapshot('s', `u${i}`);
      assert.equal((await fc.readFileAtAnchor('s', `u${i}`, `d${i % 4}/f${i}.txt`))?.toString(), `write ${i}\n`, `snapshot ${i} has the change`);
      assert.equal((await fc.readFileAtAnchor('s', `u${i}`, `d${i % 4}/new${i}.txt`))?.toString(), `new ${i}\n`, `snapshot ${i} has the new file`);
    }
  } finally {
    stop();
    if (timer) clearTimeout(timer);
    feed.dispose();
    await fc.dispose();
    await cleanup();
  }
});

test('with its own fs.watch watcher, the tracker never misses a change made just before a snapshot', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
  try {
    await fc.startWatching();
    await fc.snapshot('s', 'u0');
    for (let i = 1; i <= 20; i++) {
      writeFileSync(join(ws, `d${i % 4}/f${i}.txt`), `write ${i}\n`);
      await fc.snapshot('s', `u${i}`);
      assert.equal((await fc.readFileAtAnchor('s', `u${i}`, `d${i % 4}/f${i}.txt`))?.toString(), `write ${i}\n`);
    }
    assert.deepEqual(cookiesIn(ws), []);
  } finally {
    await fc.dispose();
    await cleanup();
  }
});

test('when the cookie never arrives, settle gives up after its timeout and the snapshot checks the whole tree', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
  // nothing feeds this one: the watcher is "stuck"
  // a timeout long enough that "answered at once" cannot be confused with "waited", even on a loaded machine
  const feed = new ChangeFeed({ sink: (paths) => fc.notifyChanged(paths), cookieTimeoutMs: 800 });
  try {
    const t0 = Date.now();
    assert.equal(await feed.settle(fc.workspaceRoot), 'unsynced');
    assert.ok(Date.now() - t0 >= 790, 'waited for the cookie');
    assert.deepEqual(cookiesIn(ws), [], 'the cookie is removed after a timeout too');
    // a watcher that missed a cookie is not waited for again soon: every snapshot would pay the whole timeout
    const t1 = Date.now();
    assert.equal(await feed.settle(fc.workspaceRoot), 'unsynced');
    assert.ok(Date.now() - t1 < 400, 'answered without waiting');
    fc.setWatcherSync({ settle: () => feed.settle(fc.workspaceRoot) });
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'd1/f1.txt'), 'never reported\n');
    await fc.snapshot('s', 'u2');
    assert.equal((await fc.readFileAtAnchor('s', 'u2', 'd1/f1.txt'))?.toString(), 'never reported\n');
  } finally {
    feed.dispose();
    await fc.dispose();
    await cleanup();
  }
});

test('when the cookie cannot be written, settle says so at once and the snapshot checks the whole tree', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
  const feed = new ChangeFeed({ sink: (paths) => fc.notifyChanged(paths), cookieTimeoutMs: 60_000 });
  // a folder that cannot take the cookie (as a read-only one; tests may run as root, where chmod does not stop writes)
  const unwritable = join(ws, 'd0', 'f0.txt', 'not-a-folder');
  try {
    const t0 = Date.now();
    assert.equal(await feed.settle(unwritable), 'unsynced');
    assert.ok(Date.now() - t0 < 30_000, 'did not wait for the timeout');
    fc.setWatcherSync({ settle: () => feed.settle(unwritable) });
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'd2/f2.txt'), 'never reported\n');
    await fc.snapshot('s', 'u2');
    assert.equal((await fc.readFileAtAnchor('s', 'u2', 'd2/f2.txt'))?.toString(), 'never reported\n');
  } finally {
    feed.dispose();
    await fc.dispose();
    await cleanup();
  }
});

test('a cookie file in the root is never snapshotted, so a rewind neither restores nor removes it', async () => {
  const { ws, home, cleanup } = await workspace();
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  const cookie = `${COOKIE_PREFIX}123-abc-1`;
  try {
    await writeFile(join(ws, cookie), '');
    const s1 = await fc.snapshot('s', 'u1');
    assert.equal(s1.files, 40);
    assert.equal(await fc.readFileAtAnchor('s', 'u1', cookie), undefined);
    await writeFile(join(ws, 'd3/f3.txt'), 'changed\n');
    const res = await fc.rewindFiles('s', 'u1', { dryRun: false, anchor: userAnchor });
    assert.deepEqual(res.filesChanged, ['d3/f3.txt']);
    assert.deepEqual(cookiesIn(ws), [cookie]);
  } finally {
    await fc.dispose();
    await cleanup();
  }
});

test('a dispose while settle waits ends it as unsynced instead of leaving it hanging', async () => {
  const { ws, cleanup } = await workspace();
  const feed = new ChangeFeed({ sink: () => undefined, cookieTimeoutMs: 60_000 });
  try {
    const pending = feed.settle(ws);
    await new Promise((r) => setTimeout(r, 50));
    feed.dispose();
    assert.equal(await pending, 'unsynced');
    assert.deepEqual(cookiesIn(ws), []);
  } finally {
    await cleanup();
  }
});
