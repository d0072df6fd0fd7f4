import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Conversation } from '../../../src/core/branches/conversation';
import { assistant, newSession, openSession, readAsPi, reopen, texts, user, withTempHome } from './session-fixture';

// The repository is cloned with ../shared beside it (CI does the same).
const PI_FIXTURES = resolve(__dirname, '../../../../shared/fixtures/pi');

async function fourMessages(home: string) {
  const session = newSession(home);
  const conv = new Conversation(session, { warn: () => {} });
  conv.set(user('What is 2 + 2?'), { id: 'q1' }).set(assistant('5'), { id: 'a1' }).set(user('Sure?'), { id: 'q2' }).set(assistant('Yes'), { id: 'a2' });
  await conv.save();
  return { session, conv };
}

test('rewind makes <current>-vN active with the seed BranchInfo; the old branch keeps its messages', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    const info = await conv.rewind('q1');
    assert.deepEqual(
      { ...info, id: typeof info.id, createdAt: typeof info.createdAt },
      {
        id: 'string',
        name: 'main-v2',
        headMessageId: 'q1',
        isActive: true,
        messageCount: 1,
        createdAt: 'number',
      },
    );
    assert.deepEqual(texts(session.buildSessionContext()), ['What is 2 + 2?']);
    const main = (await conv.branches()).find((b) => b.name === 'main')!;
    assert.deepEqual({ head: main.headMessageId, count: main.messageCount, active: main.isActive }, { head: 'a2', count: 4, active: false });
  }));

test('previewRewind names the new branch and lists the messages left behind, writing nothing', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    const count = session.getEntries().length;
    const preview = await conv.previewRewind('a1');
    assert.deepEqual([preview.currentBranch, preview.newBranchName, preview.messagesLeftOnOldBranch.map((e) => e.id)], ['main', 'main-v2', ['q2', 'a2']]);
    assert.equal(session.getEntries().length, count);
    await assert.rejects(conv.previewRewind('zzz'), { message: 'Message "zzz" not found' });
  }));

test('naming sequence: main → main-v2, main → main-v3, main-v2 → main-v2-v2', () =>
  withTempHome(async (home) => {
    const { conv } = await fourMessages(home);
    assert.equal((await conv.rewind('q1')).name, 'main-v2');
    assert.equal((await conv.switchBranch('main')).name, 'main');
    assert.equal((await conv.rewind('a1')).name, 'main-v3');
    await conv.switchBranch('main-v2');
    const nested = await conv.rewind('q1');
    assert.equal(nested.name, 'main-v2-v2');
    assert.deepEqual(
      (await conv.branches()).map((b) => [b.name, b.isActive]),
      [
        ['main', false],
        ['main-v2', false],
        ['main-v3', false],
        ['main-v2-v2', true],
      ],
    );
  }));

test('errors: unknown id, an id from another chat in the same folder, unknown branch/checkpoint', () =>
  withTempHome(async (home) => {
    const { conv } = await fourMessages(home);
    const other = new Conversation(newSession(home), { warn: () => {} });
    await other.set(user('elsewhere'), { id: 'x1' }).save();
    await other.session.flush();
    await assert.rejects(conv.rewind('nonexistent-id'), { message: 'Message "nonexistent-id" not found' });
    await assert.rejects(conv.rewind('x1'), { message: 'Message "x1" belongs to a different chat' });
    await assert.rejects(conv.switchBranch('nope'), { message: 'Branch "nope" not found' });
    await assert.rejects(conv.restore('nope'), { message: 'Checkpoint "nope" not found' });
    assert.equal((await conv.activeBranch()).name, 'main');
  }));

test('rewind clears pending messages; save() writes them on the active branch', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    conv.set(user('unsaved'));
    assert.equal(conv.pending.length, 1);
    await conv.rewind('a1');
    assert.equal(conv.pending.length, 0);
    conv.set(user('draft'), { id: 'q3' }).set(user('Try again'), { id: 'q3' });
    assert.equal(conv.pending.length, 1, 'same id replaces the queued message');
    assert.deepEqual(await conv.save(), ['q3']);
    assert.deepEqual(texts(session.buildSessionContext()), ['What is 2 + 2?', '5', 'Try again']);
    assert.equal((await conv.activeBranch()).headMessageId, 'q3');
  }));

