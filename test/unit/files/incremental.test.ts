import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { FileCheckpointer } from '../../../src/core/files';
import { afterRacyWindow, tempBase, userAnchor, writeTree } from './helpers';

async function workspace(n: number): Promise<{ ws: string; home: string; cleanup: () => Promise<void> }> {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`m${i % 5}/p${i % 3}/f${i}.txt`] = `content ${i}\n`;
  await writeTree(ws, files);
  const past = new Date(Date.now() - 60_000);
  for (const f of Object.keys(files)) await utimes(join(ws, f), past, past);
  return { ws, home: join(base.dir, 'home'), cleanup: base.cleanup };
}

test('the tracker re-hashes only the paths it is told about; a full check finds the rest', async () => {
  const { ws, home, cleanup } = await workspace(60);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    fc.notifyChanged([]);
    const first = await fc.snapshot('s', 'u1');
    assert.equal(first.hashedFiles, 60);
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed 0\n');
    await writeFile(join(ws, 'm1/p1/f1.txt'), 'changed 1\n');
    await writeFile(join(ws, 'm2/p2/f2.txt'), 'changed without telling\n');
    fc.notifyChanged([join(ws, 'm0/p0/f0.txt'), 'm1/p1/f1.txt']);
    const second = await fc.snapshot('s', 'u2');
    assert.equal(second.hashedFiles, 2);
    assert.equal((await fc.readFileAtAnchor('s', 'u2', 'm2/p2/f2.txt'))?.toString(), 'content 2\n', 'unreported change not seen yet');
    fc.markAllDirty();
    await fc.snapshot('s', 'u3');
    assert.equal((await fc.readFileAtAnchor('s', 'u3', 'm2/p2/f2.txt'))?.toString(), 'changed without telling\n');
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('the fs.watch watcher feeds the tracker: after shell changes the tracked snapshot equals a full scan', async () => {
  const { ws, home, cleanup } = await workspace(60);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    await fc.startWatching();
    await fc.snapshot('s', 'u1');
    execFileSync(
      '/bin/sh',
      [
        '-c',
        'mkdir -p new/a/b && echo x > new/a/b/x.txt && rm -rf m3 && mv m4/p0 moved && chmod 755 m0/p1/f10.txt && echo y >> m1/p2/f11.txt && ln -s moved lnk',
      ],
      { cwd: ws },
    );
    // no sleep: the tracked snapshot waits for the watcher's cookie barrier, so every change above is reported first
    const tracked = await fc.snapshot('s', 'u2');
    assert.ok(tracked.hashedFiles < 20, `only changed files are re-read (read ${tracked.hashedFiles})`);
    await fc.dispose();
    const full = await new FileCheckpointer({ workspaceRoot: ws, home: join(home, 'other') }).snapshot('s', 'u2');
    assert.equal(tracked.root, full.root);
    assert.equal(tracked.files, full.files);
  } finally {
    await cleanup();
  }
});

test('a folder a .gitignore stops ignoring is watched from then on: a later same-size edit in it is in the next tracked snapshot', async () => {
  const { ws, home, cleanup } = await workspace(10);
  try {
    await writeTree(ws, { '.gitignore': 'out/\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    await fc.startWatching();
    await fc.snapshot('s', 'u0');
    // made while ignored, so the watcher leaves it out
    execFileSync('/bin/sh', ['-c', 'mkdir -p tmp-out/deep && printf "aaaa\\n" > tmp-out/deep/f.txt && mv tmp-out out'], { cwd: ws });
    await fc.snapshot('s', 'u1');
    execFileSync('/bin/sh', ['-c', 'rm .gitignore'], { cwd: ws }); // out/ becomes part of the workspace
    const visible = await fc.snapshot('s', 'u2');
    assert.equal((await fc.readFileAtAnchor('s', 'u2', 'out/deep/f.txt'))?.toString(), 'aaaa\n', `out/ is snapshotted (${visible.files} files)`);
    // same size: a tracked snapshot sees it only if the watch on out/deep reports it
    execFileSync('/bin/sh', ['-c', 'printf "bbbb\\n" > out/deep/f.txt'], { cwd: ws });
    const tracked = await fc.snapshot('s', 'u3');
    assert.equal((await fc.readFileAtAnchor('s', 'u3', 'out/deep/f.txt'))?.toString(), 'bbbb\n');
    await fc.dispose();
    const full = await new FileCheckpointer({ workspaceRoot: ws, home: join(home, 'other') }).snapshot('s', 'u3');
    assert.equal(tracked.root, full.root);
  } finally {
    await cleanup();
  }
});

test('gc removes what no snapshot reaches and keeps what one does', async () => {
  const { ws, home, cleanup } = await workspace(10);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'big.txt'), 'unique line\n'.repeat(5000));
    await fc.snapshot('s', 'u2');
    const { compacted, ...collected } = await fc.gc();
    assert.deepEqual(collected, { removedObjects: 0, freedBytes: 0, prunedSnapshots: [] });
    assert.ok(compacted && compacted.bytesAfter < compacted.bytesBefore, 'then it compacts what is left');
    await fc.deleteSnapshot('s', 'u2');
    const res = await fc.gc();
    assert.ok(res.removedObjects >= 2, 'the big blob and the root tree of u2 are gone');
    assert.ok(res.freedBytes > 0);
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'm0/p0/f0.txt'), 'utf8'), 'content 0\n');
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('over the size cap the oldest snapshots are dropped; the newest always stays', async () => {
  const { ws, home, cleanup } = await workspace(5);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, sizeCapBytes: 30_000 });
    const pruned: string[] = [];
    for (let i = 0; i < 6; i++) {
      // incompressible content, so each snapshot really costs its bytes
      await writeFile(join(ws, 'data.bin'), randomBytes(12_000));
      const s = await fc.snapshot('s', `u${i}`);
      pruned.push(...s.pruned.map((p) => p.anchorId));
    }
    assert.ok(pruned.length >= 3, `old snapshots dropped: ${pruned.join(',')}`);
    assert.ok(!pruned.includes('u5'));
    assert.ok(await fc.hasSnapshot('s', 'u5'));
    // what gc rewrote must still read back intact
    const keep = await fc.listSnapshots('s');
    for (const r of keep) assert.equal((await fc.rewindFiles('s', r.anchorId, { dryRun: true, anchor: userAnchor })).canRewind, true, r.anchorId);
    assert.ok((await fc.storeSize()) <= 30_000 + 20_000);
    const dry = await fc.rewindFiles('s', pruned[0]!, { dryRun: true, anchor: userAnchor });
    assert.match(dry.error!, /has no file snapshot/);
    await fc.dispose();
  } finally {
    await cleanup();
  }
});

