import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntryIndex } from '../../../src/core/branches/entry-index';
import { foldState } from '../../../src/core/state/fold';
import { invocationAt } from '../../../src/core/state/invocations';
import { ARTIFACT_RECORD, REWIND_RECORD, STATE_RECORD } from '../../../src/core/state/records';
import { planStateRewind, previewOf, StateRewindError } from '../../../src/core/state/rewind-plan';
import { EntryBuilder } from '../branches/build-entries';

const warn = () => {};
const blob = (c: string) => `blob:sha256:${c.repeat(64)}`;
const art = (name: string, version: number, c: string) => ({ name, version, blob: blob(c), mimeType: 'text/plain', size: 1, invocationId: null });

function session() {
  const b = new EntryBuilder();
  b.user('first', 'u1');
  b.custom(STATE_RECORD, { invocationId: 'u1', stateDelta: { 'app:theme': 'dark', 'user:name': 'ada', count: 1, gone: 'x' } });
  b.custom(ARTIFACT_RECORD, art('report.md', 1, 'a'));
  b.assistant('ok', 'a1');
  b.user('second', 'u2');
  b.custom(STATE_RECORD, { invocationId: 'u2', stateDelta: { 'app:theme': 'light', count: 2, added: true, gone: null } });
  b.custom(ARTIFACT_RECORD, art('report.md', 2, 'b'));
  b.custom(ARTIFACT_RECORD, art('new.bin', 1, 'c'));
  b.assistant('done', 'a2');
  return b;
}

test('invocation of an entry is the nearest user message at or before it', () => {
  const b = session();
  const path = new EntryIndex(b.entries).pathTo(b.leaf);
  assert.deepEqual(
    path.map((_, i) => invocationAt(path, i)),
    ['u1', 'u1', 'u1', 'u1', 'u2', 'u2', 'u2', 'u2', 'u2'],
  );
});

test('rewind before u2: keys back to their old values in all three scopes, new keys deleted, deleted keys restored', () => {
  const b = session();
  const path = new EntryIndex(b.entries).pathTo(b.leaf);
  const plan = planStateRewind(b.entries, path, 'u2', warn);
  assert.deepEqual(plan.stateDelta, { 'app:theme': 'dark', count: 1, added: null, gone: 'x' });
  assert.deepEqual(plan.artifactDelta, {
    'report.md': { version: 3, blob: blob('a'), mimeType: 'text/plain', size: 1, restoredFrom: 1 },
    'new.bin': null,
  });
  assert.equal(plan.attachTo, 'a1');
  assert.deepEqual(previewOf(plan), {
    changes: [
      { key: 'added', scope: 'session', now: 'true', after: null },
      { key: 'app:theme', scope: 'app', now: '"light"', after: '"dark"' },
      { key: 'count', scope: 'session', now: '2', after: '1' },
      { key: 'gone', scope: 'session', now: null, after: '"x"' },
    ],
    artifacts: [
      { name: 'new.bin', currentVersion: 1, restoredVersion: null },
      { name: 'report.md', currentVersion: 2, restoredVersion: 1 },
    ],
  });
});

test('the cut starts at the FIRST entry of the invocation, even a record written before its user message', () => {
  const b = new EntryBuilder();
  b.user('first', 'u1');
  b.assistant('ok', 'a1');
  b.custom(STATE_RECORD, { invocationId: 'u2', stateDelta: { early: 1 } }, 'pre');
  b.user('second', 'u2');
  const path = new EntryIndex(b.entries).pathTo(b.leaf);
  const plan = planStateRewind(b.entries, path, 'u2', warn);
  assert.equal(plan.attachTo, 'a1');
  assert.deepEqual(plan.stateDelta, { early: null });
  assert.equal(planStateRewind(b.entries, path, 'u1', warn).attachTo, null);
});

test('sequential rewinds compose: folding the new path gives the state before each invocation', () => {
  const b = session();
  let path = new EntryIndex(b.entries).pathTo(b.leaf);
  const first = planStateRewind(b.entries, path, 'u2', warn);
  b.at(first.attachTo).custom(REWIND_RECORD, { rewindBeforeInvocationId: 'u2', stateDelta: first.stateDelta, artifactDelta: first.artifactDelta });
  path = new EntryIndex(b.entries).pathTo(b.leaf);
  let folded = foldState(path, warn);
  assert.deepEqual(Object.fromEntries(folded.state), { 'app:theme': 'dark', 'user:name': 'ada', count: 1, gone: 'x' });
  assert.deepEqual(
    [...folded.artifacts.values()].map((a) => [a.name, a.version, a.blob]),
    [['report.md', 3, blob('a')]],
  );

  b.user('third', 'u3');
  b.custom(STATE_RECORD, { invocationId: 'u3', stateDelta: { 'user:name': 'grace', count: 3 } });
  b.custom(ARTIFACT_RECORD, art('report.md', 4, 'd'));
  path = new EntryIndex(b.entries).pathTo(b.leaf);
  const second = planStateRewind(b.entries, path, 'u1', warn);
  assert.deepEqual(second.stateDelta, { 'app:theme': null, 'user:name': null, count: null, gone: null });
  assert.deepEqual(second.artifactDelta, { 'report.md': null });
  b.at(second.attachTo).custom(REWIND_RECORD, { rewindBeforeInvocationId: 'u1', stateDelta: second.stateDelta, artifactDelta: second.artifactDelta });
  folded = foldState(new EntryIndex(b.entries).pathTo(b.leaf), warn);
  assert.equal(folded.state.size, 0);
  assert.equal(folded.artifacts.size, 0);
});

test('unknown, non-user and off-branch invocation ids give clear errors', () => {
  const b = session();
  b.at('a1').user('elsewhere', 'u9');
  const path = new EntryIndex(b.entries).pathTo('a2');
  assert.throws(() => planStateRewind(b.entries, path, 'nope', warn), new StateRewindError('Invocation "nope" not found'));
  assert.throws(() => planStateRewind(b.entries, path, 'a1', warn), /Entry "a1" is not a user message/);
  assert.throws(() => planStateRewind(b.entries, path, 'u9', warn), /Invocation "u9" is not on the active branch/);
});

test('state values must be plain JSON: NaN, undefined, class instances and functions are refused', async () => {
  const { stateDeltaSchema } = await import('../../../src/core/state/records');
  assert.equal(stateDeltaSchema.safeParse({ a: { b: [null, 1, 'x', true, { c: -2.5 }] } }).success, true);
  for (const bad of [NaN, Infinity, undefined, new Date(0), () => 1, [1, undefined], { nested: new Map() }]) {
    assert.equal(stateDeltaSchema.safeParse({ a: bad }).success, false, String(bad));
  }
});