test('saving an existing id is an edit: new branch from its parent, new id, original kept on the old branch', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    const [newId] = await conv.set(user('Really sure?'), { id: 'q2' }).save();
    assert.notEqual(newId, 'q2');
    const active = await conv.activeBranch();
    assert.deepEqual({ name: active.name, head: active.headMessageId, count: active.messageCount }, { name: 'main-v2', head: newId, count: 3 });
    assert.deepEqual(texts(session.buildSessionContext()), ['What is 2 + 2?', '5', 'Really sure?']);
    await conv.switchBranch('main');
    assert.deepEqual(texts(session.buildSessionContext()), ['What is 2 + 2?', '5', 'Sure?', 'Yes']);
    const first = await conv.set(user('2+2?'), { id: 'q1' }).save();
    assert.equal((await conv.activeBranch()).name, 'main-v3');
    assert.deepEqual(texts(session.buildSessionContext()), ['2+2?'], 'editing the first message starts from the root');
    assert.equal(first.length, 1);
  }));

test('checkpoint/restore/switch survive a process restart (the file is reopened)', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    const cp = await conv.checkpoint('after-q1');
    assert.equal(cp.messageId, 'a2');
    await conv.rewind('q1');
    await conv.set(assistant('4'), { id: 'a1b' }).save();
    await conv.checkpoint('good');
    await session.close();

    const again = new Conversation(await openSession(session.sessionFile!, home), { warn: () => {} });
    assert.deepEqual(
      (await again.checkpoints()).map((c) => [c.name, c.messageId]),
      [
        ['after-q1', 'a2'],
        ['good', 'a1b'],
      ],
    );
    assert.equal((await again.activeBranch()).name, 'main-v2');
    const restored = await again.restore('after-q1');
    assert.deepEqual([restored.name, restored.headMessageId, restored.messageCount], ['main-v2-v2', 'a2', 4]);
    await again.switchBranch('main-v2');
    const third = new Conversation(await reopen(again.session, home), { warn: () => {} });
    const active = await third.activeBranch();
    assert.deepEqual([active.name, active.headMessageId], ['main-v2', 'a1b']);
    assert.deepEqual(texts(third.session.buildSessionContext()), ['What is 2 + 2?', '4']);
  }));

test('compatibility: the file stays session-file JSONL and last-entry-as-leaf context == our active branch context', () =>
  withTempHome(async (home) => {
    const { session, conv } = await fourMessages(home);
    const check = async () => {
      await session.flush();
      const pi = await readAsPi(session.sessionFile!);
      const ours = session.buildSessionContext(conv.snapshot().active.leafId);
      assert.deepEqual(pi.context, ours);
      const pathIds = session.getPath(conv.snapshot().active.leafId).map((e) => e.id);
      assert.ok(pathIds.includes(conv.snapshot().active.headMessageId!));
    };
    await conv.rewind('q1');
    await check();
    await conv.set(assistant('4')).save();
    await check();
    await conv.checkpoint('cp');
    await conv.switchBranch('main');
    await check();
    await conv.set(user('more')).save();
    await conv.restore('cp');
    await check();
    await conv.set(user('edit'), { id: 'q2' }).save();
    await check();
  }));

test('a pi file with several tips lists its other tips as tip-<entryId>; switching to one names it', () =>
  withTempHome(async (home) => {
    const file = join(home, 'pi.jsonl');
    await copyFile(join(PI_FIXTURES, 'session-with-branch-summary.v3.jsonl'), file);
    const session = await openSession(file, home);
    const conv = new Conversation(session, { warn: () => {} });
    const branches = await conv.branches();
    assert.equal(branches[0]!.name, 'main');
    assert.equal(branches[0]!.isActive, true);
    const tips = branches.filter((b) => b.name.startsWith('tip-'));
    assert.deepEqual(
      tips.map((t) => t.headMessageId),
      ['00000004'],
    );
    const switched = await conv.switchBranch(tips[0]!.name);
    assert.deepEqual([switched.name, switched.headMessageId, switched.messageCount], [tips[0]!.name, '00000004', 4]);
    const pi = await readAsPi(file);
    assert.deepEqual(pi.context, session.buildSessionContext());
    assert.equal((await conv.branches()).find((b) => b.name === 'main')!.isActive, false);
  }));