test('a reused folder listing (unchanged folder mtime) still reports skipped files and picks them up once they fit', async () => {
  const { ws, home, cleanup } = await workspace(3);
  try {
    await writeFile(join(ws, 'm0/big.txt'), 'x'.repeat(2000));
    const past = new Date(Date.now() - 60_000);
    await utimes(join(ws, 'm0/big.txt'), past, past);
    await utimes(join(ws, 'm0'), past, past);
    const make = () => new FileCheckpointer({ workspaceRoot: ws, home, maxFileSize: 1000 });
    const first = await make().snapshot('s', 'u1');
    assert.deepEqual(
      first.skipped.map((s) => s.path),
      ['m0/big.txt'],
    );
    const second = await make().snapshot('s', 'u2');
    assert.deepEqual(
      second.skipped.map((s) => s.path),
      ['m0/big.txt'],
      'still reported from the cached listing',
    );
    assert.equal(second.ignoredCount, first.ignoredCount);
    await writeFile(join(ws, 'm0/big.txt'), 'small now\n'); // content changes do not touch the folder's mtime
    await utimes(join(ws, 'm0'), past, past);
    const third = await make().snapshot('s', 'u3');
    assert.deepEqual(third.skipped, []);
    assert.equal(third.files, first.files + 1);
  } finally {
    await cleanup();
  }
});

test('a fresh process with nothing changed leaves the stat cache file as it is; a change rewrites it', async () => {
  const { ws, home, cleanup } = await workspace(30);
  try {
    const snapshotInFreshCheckpointer = async (anchor: string) => {
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        return { summary: await fc.snapshot('s', anchor), cacheFile: join(fc.storeDir, 'stat-index.bin') };
      } finally {
        await fc.dispose();
      }
    };
    await afterRacyWindow();
    const first = await snapshotInFreshCheckpointer('u1');
    const { ino } = await stat(first.cacheFile);
    const same = await snapshotInFreshCheckpointer('u2');
    assert.equal(same.summary.hashedFiles, 0);
    assert.equal((await stat(same.cacheFile)).ino, ino, 'the same bytes were not written again');
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed\n');
    const changed = await snapshotInFreshCheckpointer('u3');
    assert.equal(changed.summary.hashedFiles, 1);
    assert.notEqual((await stat(changed.cacheFile)).ino, ino, 'a changed tree is saved');
    const after = await snapshotInFreshCheckpointer('u4');
    assert.equal(after.summary.hashedFiles, 1, 'the changed file was modified just now, so it is read once more');
  } finally {
    await cleanup();
  }
});

