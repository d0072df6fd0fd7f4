import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { SessionManager } from '../../../src/core/session/session-manager';

describe('engine: sessions, branches and checkpoints over real files', () => {
  let dir: string;
  let home: string;
  let workspace: string;
  let engine: RewindEngine;
  let file: string;
  const ids: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-engine-'));
    home = join(dir, 'home');
    workspace = join(dir, 'ws');
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [workspace],
      warn: () => {},
    });
    const s = SessionManager.create(workspace, { home, title: 'Fix the parser', deferUntilAssistant: false });
    ids.u1 = s.appendMessage({ role: 'user', content: 'parse dates' });
    ids.a1 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
    ids.u2 = s.appendMessage({ role: 'user', content: 'also times' });
    ids.a2 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'done too' }] });
    await s.close();
    file = s.sessionRef!;
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the workspace session with its title', async () => {
    const sessions = await engine.listSessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.title, 'Fix the parser');
    assert.equal(sessions[0]!.source, 'agent-rewind');
    assert.equal(sessions[0]!.sessionRef, file);
  });

  it('forks, marks the branch point in the transcript, and switches back', async () => {
    const branch = await engine.fork(file, ids.u1!);
    assert.equal(branch.name, 'main-v2');
    let details = await engine.describeSession(file);
    assert.deepEqual(
      details.branches.map((b) => [b.name, b.isActive, b.messageCount]),
      [
        ['main', false, 4],
        ['main-v2', true, 1],
      ],
    );
    assert.equal(details.branches[1]!.headPreview, 'parse dates');

    const { model, items } = await engine.loadTranscript(file);
    assert.equal(model.branch, 'main-v2');
    assert.equal(model.title, 'Fix the parser');
    assert.deepEqual(
      items.map((i) => i.entryId),
      [ids.u1],
    );
    assert.deepEqual(items[0]!.otherBranches, [{ name: 'main', headEntryId: ids.a2 }]);

    await engine.switchBranch(file, 'main');
    details = await engine.describeSession(file);
    assert.equal(details.branches.find((b) => b.isActive)?.name, 'main');
    const back = await engine.loadTranscript(file);
    assert.deepEqual(
      back.items.map((i) => i.entryId),
      [ids.u1, ids.a1, ids.u2, ids.a2],
    );
    assert.deepEqual(back.items[0]!.otherBranches, [{ name: 'main-v2', headEntryId: ids.u1 }]);
  });

  it('creates, renames, restores and deletes named checkpoints', async () => {
    await engine.createCheckpoint(file, 'good state');
    await engine.renameCheckpoint(file, 'good state', 'known good');
    await assert.rejects(engine.renameCheckpoint(file, 'nope', 'x'), /Checkpoint "nope" not found/);
    let details = await engine.describeSession(file);
    assert.deepEqual(
      details.namedCheckpoints.map((c) => [c.name, c.entryId]),
      [['known good', ids.a2]],
    );
    const restored = await engine.restoreCheckpoint(file, 'known good');
    assert.equal(restored.headMessageId, ids.a2);
    await engine.deleteCheckpoint(file, 'known good');
    details = await engine.describeSession(file);
    assert.deepEqual(details.namedCheckpoints, []);
  });

  it('labels messages and sees what another process appended', async () => {
    await engine.label(file, ids.u2!, 'the important one');
    const other = await SessionManager.open(file, { home, deferUntilAssistant: false });
    await other.transaction((s) => {
      s.appendMessage({ role: 'user', content: 'from the CLI' });
    });
    await other.close();
    const { items } = await engine.loadTranscript(file);
    assert.equal(items.find((i) => i.entryId === ids.u2)?.label, 'the important one');
    assert.equal(items.at(-1)!.markdown, 'from the CLI');
  });

  it('reports corrupt lines as problems instead of failing', async () => {
    await appendFile(file, '{not json\n');
    const details = await engine.describeSession(file);
    assert.ok(
      details.problems.some((p) => /skipped/.test(p)),
      details.problems.join('; '),
    );
  });

  it('gives a clear error for a missing session file', async () => {
    await assert.rejects(engine.describeSession(join(dir, 'gone.jsonl')), /Session file not found/);
  });
});

describe('engine: searching messages', () => {
  it('finds message text across the workspace sessions through the catalog, with a clear hit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ar-search-'));
    const home = join(dir, 'home');
    const workspace = join(dir, 'ws');
    const engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [workspace],
      warn: (m) => assert.fail(`unexpected warning: ${m}`),
    });
    try {
      const s = SessionManager.create(workspace, { home, title: 'Search me', deferUntilAssistant: false });
      const wanted = s.appendMessage({ role: 'user', content: 'please refactor the tokenizer module' });
      s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'sure' }] });
      await s.close();
      const hits = await engine.searchMessages('tokenizer');
      assert.equal(hits.length, 1);
      assert.equal(hits[0]!.entryId, wanted);
      assert.equal(hits[0]!.sessionTitle, 'Search me');
      assert.equal(hits[0]!.onActiveBranch, true);
      assert.match(hits[0]!.preview, /tokenizer/);
      assert.deepEqual(await engine.searchMessages('nothing-like-this'), []);
    } finally {
      await engine.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
