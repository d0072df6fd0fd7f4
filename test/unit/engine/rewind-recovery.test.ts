// A rewind, undo or redo killed between its files and its branch leaves `pending` in the folder's rewind log; the next
// undo (or any rewind, redo or switch of the folder) settles it first: a rewind is rolled back, an undo whose files
// moved is finished. The states a kill leaves are made here by hand (the files moved by the store alone, `pending`
// written as the engine writes it); the fault suite's kill-steps-* kinds kill the real commands at every step.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { RewindLog, newStepId, type RewindStep } from '../../../src/core/engine/rewind-log';
import { FileCheckpointer } from '../../../src/core/files';
import { fileCheckpointerOptions, parseSettings } from '../../../src/core/settings/settings';

describe('the rewind log is the journal of files and branch together', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let engine: RewindEngine;
  let file: string;
  let sessionId: string;
  const settings = () => parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {});
  const read = () => readFile(join(ws, 'a.txt'), 'utf8');
  const active = async () => (await engine.branches(file)).find((b) => b.isActive)!.name;
  const store = () => new FileCheckpointer(fileCheckpointerOptions(settings(), ws));
  const log = () => new RewindLog(home);
  const step = (over: Partial<RewindStep>): RewindStep => ({
    id: newStepId(),
    sessionRef: file,
    sessionId,
    anchorEntryId: 'u1',
    mode: 'all',
    fromBranch: 'main',
    files: false,
    undoDepth: 0,
    at: new Date().toISOString(),
    ...over,
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-rewind-recovery-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    await mkdir(ws);
    engine = new RewindEngine({ settings: settings(), workspaceRoots: [ws], warn: () => {} });
    const made = await engine.newSession(ws, { title: 'recovery' });
    file = made.file;
    sessionId = made.id;
    await writeFile(join(ws, 'a.txt'), 'at u1\n');
    await engine.appendMessage(file, { role: 'user', content: 'first' }, { id: 'u1' });
    await writeFile(join(ws, 'a.txt'), 'after u1\n');
    await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, { id: 'a1' });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('a rewind killed after its files moved and before its branch did is rolled back by the next undo', async () => {
    const folder = realpathSync(ws);
    // the files moved (the store's journal done), the branch not yet, the step not written: as a kill there leaves it
    const fc = store();
    await fc.rewindFiles(sessionId, 'u1', { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    await fc.dispose();
    assert.equal(await read(), 'at u1\n');
    await log().write(folder, { v: 2, folder, undo: [], redo: [], pending: { op: 'apply', step: step({}), startedAt: new Date().toISOString() } });

    // the next undo settles it first: files back, branch as it was, nothing left to undo or redo
    await assert.rejects(engine.undoLastRewind(file), /no file rewind to undo/);
    assert.deepEqual([await read(), await active()], ['after u1\n', 'main']);
    assert.equal((await log().read(folder)).pending, undefined);
    await assert.rejects(engine.redoRewind(file), /no undone rewind to redo/);
  });

  it('an undo killed after its files moved and before its branch did is finished by the next command', async () => {
    const folder = realpathSync(ws);
    await engine.applyRewind(file, 'u1', 'all');
    assert.deepEqual([await read(), await active()], ['at u1\n', 'main-v2']);
    const logged = await log().read(folder);
    const last = logged.undo.at(-1)!;
    const fc = store();
    const [filesTop] = (await fc.undoStack(sessionId)).slice(-1);
    await fc.undoLastRewind(sessionId); // the files put back, then the kill
    await fc.dispose();
    await log().write(folder, { ...logged, pending: { op: 'undo', step: last, filesTop: filesTop!, startedAt: new Date().toISOString() } });

    // a branch switch of the folder settles it first: the undo is finished (branch main), then the switch runs
    await engine.switchBranch(file, 'main');
    assert.deepEqual([await read(), await active()], ['after u1\n', 'main']);
    const settled = await log().read(folder);
    assert.equal(settled.pending, undefined);
    assert.deepEqual([settled.undo.length, settled.redo.at(-1)?.id], [0, last.id], 'the step moved to redo, as the undo would have');
    const redone = await engine.redoRewind(file);
    assert.deepEqual([redone.branch, await read()], ['main-v2', 'at u1\n']);
  });
});
