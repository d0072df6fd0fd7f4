import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

async function scenario(fn: (ws: string, fc: FileCheckpointer) => Promise<void>): Promise<void> {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'agent.ts': 'v1\n', 'mine.md': 'notes v1\n', 'other.ts': 'o1\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1', 'user-message');
    // the agent's turn changes two files, then the turn ends
    await writeFile(join(ws, 'agent.ts'), 'v2 by the agent\n');
    await writeFile(join(ws, 'mine.md'), 'notes v2 by the agent\n');
    await fc.snapshot('s', 'a1', 'turn-end');
    // then the user edits one of them by hand
    await writeFile(join(ws, 'mine.md'), 'notes v3 typed by the user\n');
    try {
      await fn(ws, fc);
    } finally {
      await fc.dispose();
    }
  } finally {
    await base.cleanup();
  }
}

test('files changed by hand after the last turn are listed and left alone unless the caller says so', async () => {
  await scenario(async (ws, fc) => {
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry.userModified, ['mine.md']);
    assert.deepEqual(dry.filesChanged, ['agent.ts']);
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.userModified]),
      [
        ['agent.ts', false],
        ['mine.md', true],
      ],
    );
    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(real.filesChanged, ['agent.ts']);
    assert.equal(await readFile(join(ws, 'agent.ts'), 'utf8'), 'v1\n');
    assert.equal(await readFile(join(ws, 'mine.md'), 'utf8'), 'notes v3 typed by the user\n');
  });
});

test('overwriteUserModified rewinds them too', async () => {
  await scenario(async (ws, fc) => {
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, overwriteUserModified: true, anchor: userAnchor });
    assert.deepEqual(dry.filesChanged, ['agent.ts', 'mine.md']);
    assert.deepEqual(dry.userModified, ['mine.md']);
    await fc.rewindFiles('s', 'u1', { overwriteUserModified: true, anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'mine.md'), 'utf8'), 'notes v1\n');
  });
});

test('undoLastRewind brings back the state before the rewind, including files the rewind deleted', async () => {
  await scenario(async (ws, fc) => {
    await writeFile(join(ws, 'created-later.ts'), 'new\n');
    const before = await fingerprint(ws);
    await fc.rewindFiles('s', 'u1', { overwriteUserModified: true, anchor: userAnchor });
    assert.notDeepEqual(await fingerprint(ws), before);
    const undo = await fc.undoLastRewind('s');
    assert.deepEqual(undo.filesChanged, ['agent.ts', 'created-later.ts', 'mine.md']);
    assert.deepEqual(await fingerprint(ws), before);
    await assert.rejects(fc.undoLastRewind('s'), /There is no file rewind to undo in this session\./);
  });
});

test('undo keeps a file the user changed after the rewind', async () => {
  await scenario(async (ws, fc) => {
    await fc.rewindFiles('s', 'u1', { overwriteUserModified: true, anchor: userAnchor });
    await writeFile(join(ws, 'agent.ts'), 'edited after the rewind\n');
    await rm(join(ws, 'mine.md'));
    const undo = await fc.undoLastRewind('s');
    assert.deepEqual(undo.userModified.sort(), ['agent.ts', 'mine.md']);
    assert.deepEqual(undo.filesChanged, []);
    assert.equal(await readFile(join(ws, 'agent.ts'), 'utf8'), 'edited after the rewind\n');
  });
});

test('undo survives a restart (it is recorded in the store)', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': '1\n' });
    const home = join(base.dir, 'home');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'a.txt'), '2\n');
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    await fc.dispose();
    const again = new FileCheckpointer({ workspaceRoot: ws, home });
    await again.undoLastRewind('s');
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), '2\n');
    await again.dispose();
  } finally {
    await base.cleanup();
  }
});

test('hand edits are judged against the latest turn-end snapshot that still exists', async () => {
  const base = await tempBase();
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'f.txt': '1\n' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, 'f.txt'), '2 by the agent\n');
    await fc.snapshot('s', 'a1', 'turn-end');
    await fc.deleteSnapshot('s', 'a1'); // the pointer now names a record that is gone: fall back to scanning
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry.userModified, [], 'no turn-end left: nothing counts as a hand edit');
    await fc.snapshot('s', 'a2', 'turn-end');
    await writeFile(join(ws, 'f.txt'), '3 by hand\n');
    const dry2 = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry2.userModified, ['f.txt']);
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});