test('on a big tree a fresh process that finds a few files changed leaves the stat index as it is; the next one reads them again and snapshots the same', async () => {
  const { ws, home, cleanup } = await workspace(600);
  try {
    // folders listed just after they changed are listed again by the next process: aged, as a real tree's are
    const past = new Date(Date.now() - 60_000);
    for (let m = 0; m < 5; m++) {
      for (let p = 0; p < 3; p++) await utimes(join(ws, `m${m}/p${p}`), past, past);
      await utimes(join(ws, `m${m}`), past, past);
    }
    await utimes(ws, past, past);
    await afterRacyWindow();
    const fresh = async (anchor: string) => {
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        return { summary: await fc.snapshot('s', anchor), cacheFile: join(fc.storeDir, 'stat-index.bin') };
      } finally {
        await fc.dispose();
      }
    };
    const first = await fresh('u1');
    await fresh('u1b'); // the files of the first scan were recent: read once more, then the index holds
    const { ino } = await stat(first.cacheFile);
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed\n');
    const changed = await fresh('u2');
    assert.equal(changed.summary.hashedFiles, 1);
    assert.equal((await stat(changed.cacheFile)).ino, ino, 'one file of 600: the index is not written');
    const again = await fresh('u3');
    assert.equal(again.summary.root, changed.summary.root, 'the stale index gives the same snapshot');
    assert.equal(again.summary.hashedFiles, 1, 'the file changed since the index is read again');
    const paths = ['m1/p1/f1.txt', 'm2/p2/f2.txt', 'm3/p0/f3.txt', 'm4/p1/f4.txt', 'm0/p2/f5.txt'];
    for (const p of paths) await writeFile(join(ws, p), `changed ${p}\n`);
    const many = await fresh('u4');
    assert.equal(many.summary.hashedFiles, 1 + paths.length);
    assert.notEqual((await stat(many.cacheFile)).ino, ino, 'more than 1 path in 256 changed: the index is written again');
  } finally {
    await cleanup();
  }
});

test('a fresh process that leaves the stat index as it is writes what it learnt beside it: the next one reads nothing again', async () => {
  const { ws, home, cleanup } = await workspace(2000);
  try {
    const past = new Date(Date.now() - 60_000);
    const age = async () => {
      for (let m = 0; m < 5; m++) {
        for (let p = 0; p < 3; p++) await utimes(join(ws, `m${m}/p${p}`), past, past);
        await utimes(join(ws, `m${m}`), past, past);
      }
      await utimes(ws, past, past);
    };
    await age();
    await afterRacyWindow();
    const fresh = async (anchor: string) => {
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        return { summary: await fc.snapshot('s', anchor), cacheFile: join(fc.storeDir, 'stat-index.bin') };
      } finally {
        await fc.dispose();
      }
    };
    const first = await fresh('u1');
    await fresh('u1b');
    const { ino } = await stat(first.cacheFile);
    // edited a while ago (not racy), in place: the folder's listing holds
    const older = new Date(Date.now() - 30_000);
    for (const p of ['m0/p0/f0.txt', 'm1/p1/f1.txt']) {
      await writeFile(join(ws, p), `changed ${p}\n`);
      await utimes(join(ws, p), older, older);
    }
    await afterRacyWindow();
    const changed = await fresh('u2');
    assert.equal(changed.summary.hashedFiles, 2);
    assert.equal((await stat(changed.cacheFile)).ino, ino, 'two files of 2,000: the index is not written');
    const patchFile = join(home, 'checkpoints', (await readdir(join(home, 'checkpoints')))[0]!, 'stat-index.patch');
    assert.ok((await stat(patchFile)).size > 0, 'a patch is written beside it');
    const again = await fresh('u3');
    assert.equal(again.summary.root, changed.summary.root);
    assert.equal(again.summary.hashedFiles, 0, 'the patch says what the two files hold now');
    // a third change adds to the patch; a file the patch knew, changed again, is read again
    await writeFile(join(ws, 'm2/p2/f2.txt'), 'changed too\n');
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed again\n');
    for (const p of ['m2/p2/f2.txt', 'm0/p0/f0.txt']) await utimes(join(ws, p), older, older);
    await afterRacyWindow();
    const third = await fresh('u4');
    assert.equal(third.summary.hashedFiles, 2);
    const fourth = await fresh('u5');
    assert.equal(fourth.summary.hashedFiles, 0);
    assert.equal(fourth.summary.root, third.summary.root);
    assert.equal((await stat(fourth.cacheFile)).ino, ino, 'still the index of the first snapshot');
    // a new file is not something a patch can say: that folder is looked at again until the index is written anew
    await writeFile(join(ws, 'm3/p0/new.txt'), 'new\n');
    await utimes(join(ws, 'm3/p0/new.txt'), older, older);
    await afterRacyWindow();
    const added = await fresh('u6');
    assert.equal(added.summary.files, third.summary.files + 1);
    const after = await fresh('u7');
    assert.equal(after.summary.root, added.summary.root);
    assert.equal(after.summary.hashedFiles, 1, 'the new file is read again (its folder changed since the index)');
  } finally {
    await cleanup();
  }
});

