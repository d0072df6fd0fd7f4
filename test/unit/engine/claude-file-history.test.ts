// Where a Claude Code prompt has no snapshot of ours (hooks not installed then), Rewind to here uses Claude Code's own
// file history, read-only: only the files it tracked go back, everything else (a file a shell command made) is left
// as it is, the preview says what such a checkpoint does not cover, and the usual undo works.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { Transcript } from '../sources/claude/builder';

const sha = async (dir: string) => {
  const h = createHash('sha256');
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    h.update(name);
    h.update(await readFile(join(dir, name)).catch(() => Buffer.alloc(0)));
  }
  return h.digest('hex');
};

describe("engine: Claude Code's own file history where there is no snapshot of ours", () => {
  let dir: string;
  let ws: string;
  let config: string;
  let engine: RewindEngine;
  let file: string;
  let p2 = '';
  const sessionId = 'dddddddd-1111-4222-8333-444444444444';
  const backup = (name: string | null, version: number) => ({ backupFileName: name, version, backupTime: '2026-01-01T00:00:00.000Z' });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-claude-history-'));
    ws = join(dir, 'ws');
    config = join(dir, 'claude');
    await mkdir(ws);
    const t = new Transcript(sessionId, ws);
    const p1 = t.user(null, 'write the app');
    const a1 = t.text(p1, 'msg_1', 'written');
    p2 = t.user(a1, 'change the app');
    // at prompt 2, Claude had app.ts at its first version and new.ts did not exist yet
    t.raw({
      type: 'file-history-snapshot',
      messageId: p2,
      isSnapshotUpdate: false,
      snapshot: { messageId: p2, timestamp: t.tick(), trackedFileBackups: { [join(ws, 'app.ts')]: backup('abc@v1', 1) } },
    });
    t.raw({ type: 'file-history-delta', messageId: p2, trackingPath: join(ws, 'new.ts'), backup: backup(null, 1) });
    t.text(p2, 'msg_2', 'changed');
    file = t.write(config, '-ws');
    await mkdir(join(config, 'file-history', sessionId), { recursive: true });
    await writeFile(join(config, 'file-history', sessionId, 'abc@v1'), 'export const v = 1;\n');
    // the workspace now: Claude edited app.ts and created new.ts; a shell command made build.log
    await writeFile(join(ws, 'app.ts'), 'export const v = 2;\n');
    await writeFile(join(ws, 'new.ts'), 'export {};\n');
    await writeFile(join(ws, 'build.log'), 'ok\n');
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? join(dir, 'home') : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home: join(dir, 'home') })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('previews only the files Claude tracked, and says what its checkpoint does not cover', async () => {
    const history = await sha(join(config, 'file-history'));
    const preview = await engine.previewRewind(file, p2);
    assert.ok(preview.files.ok, JSON.stringify(preview.files));
    assert.deepEqual([...preview.files.filesChanged].sort(), ['app.ts', 'new.ts']);
    assert.match(preview.files.note ?? '', /only the files Claude's edit tools \(Write, Edit\) changed, not changes made through Bash/);
    assert.equal(await sha(join(config, 'file-history')), history, "Claude Code's backups are only read");
  });

  it('restores them (a created file removed, an edited one back), leaves the rest, and undo puts it back', async () => {
    await engine.applyRewind(file, p2, 'files');
    assert.equal(await readFile(join(ws, 'app.ts'), 'utf8'), 'export const v = 1;\n');
    assert.deepEqual((await readdir(ws)).sort(), ['app.ts', 'build.log']);
    await engine.undoLastRewind(file);
    assert.equal(await readFile(join(ws, 'app.ts'), 'utf8'), 'export const v = 2;\n');
    assert.deepEqual((await readdir(ws)).sort(), ['app.ts', 'build.log', 'new.ts']);
  });
});
