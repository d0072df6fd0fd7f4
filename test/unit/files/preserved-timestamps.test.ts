// Issue 22, item 1: an edit that keeps a file's size and modification time — what `cp -p`, `rsync -t`, `tar x`,
// `touch -r` and restores from a backup do — must never be taken for "unchanged" by the stat cache. Before ctime and
// the device were compared, a fresh process (and the checkpoint service, for a change made while it was down) kept
// the old hash, so the snapshot named the older content and a rewind to it wrote that older content back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer, type FileCheckpointerOptions } from '../../../src/core/files';
import { CheckpointService, ServiceFirstCheckpoints } from '../../../src/core/service';
import { CONNECT_UNDER_LOAD_MS, tempBase, writeTree } from './helpers';

const STAMP = new Date('2024-03-01T12:00:00Z');
/** Past the stat cache's racy window (2 s): the first versions look like files written a while ago. */
const settle = () => new Promise((r) => setTimeout(r, 2200));

const BEFORE = {
  'touch-r.txt': 'version A\n',
  'cp-p.txt': 'version A\n',
  'rsync-t.txt': 'version A\n',
  'tarx/kept.txt': 'kept\n',
};
const AFTER = { 'touch-r.txt': 'version B\n', 'cp-p.txt': 'version B\n', 'rsync-t.txt': 'version B\n', 'tarx/kept.txt': 'kept\n', 'tarx/new.txt': 'new\n' };

async function setUp(dir: string): Promise<{ ws: string; backup: string }> {
  const ws = join(dir, 'ws');
  const backup = join(dir, 'backup');
  await writeTree(ws, BEFORE);
  // a backup with the same names and stamps, other content of the same size
  await writeTree(backup, { 'cp-p.txt': 'version B\n', ref: '' });
  for (const p of [...Object.keys(BEFORE).map((r) => join(ws, r)), join(ws, 'tarx'), join(backup, 'cp-p.txt'), join(backup, 'ref')])
    await utimes(p, STAMP, STAMP);
  return { ws, backup };
}

/** The edits, each keeping size and mtime (and, for tar x, the folder's mtime) as those tools do. */
async function editKeepingStamps(ws: string, backup: string): Promise<void> {
  await writeFile(join(ws, 'touch-r.txt'), 'version B\n');
  execFileSync('touch', ['-r', join(backup, 'ref'), join(ws, 'touch-r.txt')]);
  execFileSync('cp', ['-p', join(backup, 'cp-p.txt'), join(ws, 'cp-p.txt')]);
  // rsync -t: a temp file with the source's stamp renamed over the old one
  await writeFile(join(ws, '.rsync-t.txt.tmp'), 'version B\n');
  await utimes(join(ws, '.rsync-t.txt.tmp'), STAMP, STAMP);
  await rename(join(ws, '.rsync-t.txt.tmp'), join(ws, 'rsync-t.txt'));
  // tar x: an entry added to a folder, then the folder's stamp put back from the archive
  await writeFile(join(ws, 'tarx/new.txt'), 'new\n');
  await utimes(join(ws, 'tarx/new.txt'), STAMP, STAMP);
  await utimes(join(ws, 'tarx'), STAMP, STAMP);
  for (const rel of ['touch-r.txt', 'cp-p.txt', 'rsync-t.txt']) assert.equal((await lstat(join(ws, rel))).mtimeMs, STAMP.getTime(), `${rel} kept its mtime`);
}

async function assertSnapshotHolds(cp: FileCheckpointer, anchor: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) assert.equal((await cp.readFileAtAnchor('s', anchor, rel))?.toString(), text, `${rel} at ${anchor}`);
}

async function scratchRoot(ws: string, home: string): Promise<string> {
  const cp = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await cp.snapshot('scratch', 'x')).root;
  } finally {
    await cp.dispose();
  }
}

test('a fresh process sees edits that kept size and mtime (touch -r, cp -p, rsync -t, tar x) and a rewind brings them back', { timeout: 60_000 }, async () => {
  const base = await tempBase('arw-stamps-');
  try {
    const { ws, backup } = await setUp(base.dir);
    await settle();
    const opts: FileCheckpointerOptions = { workspaceRoot: ws, home: join(base.dir, 'home') };
    const first = new FileCheckpointer(opts);
    await first.snapshot('s', 'before');
    await first.dispose(); // saves the stat index, as a CLI process does

    await editKeepingStamps(ws, backup);
    const second = new FileCheckpointer(opts);
    try {
      const after = await second.snapshot('s', 'after');
      assert.equal(after.root, await scratchRoot(ws, join(base.dir, 'home-scratch')), 'the same snapshot as a process with no stat cache');
      await assertSnapshotHolds(second, 'after', AFTER);
    } finally {
      await second.dispose();
    }

    // a rewind to the snapshot after the edits writes the edited content, never the older one
    await rm(join(ws, 'tarx'), { recursive: true });
    for (const rel of ['touch-r.txt', 'cp-p.txt', 'rsync-t.txt']) await writeFile(join(ws, rel), 'version C, longer\n');
    const third = new FileCheckpointer(opts);
    try {
      await third.rewindFiles('s', 'after', { anchor: { checkpointingEnabled: true, kind: 'user-message' }, overwriteUserModified: true });
    } finally {
      await third.dispose();
    }
    for (const [rel, text] of Object.entries(AFTER)) assert.equal(execFileSync('cat', [join(ws, rel)], { encoding: 'utf8' }), text, rel);
  } finally {
    await base.cleanup();
  }
});

test('the checkpoint service sees edits that kept size and mtime made while it was down', { timeout: 60_000 }, async () => {
  const base = await tempBase('arw-stamps-svc-');
  try {
    const { ws, backup } = await setUp(base.dir);
    await settle();
    const home = join(base.dir, 'home');
    const opts: FileCheckpointerOptions = { workspaceRoot: ws, home };
    let service = new CheckpointService({ home, workspaces: [ws] });
    await service.start();
    const client = () => new ServiceFirstCheckpoints(opts, CONNECT_UNDER_LOAD_MS);
    let c = client();
    try {
      await c.snapshot('s', 'before');
      assert.equal(c.lastAnsweredBy, 'service');
    } finally {
      await c.dispose();
      await service.stop(); // saves its stat cache
    }

    await editKeepingStamps(ws, backup);
    service = new CheckpointService({ home, workspaces: [ws] });
    await service.start();
    c = client();
    try {
      const after = await c.snapshot('s', 'after');
      assert.equal(c.lastAnsweredBy, 'service');
      assert.equal(after.root, await scratchRoot(ws, join(base.dir, 'home-scratch')), 'the same snapshot as a process with no stat cache');
    } finally {
      await c.dispose();
      await service.stop();
    }
    const reader = new FileCheckpointer(opts);
    try {
      await assertSnapshotHolds(reader, 'after', AFTER);
    } finally {
      await reader.dispose();
    }
  } finally {
    await base.cleanup();
  }
});
