// Compare branches over a real temp workspace: two branches of one session, each with its own file snapshots.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { SessionManager } from '../../../src/core/session/session-manager';

const reply = (text: string) => ({ role: 'assistant' as const, content: [{ type: 'text' as const, text }] });

describe('engine.compareBranches: divergence, messages and files of two branches', () => {
  let dir: string;
  let ws: string;
  let home: string;
  let engine: RewindEngine;
  let file: string;
  const ids: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-compare-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    ws = await realpath(ws);
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home, includePiSessions: false })[k as 'home'], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    await writeFile(join(ws, 'app.txt'), 'one\n');
    await writeFile(join(ws, 'same.txt'), 'never changes\n');
    file = await engine.createSession(ws, { title: 'Compare me' });
    const send = async (key: string, message: Parameters<RewindEngine['appendMessage']>[1]) => {
      const r = await engine.appendMessage(file, message);
      assert.equal(r.snapshotError, undefined);
      ids[key] = r.entryId;
    };
    await send('u1', { role: 'user', content: 'start the app' });
    await writeFile(join(ws, 'app.txt'), 'one\ntwo\n');
    await send('a1', reply('added two'));
    await send('u2', { role: 'user', content: 'now pick an approach' });
    // branch main: approach A
    await writeFile(join(ws, 'app.txt'), 'one\ntwo\nA\n');
    await writeFile(join(ws, 'only-a.txt'), 'a\n');
    await send('a2', reply('went with A'));
    await send('u3', { role: 'user', content: 'polish A' });
    await send('a3', reply('A polished'));
    // branch main-v2 from the second message: approach B
    await engine.fork(file, ids.u2!);
    await writeFile(join(ws, 'app.txt'), 'one\nB\n');
    await unlink(join(ws, 'only-a.txt'));
    await writeFile(join(ws, 'only-b.txt'), 'b1\nb2\n');
    await send('b2', reply('went with B'));
    await send('u3b', { role: 'user', content: 'polish B <script>' });
    await send('b3', reply('B polished'));
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds where the branches part and the messages of each after it', async () => {
    const m = await engine.compareBranches(file, 'main', 'main-v2');
    assert.equal(m.title, 'Compare me');
    assert.equal(m.sessionRef, file);
    assert.deepEqual(m.divergence, { entryId: ids.u2, kind: 'user', preview: 'now pick an approach' });
    assert.deepEqual(
      m.a.messages.map((x) => [x.entryId, x.kind]),
      [
        [ids.a2, 'assistant'],
        [ids.u3, 'user'],
        [ids.a3, 'assistant'],
      ],
    );
    assert.deepEqual(
      m.b.messages.map((x) => x.preview),
      ['went with B', 'polish B <script>', 'B polished'],
    );
    assert.equal(m.a.name, 'main');
    assert.equal(m.a.isActive, false);
    assert.equal(m.b.isActive, true);
    assert.equal(m.a.headEntryId, ids.a3);
    assert.equal(m.b.headEntryId, ids.b3);
    assert.equal(m.a.omitted, 0);
    assert.equal(m.readOnly, undefined);
  });

  it("diffs the two branches' latest snapshots (the agent's last reply's), with status and line counts", async () => {
    const m = await engine.compareBranches(file, 'main', 'main-v2');
    assert.deepEqual([m.a.snapshot?.anchorEntryId, m.a.snapshot?.kind, m.a.snapshot?.afterDivergence], [ids.a3, 'turn-end', true]);
    assert.deepEqual([m.b.snapshot?.anchorEntryId, m.b.snapshot?.kind, m.b.snapshot?.preview], [ids.b3, 'turn-end', 'B polished']);
    assert.ok(m.files.ok);
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status, f.insertions, f.deletions, f.binary]),
      [
        ['app.txt', 'modified', 1, 2, false],
        ['only-a.txt', 'deleted', 0, 1, false],
        ['only-b.txt', 'added', 2, 0, false],
      ],
    );
    assert.equal(m.files.insertions, 3);
    assert.equal(m.files.deletions, 3);
    assert.equal(m.files.sameSnapshot, false);
    // each side's file, for the diff editor, through the snapshot its model names
    assert.equal((await engine.fileAtAnchor(file, m.a.snapshot!.anchorEntryId, 'app.txt'))?.toString(), 'one\ntwo\nA\n');
    assert.equal((await engine.fileAtAnchor(file, m.b.snapshot!.anchorEntryId, 'app.txt'))?.toString(), 'one\nB\n');
    assert.equal(await engine.fileAtAnchor(file, m.b.snapshot!.anchorEntryId, 'only-a.txt'), undefined);
  });

  it('is symmetric: B to A swaps added and deleted', async () => {
    const m = await engine.compareBranches(file, 'main-v2', 'main');
    assert.ok(m.files.ok);
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status, f.insertions, f.deletions]),
      [
        ['app.txt', 'modified', 2, 1],
        ['only-a.txt', 'added', 1, 0],
        ['only-b.txt', 'deleted', 0, 2],
      ],
    );
  });

  it('a branch compared with itself has no messages after the divergence and no file differences', async () => {
    const m = await engine.compareBranches(file, 'main', 'main');
    assert.deepEqual([m.a.messages, m.b.messages], [[], []]);
    assert.equal(m.divergence?.entryId, ids.a3);
    assert.deepEqual(m.files, { ok: true, files: [], insertions: 0, deletions: 0, sameSnapshot: true });
  });

  it('refuses a branch that does not exist', async () => {
    await assert.rejects(engine.compareBranches(file, 'main', 'nope'), /Branch "nope" not found/);
  });

  it('says clearly when a branch has no file snapshot, and when neither has one', async () => {
    const s = SessionManager.create(ws, { home, title: 'No snapshots', deferUntilAssistant: false });
    const u1 = s.appendMessage({ role: 'user', content: 'hi' });
    s.appendMessage(reply('hello'));
    await s.close();
    const other = s.sessionRef!;
    await engine.fork(other, u1);
    const neither = await engine.compareBranches(other, 'main', 'main-v2');
    assert.equal(neither.divergence?.entryId, u1);
    assert.deepEqual([neither.a.snapshot, neither.b.snapshot], [null, null]);
    assert.ok(!neither.files.ok);
    assert.match(neither.files.error, /Neither branch \("main", "main-v2"\) has a file snapshot/);
    // a reply recorded through the engine takes a turn-end snapshot: now only main has none
    const r = await engine.appendMessage(other, reply('hello again'));
    const one = await engine.compareBranches(other, 'main', 'main-v2');
    assert.deepEqual([one.a.snapshot, one.b.snapshot?.anchorEntryId], [null, r.entryId]);
    assert.ok(!one.files.ok);
    assert.match(one.files.error, /Branch "main" has no file snapshot on its path/);
  });

  it("uses a branch's last user-message snapshot when no reply after it has one", async () => {
    const u = await engine.appendMessage(file, { role: 'user', content: 'one more thing' });
    await writeFile(join(ws, 'late.txt'), 'late\n');
    const m = await engine.compareBranches(file, 'main', 'main-v2');
    assert.deepEqual([m.b.snapshot?.anchorEntryId, m.b.snapshot?.kind], [u.entryId, 'user-message']);
    assert.ok(m.files.ok && !m.files.files.some((f) => f.path === 'late.txt'), 'only what the snapshots hold, never the workspace now');
  });
});
