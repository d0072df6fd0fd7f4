import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

const backup = (name: string | null, version: number) => ({ backupFileName: name, version, backupTime: '2026-01-01T00:00:00.000Z' });

test('fileHistoryAt: each file Claude tracked from that prompt on, as it was when the prompt was sent', async (ctx) => {
  const t = new Transcript();
  // prompt 1: a.ts is edited (first tracked during the turn: update snapshot, pre-edit backup)
  t.raw({
    type: 'file-history-snapshot',
    messageId: 'u1',
    isSnapshotUpdate: false,
    snapshot: { messageId: 'u1', timestamp: t.tick(), trackedFileBackups: {} },
  });
  const p1 = t.user(null, 'edit a');
  t.raw({
    type: 'file-history-snapshot',
    messageId: p1,
    isSnapshotUpdate: true,
    snapshot: { messageId: p1, timestamp: t.tick(), trackedFileBackups: { '/work/proj/a.ts': backup('h1@v1', 1) } },
  });
  // prompt 2: a.ts at v2; new.ts created during the turn (delta, did not exist); b.ts relative path
  const p2 = t.user(p1, 'edit more');
  t.raw({
    type: 'file-history-snapshot',
    messageId: p2,
    isSnapshotUpdate: false,
    snapshot: { messageId: p2, timestamp: t.tick(), trackedFileBackups: { '/work/proj/a.ts': backup('h1@v2', 2) } },
  });
  t.raw({ type: 'file-history-delta', messageId: p2, trackingPath: '/work/proj/new.ts', backup: backup(null, 1) });
  t.raw({ type: 'file-history-delta', messageId: p2, trackingPath: 'src/b.ts', backup: backup('h2@v1', 1) });
  t.raw({ type: 'file-history-delta', messageId: p2, trackingPath: 'src/b.ts', backup: backup('h2@v2', 2) }); // post-edit: ignored
  const p3 = t.user(p2, 'no file history for this one');
  const configDir = tempConfigDir(ctx);
  const s = await readClaudeSession(t.write(configDir));
  const dir = join(configDir, 'file-history', t.sessionId);
  assert.deepEqual(s.fileHistoryAt(p1), {
    files: [
      { path: '/work/proj/a.ts', backupFile: join(dir, 'h1@v1') },
      { path: '/work/proj/new.ts', backupFile: null },
      { path: '/work/proj/src/b.ts', backupFile: join(dir, 'h2@v1') },
    ],
  });
  assert.deepEqual(
    s.fileHistoryAt(p2)?.files.map((f) => f.backupFile),
    [join(dir, 'h1@v2'), null, join(dir, 'h2@v1')],
  );
  assert.deepEqual(s.fileHistoryAt(p3), { files: [] });
  assert.equal(s.fileHistoryAt('nope'), undefined);
});

test('fileHistoryAt is undefined for a session without file history', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'hi');
  assert.equal((await readClaudeSession(t.write(tempConfigDir(ctx)))).fileHistoryAt(p), undefined);
});

test('2.1.330 deltas: messageId is the editing assistant line, snapshotMessageId the prompt; paths relative to the cwd, not to realParentDir', async (ctx) => {
  // as Claude Code 2.1.330 writes them (test/agents/claude-code-own-history.e2e.ts): a Write of src/util.js is tracked
  // as `src/util.js` with realParentDir `<cwd>/src`, the file's own folder; a top-level file's realParentDir is the cwd
  const t = new Transcript();
  const p1 = t.user(null, 'write it');
  t.raw({ type: 'file-history-snapshot', messageId: p1, isSnapshotUpdate: false, snapshot: { messageId: p1, timestamp: t.tick(), trackedFileBackups: {} } });
  const a = t.toolUse(p1, 'msg_A', 'toolu_1', 'Write', { file_path: '/work/proj/src/util.js', content: 'x' });
  t.raw({
    type: 'file-history-delta',
    messageId: a,
    snapshotMessageId: p1,
    trackingPath: 'README.md',
    backup: { ...backup(null, 1), realParentDir: '/work/proj' },
  });
  t.raw({
    type: 'file-history-delta',
    messageId: a,
    snapshotMessageId: p1,
    trackingPath: 'src/util.js',
    backup: { ...backup(null, 1), realParentDir: '/work/proj/src' },
  });
  t.raw({
    type: 'file-history-delta',
    messageId: a,
    snapshotMessageId: p1,
    trackingPath: 'src/util.js',
    backup: { ...backup('h@v2', 2), realParentDir: '/work/proj/src' },
  });
  const r = t.toolResult(a, 'toolu_1', 'ok');
  const p2 = t.user(r, 'again');
  t.raw({
    type: 'file-history-snapshot',
    messageId: p2,
    isSnapshotUpdate: false,
    snapshot: { messageId: p2, timestamp: t.tick(), trackedFileBackups: { 'src/util.js': { ...backup('h@v2', 2), realParentDir: '/work/proj/src' } } },
  });
  t.raw({
    type: 'file-history-delta',
    messageId: p2,
    snapshotMessageId: p2,
    trackingPath: 'docs/guide/intro.md',
    backup: { ...backup(null, 1), realParentDir: '/work/proj/docs/guide' },
  });
  const configDir = tempConfigDir(ctx);
  const s = await readClaudeSession(t.write(configDir));
  assert.deepEqual(s.fileHistoryAt(p1), {
    files: [
      { path: '/work/proj/README.md', backupFile: null },
      { path: '/work/proj/src/util.js', backupFile: null },
      { path: '/work/proj/docs/guide/intro.md', backupFile: null },
    ],
  });
  assert.deepEqual(s.fileHistoryAt(p2), {
    files: [
      { path: '/work/proj/src/util.js', backupFile: join(configDir, 'file-history', t.sessionId, 'h@v2') },
      { path: '/work/proj/docs/guide/intro.md', backupFile: null },
    ],
  });
});