/** The stat index as a version without patches wrote it: its header without an id (sections moved, CRC-32 redone). */
function withoutId(buf: Buffer): Buffer {
  const align8 = (n: number) => (n + 7) & ~7;
  const [headerBytes, nameBytes] = [buf.readUInt32LE(8), buf.readUInt32LE(12)];
  const header = JSON.parse(buf.toString('utf8', 20, 20 + headerBytes));
  delete header.id;
  const text = Buffer.from(JSON.stringify(header));
  const names = buf.subarray(20 + headerBytes, 20 + headerBytes + nameBytes);
  const rest = buf.subarray(align8(20 + headerBytes + nameBytes), buf.length - 4);
  const at = align8(20 + text.length + names.length);
  const out = Buffer.alloc(at + rest.length + 4);
  buf.copy(out, 0, 0, 20);
  out.writeUInt32LE(text.length, 8);
  text.copy(out, 20);
  names.copy(out, 20 + text.length);
  rest.copy(out, at);
  out.writeUInt32LE(crc32(out.subarray(0, out.length - 4)), out.length - 4);
  return out;
}

test('a stat index from before patches (no id) is written again once, so that the next processes can patch it', async () => {
  const { ws, home, cleanup } = await workspace(2000);
  try {
    const past = new Date(Date.now() - 60_000);
    for (let m = 0; m < 5; m++) {
      for (let p = 0; p < 3; p++) await utimes(join(ws, `m${m}/p${p}`), past, past);
      await utimes(join(ws, `m${m}`), past, past);
    }
    await utimes(ws, past, past);
    await afterRacyWindow();
    const fresh = async (anchor: string) => {
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      try {
        return { summary: await fc.snapshot('s', anchor), cacheFile: join(fc.storeDir, 'stat-index.bin') };
      } finally {
        await fc.dispose();
      }
    };
    const first = await fresh('u1');
    await fresh('u1b');
    await writeFile(first.cacheFile, withoutId(await readFile(first.cacheFile)));
    const { ino } = await stat(first.cacheFile);
    const older = new Date(Date.now() - 30_000);
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed\n');
    await utimes(join(ws, 'm0/p0/f0.txt'), older, older);
    await afterRacyWindow();
    const changed = await fresh('u2');
    assert.equal(changed.summary.hashedFiles, 1, 'the old index is used');
    assert.notEqual((await stat(changed.cacheFile)).ino, ino, 'one file of 2,000, but the index is written again, with an id');
    const { ino: withId } = await stat(changed.cacheFile);
    await writeFile(join(ws, 'm1/p1/f1.txt'), 'changed\n');
    await utimes(join(ws, 'm1/p1/f1.txt'), older, older);
    await afterRacyWindow();
    assert.equal((await fresh('u3')).summary.hashedFiles, 1);
    assert.equal((await stat(changed.cacheFile)).ino, withId, 'from then on a patch');
    assert.equal((await fresh('u4')).summary.hashedFiles, 0);
  } finally {
    await cleanup();
  }
});

