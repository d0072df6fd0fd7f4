// Issue 23: after Rewind to here on a Claude Code message and "Continue in Claude Code" the active session is the fork
// the rewind wrote, and palette Undo answered "There is no file rewind to undo in this session". Undo and Redo from the
// palette take the last rewind made in the workspace, wherever it was made (undo-redo-target.ts over the engine's
// folder log); given the fork (the view's menu), its origin's rewind that wrote it.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { FileCheckpointer } from '../../../src/core/files';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { undoOrRedo } from '../../../src/extension/commands/undo-redo-target';
import { Transcript } from '../sources/claude/builder';
import { readTree, replaceFiles } from '../files/helpers';

const ORIGIN = '21212121-aaaa-4333-8444-555555555555';

describe('palette Undo and Redo after a Claude Code rewind and "Continue in Claude Code"', () => {
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let originFile: string;
  const ids: Record<string, string> = {};
  const atP1 = { 'a.txt': 'v1\n' };
  const atP2 = { 'a.txt': 'v2\n', 'b.txt': 'b\n' };
  const now = { 'a.txt': 'v3\n', 'b.txt': 'b\n', 'c.txt': 'c\n' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-undo-after-fork-'));
    const home = join(dir, 'home');
    const config = join(dir, 'claude');
    ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    const o = new Transcript(ORIGIN, ws);
    ids.p1 = o.user(null, 'first', { uuid: 'bbbbbbbb-0001', promptId: 'pid-1' });
    ids.a1 = o.text(ids.p1, 'msg_1', 'one', { uuid: 'bbbbbbbb-0002', promptId: 'pid-1' });
    ids.p2 = o.user(ids.a1, 'second', { uuid: 'bbbbbbbb-0003', promptId: 'pid-2' });
    ids.a2 = o.text(ids.p2, 'msg_2', 'two', { uuid: 'bbbbbbbb-0004', promptId: 'pid-2' });
    originFile = o.write(config, '-undo-after-fork-ws');
    // the hook's snapshots of the two prompts
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await replaceFiles(ws, atP1);
    await fc.snapshot(ORIGIN, 'pid-1', 'user-message');
    await replaceFiles(ws, atP2);
    await fc.snapshot(ORIGIN, 'pid-2', 'user-message');
    await fc.dispose();
    await replaceFiles(ws, now);
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('the palette (no session given, the fork active) undoes and redoes the rewind that wrote the fork', async () => {
    const outcome = await engine.applyRewind(originFile, ids.p2!, 'all', { overwriteUserModified: true });
    const forkRef = outcome.fork!.sessionRef;
    assert.deepEqual(await readTree(ws), atP2);
    const activeIsFork = async () => forkRef; // "Continue in Claude Code": the status bar names the fork

    const undone = await undoOrRedo(engine, 'undo', undefined, activeIsFork);
    assert.deepEqual([undone?.sessionRef, [...undone!.filesChanged].sort()], [originFile, ['a.txt', 'c.txt']]);
    assert.deepEqual(await readTree(ws), now);
    assert.equal(undone?.redoAvailable, true);

    const redone = await undoOrRedo(engine, 'redo', undefined, activeIsFork);
    assert.equal(redone?.sessionRef, originFile);
    assert.deepEqual(await readTree(ws), atP2);

    // the same from the fork's own menu (the fork given): the rewind made in its origin that wrote it
    await undoOrRedo(engine, 'undo', forkRef, activeIsFork);
    assert.deepEqual(await readTree(ws), now);
    await undoOrRedo(engine, 'redo', forkRef, activeIsFork);
    assert.deepEqual(await readTree(ws), atP2);
    await undoOrRedo(engine, 'undo', undefined, activeIsFork);
    assert.deepEqual(await readTree(ws), now);
  });

  it('the palette takes the latest rewind of the workspace across sessions, in the order they were made', async () => {
    const first = await engine.applyRewind(originFile, ids.p2!, 'all', { overwriteUserModified: true }); // files at p2
    const forkRef = first.fork!.sessionRef;
    const second = await engine.applyRewind(originFile, ids.p1!, 'files', { overwriteUserModified: true }); // then at p1
    assert.equal(second.filesChanged.length > 0, true);
    assert.deepEqual(await readTree(ws), atP1);
    await undoOrRedo(engine, 'undo', undefined, async () => forkRef);
    assert.deepEqual(await readTree(ws), atP2, 'the latest rewind first');
    await undoOrRedo(engine, 'undo', undefined, async () => forkRef);
    assert.deepEqual(await readTree(ws), now);
    const nothing = await undoOrRedo(engine, 'undo', undefined, async () => forkRef).catch((e: Error) => e.message);
    assert.match(String(nothing), /no file rewind to undo/);
  });
});
