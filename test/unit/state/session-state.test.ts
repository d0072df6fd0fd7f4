import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Conversation } from '../../../src/core/branches/conversation';
import { BlobStore } from '../../../src/core/session';
import { SessionState } from '../../../src/core/state/session-state';
import { assistant, newSession, readAsPi, reopen, texts, user, withTempHome } from '../branches/session-fixture';

function setup(home: string) {
  const session = newSession(home);
  const blobs = new BlobStore(join(home, 'blobs'));
  return { session, blobs, state: new SessionState(session, { blobs, warn: () => {} }) };
}
const bytes = (s: string) => new TextEncoder().encode(s);

test('sequential rewinds restore state in all three scopes and artifacts as new versions; context cuts from the invocation on', () =>
  withTempHome(async (home) => {
    const { session, blobs, state } = setup(home);
    const u1 = session.appendMessage(user('one'));
    await state.updateState({ 'app:theme': 'dark', 'user:lang': 'en', step: 1 });
    await state.saveArtifact('plan.md', bytes('plan v1'), 'text/markdown');
    session.appendMessage(assistant('did one'));
    const u2 = session.appendMessage(user('two'));
    await state.updateState({ 'app:theme': 'light', 'user:lang': 'fr', step: 2, 'user:extra': [1, 2] });
    await state.saveArtifact('plan.md', bytes('plan v2'), 'text/markdown');
    await state.saveArtifact('out.bin', bytes('binary'));
    session.appendMessage(assistant('did two'));
    const u3 = session.appendMessage(user('three'));
    await state.updateState({ step: 3, 'user:lang': null });
    session.appendMessage(assistant('did three'));
    const before = session.getEntries().length;

    const preview = state.previewStateRewind(u3);
    assert.equal(session.getEntries().length, before, 'preview writes nothing');
    assert.deepEqual(preview.changes, [
      { key: 'step', scope: 'session', now: '3', after: '2' },
      { key: 'user:lang', scope: 'user', now: null, after: '"fr"' },
    ]);

    const r3 = await state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: u3 });
    assert.deepEqual(r3.stateDelta, { step: 2, 'user:lang': 'fr' });
    assert.deepEqual(r3.artifactDelta, {});
    assert.deepEqual(texts(session.buildSessionContext()), ['one', 'did one', 'two', 'did two']);

    const r2 = await state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: u2 });
    assert.deepEqual(r2.stateDelta, { 'app:theme': 'dark', 'user:lang': 'en', step: 1, 'user:extra': null });
    assert.deepEqual(Object.keys(r2.artifactDelta).sort(), ['out.bin', 'plan.md']);
    assert.equal(r2.artifactDelta['out.bin'], null);
    assert.deepEqual({ ...r2.artifactDelta['plan.md'], blob: 'x' }, { version: 3, blob: 'x', mimeType: 'text/markdown', size: 7, restoredFrom: 1 });
    assert.deepEqual(state.getState(), { 'app:theme': 'dark', 'user:lang': 'en', step: 1 });
    const plan = await state.loadArtifact('plan.md');
    assert.deepEqual([plan?.version.version, plan?.bytes.toString()], [3, 'plan v1']);
    assert.equal(await state.loadArtifact('out.bin'), undefined);
    assert.equal((await state.loadArtifact('out.bin', 1))?.bytes.toString(), 'binary', 'old versions stay loadable');
    assert.deepEqual(texts(session.buildSessionContext()), ['one', 'did one']);

    // a new invocation after the rewinds, then rewind everything
    session.appendMessage(user('two again'));
    await state.saveArtifact('plan.md', bytes('plan v4'));
    assert.equal(
      state
        .artifactHistory('plan.md')
        .map((a) => a.version)
        .join(),
      '1,2,3,4',
    );
    await state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: u1 });
    assert.deepEqual(state.getState(), {});
    assert.deepEqual(state.snapshotAt().artifacts, []);
    assert.deepEqual(session.buildSessionContext().messages, []);

    // nothing deleted; the file still reads as plain JSONL with the same context as ours
    assert.ok(session.getEntries().length > before);
    const pi = await readAsPi(session.sessionFile!);
    assert.deepEqual(pi.context, session.buildSessionContext());

    // state survives reopening, and the rewinds are named branches
    const again = new SessionState(await reopen(session, home), { blobs, warn: () => {} });
    assert.deepEqual(again.getState(), {});
    assert.equal((await again.stateAt(r2.entryId)).state.step, 1);
    const names = (await new Conversation(again.session, { warn: () => {} }).branches()).map((b) => `${b.name}:${b.isActive}`);
    assert.deepEqual(names, ['main:false', 'main-v2:false', 'main-v2-v2:false', 'main-v2-v2-v2:true']);
  }));

test('rewind errors: unknown invocation, a non-user entry, another session id', () =>
  withTempHome(async (home) => {
    const { session, state } = setup(home);
    session.appendMessage(user('one'));
    const a = session.appendMessage(assistant('ok'));
    await assert.rejects(state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: 'missing' }), { message: 'Invocation "missing" not found' });
    await assert.rejects(state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: a }), /is not a user message/);
    await assert.rejects(state.rewind({ sessionId: 'other', rewindBeforeInvocationId: a }), /Session "other" is not this session/);
    assert.throws(() => state.previewStateRewind('missing'), /Invocation "missing" not found/);
  }));

test('state as of an entry, and the invocation it belongs to', () =>
  withTempHome(async (home) => {
    const { session, state } = setup(home);
    const u1 = session.appendMessage(user('one'));
    const s1 = await state.updateState({ k: 'v1' });
    session.appendMessage(user('two'));
    await state.updateState({ k: 'v2' });
    assert.deepEqual(await state.stateAt(u1), { entryId: u1, invocationId: u1, state: {}, artifacts: [] });
    assert.deepEqual((await state.stateAt(s1)).state, { k: 'v1' });
    assert.deepEqual(state.getState(), { k: 'v2' });
    await assert.rejects(state.stateAt('nope'), /Entry "nope" not found/);
    await assert.rejects(state.updateState({ bad: undefined as never }), /Invalid state delta/);
  }));
