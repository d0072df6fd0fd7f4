// Undo undoes the whole rewind (files and the branch the session was on), Redo applies it again; the branch a rewind
// made stays in the tree; a file rewind (rewindFiles) is a step of the same log.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';

describe('engine: undo and redo of a whole rewind', () => {
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let file: string;
  const ids: Record<string, string> = {};
  const read = (name: string) => readFile(join(ws, name), 'utf8');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-undo-redo-'));
    ws = join(dir, 'ws');
    await mkdir(ws);
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? join(dir, 'home') : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    file = await engine.createSession(ws, { title: 'undo redo' });
    await writeFile(join(ws, 'a.txt'), 'one\n');
    ids.u1 = (await engine.appendMessage(file, { role: 'user', content: 'first' })).entryId;
    await writeFile(join(ws, 'a.txt'), 'two\n');
    ids.a1 = (await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'changed a' }] })).entryId;
    ids.u2 = (await engine.appendMessage(file, { role: 'user', content: 'second' })).entryId;
    await writeFile(join(ws, 'a.txt'), 'three\n');
    ids.a2 = (await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'changed a again' }] })).entryId;
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const active = async () => (await engine.branches(file)).find((b) => b.isActive)!.name;

  it('undo puts back the files and the branch; redo applies both again; the made branch stays', async () => {
    assert.equal(await engine.describeUndo(file), undefined, 'nothing to undo yet');
    const outcome = await engine.applyRewind(file, ids.u1!, 'all');
    assert.equal(outcome.branch?.name, 'main-v2');
    assert.equal(await read('a.txt'), 'one\n');
    assert.equal(
      await engine.describeUndo(file),
      'Undo will put the files back as they were before the rewind and return to branch "main" (branch "main-v2" stays).',
    );

    const undone = await engine.undoLastRewind(file);
    assert.deepEqual([undone.branch, undone.filesChanged], ['main', ['a.txt']]);
    assert.equal(await read('a.txt'), 'three\n');
    assert.equal(await active(), 'main');
    assert.deepEqual((await engine.branches(file)).map((b) => b.name).sort(), ['main', 'main-v2']);

    const redone = await engine.redoRewind(file);
    assert.equal(redone.branch, 'main-v2');
    assert.equal(await read('a.txt'), 'one\n');
    assert.equal(await active(), 'main-v2');
    await assert.rejects(engine.redoRewind(file), /no undone rewind to redo/);

    // and undo again after the redo
    await engine.undoLastRewind(file);
    assert.equal(await read('a.txt'), 'three\n');
    assert.equal(await active(), 'main');
  });

  it('a file rewind (rewindFiles) is a step of the log too: undone alone first, then the rewind before it', async () => {
    await engine.applyRewind(file, ids.u2!, 'all');
    assert.equal(await read('a.txt'), 'two\n');
    const branchAfterRewind = await active();
    await engine.rewindFiles(file, ids.u1!, { overwriteUserModified: true });
    assert.equal(await read('a.txt'), 'one\n');
    const undone = await engine.undoLastRewind(file);
    assert.equal(undone.branch, undefined, 'only the files of the last file rewind');
    assert.equal(await read('a.txt'), 'two\n');
    assert.equal(await active(), branchAfterRewind);
    const before = await engine.undoLastRewind(file);
    assert.equal(before.branch, 'main');
    assert.equal(await read('a.txt'), 'three\n');
    // and redo replays both, in order (the file rewind over what the user had, as it did)
    assert.equal((await engine.redoRewind(file)).branch, branchAfterRewind);
    await engine.redoRewind(file);
    assert.equal(await read('a.txt'), 'one\n');
  });
});