test('a tracked snapshot saves the stat cache after a full check, not after each small refresh; dispose saves the rest', async () => {
  const { ws, home, cleanup } = await workspace(30);
  try {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home, fullCheckIntervalMs: 3_600_000 });
    const cacheFile = join(fc.storeDir, 'stat-index.bin');
    await afterRacyWindow();
    fc.notifyChanged([]);
    await fc.snapshot('s', 'u1'); // the tracker's first check is a full one
    const { ino } = await stat(cacheFile);
    await writeFile(join(ws, 'm0/p0/f0.txt'), 'changed\n');
    fc.notifyChanged(['m0/p0/f0.txt']);
    assert.equal((await fc.snapshot('s', 'u2')).hashedFiles, 1);
    assert.equal((await stat(cacheFile)).ino, ino, 'not rewritten after a small refresh');
    fc.markAllDirty();
    await fc.snapshot('s', 'u3');
    const afterFull = (await stat(cacheFile)).ino;
    assert.notEqual(afterFull, ino, 'saved after a full check');
    await writeFile(join(ws, 'm1/p1/f1.txt'), 'changed too\n');
    fc.notifyChanged(['m1/p1/f1.txt']);
    await fc.snapshot('s', 'u4');
    await fc.dispose();
    assert.notEqual((await stat(cacheFile)).ino, afterFull, 'dispose saves what changed since');
    // a fresh process trusts that cache: only the racy files (changed just now) are read again
    const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
    const s = await fresh.snapshot('s', 'u5');
    await fresh.dispose();
    assert.ok(s.hashedFiles <= 2, `read ${s.hashedFiles}`);
    assert.equal((await fresh.readFileAtAnchor('s', 'u5', 'm1/p1/f1.txt'))?.toString(), 'changed too\n');
  } finally {
    await cleanup();
  }
});

test('many snapshots by fresh processes keep the number of packs bounded, and the oldest snapshot still reads back', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'version 0\n', 'b/c.txt': 'stays\n' });
    let storeDir = '';
    for (let i = 0; i < 40; i++) {
      if (i > 0) await writeFile(join(ws, 'a.txt'), `version ${i}\n`);
      const fc = new FileCheckpointer({ workspaceRoot: ws, home });
      storeDir = fc.storeDir;
      await fc.snapshot('s', `u${i}`);
      await fc.dispose();
    }
    const packs = (await readdir(join(storeDir, 'packs'))).filter((n) => n.endsWith('.pack'));
    assert.ok(packs.length <= 33, `${packs.length} packs after 40 snapshots`);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    try {
      assert.equal((await fc.readFileAtAnchor('s', 'u0', 'a.txt'))?.toString(), 'version 0\n');
      assert.equal((await fc.readFileAtAnchor('s', 'u39', 'a.txt'))?.toString(), 'version 39\n');
      assert.equal((await fc.readFileAtAnchor('s', 'u17', 'b/c.txt'))?.toString(), 'stays\n');
    } finally {
      await fc.dispose();
    }
  } finally {
    await base.cleanup();
  }
});

test('tracking (the service): small packs are merged once snapshots pause, never inside a snapshot; a fresh process merges at once', async () => {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  await writeTree(ws, { 'a.txt': 'a\n' });
  const packs = async (fc: FileCheckpointer) =>
    ((await readdir(fc.storeDir, { recursive: true })) as string[]).filter((f) => f.endsWith('.pack') && !f.includes('tmp-')).length;
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    fc.notifyChanged([]); // tracking mode, as the service's checkpointer
    for (let i = 0; i < 34; i++) {
      await writeFile(join(ws, `f${i}.txt`), `${i}\n`);
      fc.notifyChanged([`f${i}.txt`]);
      await fc.snapshot('s', `u${i}`);
    }
    assert.ok((await packs(fc)) > 32, 'not merged inside the snapshots');
    // the merge starts a second after the last snapshot; a loaded machine may take a while to finish it
    const deadline = Date.now() + 30_000;
    while ((await packs(fc)) > 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok((await packs(fc)) <= 2, `merged once snapshots paused (${await packs(fc)} packs)`);
    assert.equal((await fc.readFileAtAnchor('s', 'u0', 'f0.txt'))?.toString(), '0\n');
    assert.equal((await fc.readFileAtAnchor('s', 'u33', 'f33.txt'))?.toString(), '33\n');
  } finally {
    await fc.dispose();
  }
  const fresh = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    for (let i = 0; i < 34; i++) {
      await writeFile(join(ws, `g${i}.txt`), `${i}\n`);
      await fresh.snapshot('s', `v${i}`);
    }
    assert.ok((await packs(fresh)) <= 33, 'a fresh process merges in the snapshot');
  } finally {
    await fresh.dispose();
    await base.cleanup();
  }
});
