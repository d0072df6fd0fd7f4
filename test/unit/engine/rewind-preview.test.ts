import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { readTree } from '../files/helpers';

describe('engine: "Rewind to here" preview and apply over a real workspace and session', () => {
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let file: string;
  let ids: Record<string, string>;
  const make = (enabled = true) =>
    new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false, 'fileCheckpointing.enabled': enabled })[k], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-preview-'));
    ws = join(dir, 'ws');
    await mkdir(join(ws, 'src'), { recursive: true });
    await writeFile(join(ws, 'src/a.txt'), 'one\ntwo\n');
    await writeFile(join(ws, 'b.txt'), 'bee\n');
    engine = make();
    file = await engine.createSession(ws, { title: 'Demo' });
    ids = {};
    const u1 = await engine.appendMessage(file, { role: 'user', content: 'change things' });
    assert.equal(u1.snapshotError, undefined);
    assert.equal(u1.snapshot?.files, 2);
    ids.u1 = u1.entryId;
    // The agent edits a file, creates one and deletes one through the shell.
    await writeFile(join(ws, 'src/a.txt'), 'one\nTWO\nthree\n');
    await writeFile(join(ws, 'c.txt'), 'new\n');
    await unlink(join(ws, 'b.txt'));
    ids.a1 = (await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'changed' }] })).entryId;
    ids.u2 = (await engine.appendMessage(file, { role: 'user', content: 'and more' })).entryId;
    await engine.updateState(file, { 'user:theme': 'dark', count: 2 });
    await writeFile(join(ws, 'src/a.txt'), 'one\nTWO\nthree\nfour\n');
    ids.a2 = (await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'more' }] })).entryId;
  });
  afterEach(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('previews conversation, state and files together without changing anything', async () => {
    const before = await readTree(ws);
    const sessionBefore = await readFile(file, 'utf8');
    const p = await engine.previewRewind(file, ids.u1!);
    assert.equal(p.anchorPreview, 'change things');
    assert.ok(p.conversation.ok);
    assert.equal(p.conversation.currentBranch, 'main');
    assert.equal(p.conversation.newBranchName, 'main-v2');
    assert.deepEqual(
      p.conversation.messagesLeftOnOldBranch.map((m) => m.entryId),
      [ids.a1, ids.u2, ids.a2],
    );
    assert.ok(p.state.ok);
    assert.deepEqual(p.state.changes, [
      { key: 'count', scope: 'session', now: '2', after: null },
      { key: 'user:theme', scope: 'user', now: '"dark"', after: null },
    ]);
    assert.ok(p.files.ok, JSON.stringify(p.files));
    const byPath = Object.fromEntries(p.files.files.map((f) => [f.path, f]));
    assert.deepEqual(Object.keys(byPath).sort(), ['b.txt', 'c.txt', 'src/a.txt']);
    assert.equal(byPath['src/a.txt']!.status, 'modified');
    assert.equal(byPath['c.txt']!.status, 'added');
    assert.equal(byPath['b.txt']!.status, 'deleted');
    assert.equal(
      p.files.insertions,
      p.files.files.reduce((n, f) => n + f.insertions, 0),
    );
    assert.ok(p.files.insertions >= 3 && p.files.deletions >= 2, JSON.stringify(p.files));
    assert.deepEqual(await readTree(ws), before, 'a dry run changes no file');
    assert.equal(await readFile(file, 'utf8'), sessionBefore, 'a dry run writes nothing to the session');
  });

  it('explains, in every part, why a wrong anchor cannot be rewound to', async () => {
    const missing = await engine.previewRewind(file, 'nope1234');
    for (const part of [missing.conversation, missing.state, missing.files]) {
      assert.equal(part.ok, false);
      assert.match((part as { error: string }).error, /nope1234/);
    }
    const notUser = await engine.previewRewind(file, ids.a1!);
    assert.equal(notUser.conversation.ok, false);
    assert.match((notUser.conversation as { error: string }).error, /your own messages/);
    const gone = await engine.previewRewind(join(dir, 'missing.jsonl'), ids.u1!);
    assert.match((gone.files as { error: string }).error, /Session file not found/);
  });

  it('says a message of another session belongs to a different chat, and writes nothing', async () => {
    const other = await engine.createSession(ws, { title: 'Other' });
    const foreign = (await engine.appendMessage(other, { role: 'user', content: 'elsewhere' })).entryId;
    const sessionBefore = await readFile(file, 'utf8');
    const p = await engine.previewRewind(file, foreign);
    assert.equal(p.conversation.ok, false);
    assert.match((p.conversation as { error: string }).error, /belongs to a different chat/);
    assert.equal(p.files.ok, false);
    await assert.rejects(engine.applyRewind(file, foreign, 'all'), /belongs to a different chat/);
    assert.equal(await readFile(file, 'utf8'), sessionBefore);
  });

  it('says so when file checkpointing is off, and still previews the conversation', async () => {
    const off = make(false);
    try {
      const p = await off.previewRewind(file, ids.u1!);
      assert.ok(p.conversation.ok);
      assert.equal(p.files.ok, false);
      assert.match((p.files as { error: string }).error, /checkpointing is off/i);
    } finally {
      await off.dispose();
    }
  });

  it('applies conversation and files together, and undoes the files', async () => {
    const changedNow = await readTree(ws);
    const outcome = await engine.applyRewind(file, ids.u1!, 'all', { overwriteUserModified: false });
    assert.equal(outcome.branch?.name, 'main-v2');
    assert.equal(outcome.branch?.headMessageId, ids.u1);
    assert.deepEqual([...outcome.filesChanged].sort(), ['b.txt', 'c.txt', 'src/a.txt']);
    assert.equal(outcome.undoAvailable, true);
    assert.deepEqual(await readTree(ws), { 'src/a.txt': 'one\ntwo\n', 'b.txt': 'bee\n' });
    const details = await engine.describeSession(file);
    assert.equal(details.branches.find((b) => b.isActive)?.name, 'main-v2');
    assert.deepEqual((await engine.stateOf(file)).state, {}, 'state is as before the rewound invocations');
    const { items } = await engine.loadTranscript(file);
    assert.deepEqual(
      items.map((i) => i.entryId),
      [ids.u1],
    );

    const undone = await engine.undoLastRewind(file);
    assert.deepEqual([...undone.filesChanged].sort(), ['b.txt', 'c.txt', 'src/a.txt']);
    assert.deepEqual(await readTree(ws), changedNow);
  });

  it('rewinds only the conversation, or only the files, when asked', async () => {
    const now = await readTree(ws);
    const conv = await engine.applyRewind(file, ids.u2!, 'conversation');
    assert.equal(conv.branch?.name, 'main-v2');
    assert.deepEqual(conv.filesChanged, []);
    assert.deepEqual(await readTree(ws), now);
    const files = await engine.applyRewind(file, ids.u2!, 'files');
    assert.equal(files.branch, undefined);
    assert.deepEqual(files.filesChanged, ['src/a.txt']);
    assert.equal((await readTree(ws))['src/a.txt'], 'one\nTWO\nthree\n');
    assert.equal((await engine.describeSession(file)).branches.find((b) => b.isActive)?.name, 'main-v2', 'files-only leaves the branch');
  });

  it('refuses to apply what the preview reports as impossible, changing nothing', async () => {
    const now = await readTree(ws);
    await assert.rejects(engine.applyRewind(file, ids.a1!, 'all'), /your own messages/);
    await assert.rejects(engine.applyRewind(file, 'nope1234', 'files'), /not found/);
    assert.deepEqual(await readTree(ws), now);
    assert.equal((await engine.describeSession(file)).branches.length, 1);
  });

  it('previews a named checkpoint at a reply like any rewind: conversation and state at it, files only from a message you sent', async () => {
    await engine.createCheckpoint(file, 'after-first-reply'); // the active branch's last message: a2
    await engine.conversation(file).then((c) => c.rewind(ids.u2!)); // move on, so the checkpoint is behind the head
    const cp = (await engine.describeSession(file)).namedCheckpoints.find((c) => c.name === 'after-first-reply')!;
    assert.equal(cp.entryId, ids.a2);
    const before = await readTree(ws);
    const p = await engine.previewRewind(file, cp.entryId);
    assert.ok(p.conversation.ok, JSON.stringify(p.conversation));
    assert.equal(p.anchorPreview, 'more');
    assert.ok(p.state.ok);
    assert.equal(p.files.ok, false);
    assert.match((p.files as { error: string }).error, /not a user message; files can only be rewound to the moment a user message was sent/);
    // Confirm with the conversation: a branch whose head is the checkpoint's message, as restoreCheckpoint makes, with Undo.
    const done = await engine.applyRewind(file, cp.entryId, 'conversation');
    assert.equal(done.branch?.headMessageId, ids.a2);
    assert.equal(p.conversation.newBranchName, done.branch?.name, 'the preview named the branch it makes');
    assert.deepEqual(await readTree(ws), before, 'no file changed');
    assert.match((await engine.describeUndo(file)) ?? '', /branch/);
    // The files of a reply cannot be rewound to, and asking for them changes nothing.
    await assert.rejects(engine.applyRewind(file, cp.entryId, 'all'), /not a user message/);
    // A reply that is no checkpoint is still refused as before.
    assert.equal((await engine.previewRewind(file, ids.a1!)).conversation.ok, false);
  });

  it('lists the per-message file snapshots in the session details and the transcript', async () => {
    const details = await engine.describeSession(file);
    assert.deepEqual(
      details.fileCheckpoints.map((c) => [c.anchorEntryId, c.files]),
      [
        [ids.u1, 2],
        [ids.u2, 2],
      ],
    );
    const { items } = await engine.loadTranscript(file);
    assert.deepEqual(items.find((i) => i.entryId === ids.u1)!.fileCheckpoint, { files: 2 });
    assert.equal(items.find((i) => i.entryId === ids.a1)!.fileCheckpoint, undefined);
    assert.equal((await engine.fileAtAnchor(file, ids.u1!, 'b.txt'))?.toString(), 'bee\n');
    assert.equal(await engine.fileAtAnchor(file, ids.u1!, 'c.txt'), undefined);
  });
});
