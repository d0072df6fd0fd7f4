import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveBranches, implicitBranchId, type DeriveOptions } from '../../../src/core/branches/derive';
import { nextBranchName } from '../../../src/core/branches/naming';
import { BRANCH_RECORD, CHECKPOINT_RECORD } from '../../../src/core/branches/records';
import { EntryBuilder } from './build-entries';

const warnings: string[] = [];
const opts: DeriveOptions = { sessionId: 's1', sessionCreatedAt: 1000, warn: (m) => warnings.push(m) };

test('naming: main → main-v2 → main-v3; main-v2 → main-v2-v2', () => {
  const taken = new Set(['main']);
  assert.equal(nextBranchName('main', taken), 'main-v2');
  taken.add('main-v2');
  assert.equal(nextBranchName('main', taken), 'main-v3');
  taken.add('main-v3');
  assert.equal(nextBranchName('main-v2', taken), 'main-v2-v2');
  taken.add('main-v2-v2');
  assert.equal(nextBranchName('main-v2', taken), 'main-v2-v3');
});

test('a file without records has one implicit main branch that follows the leaf', () => {
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.assistant('a1', 'a1');
  const snap = deriveBranches(b.entries, b.leaf, opts);
  assert.equal(snap.branches.length, 1);
  assert.deepEqual(
    { name: snap.active.name, head: snap.active.headMessageId, count: snap.active.messageCount, kind: snap.active.kind, id: snap.active.id },
    { name: 'main', head: 'a1', count: 2, kind: 'implicit', id: implicitBranchId('s1', 'main') },
  );
});

test('the nearest branch record on the leaf path names the active branch; heads advance with messages', () => {
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.assistant('a1', 'a1');
  b.user('q2', 'q2');
  b.assistant('a2', 'a2');
  b.at('q1').custom(
    BRANCH_RECORD,
    {
      op: 'create',
      name: 'main-v2',
      branchId: 'B2',
      headId: 'q1',
      createdAt: 5,
      from: { name: 'main', branchId: implicitBranchId('s1', 'main'), headId: 'a2', leafId: 'a2' },
    },
    'r1',
  );
  b.assistant('retry', 'a1b');
  const snap = deriveBranches(b.entries, b.leaf, opts);
  const byName = Object.fromEntries(snap.branches.map((v) => [v.name, v]));
  assert.equal(snap.active.name, 'main-v2');
  assert.equal(byName['main-v2']!.headMessageId, 'a1b');
  assert.equal(byName['main-v2']!.messageCount, 2);
  assert.equal(byName['main']!.headMessageId, 'a2');
  assert.equal(byName['main']!.messageCount, 4);
  assert.equal(byName['main']!.isActive, false);
  assert.deepEqual(
    snap.branches.map((v) => v.name),
    ['main', 'main-v2'],
  );
});

test('unnamed tips (pi /tree branches) are listed as tip-<entryId>', () => {
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.assistant('a1', 'a1');
  b.at('q1').assistant('other', 'a1x');
  b.user('q2', 'q2');
  const snap = deriveBranches(b.entries, 'a1', opts);
  assert.equal(snap.active.name, 'main');
  assert.equal(snap.active.headMessageId, 'a1');
  const tip = snap.branches.find((v) => v.kind === 'tip');
  assert.deepEqual({ name: tip?.name, head: tip?.headMessageId, count: tip?.messageCount }, { name: 'tip-q2', head: 'q2', count: 3 });
});

test('checkpoint records fold in file order: set, replace, rename, delete', () => {
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.custom(CHECKPOINT_RECORD, { op: 'set', name: 'cp', checkpointId: 'c1', messageId: 'q1', createdAt: 1 });
  b.assistant('a1', 'a1');
  b.custom(CHECKPOINT_RECORD, { op: 'set', name: 'other', checkpointId: 'c2', messageId: 'a1', createdAt: 2 });
  b.custom(CHECKPOINT_RECORD, { op: 'rename', name: 'other', newName: 'renamed' });
  b.custom(CHECKPOINT_RECORD, { op: 'delete', name: 'cp' });
  const snap = deriveBranches(b.entries, b.leaf, opts);
  assert.deepEqual(snap.checkpoints, [{ id: 'c2', name: 'renamed', messageId: 'a1', createdAt: 2 }]);
});

test('malformed records are skipped with a warning, never thrown on', () => {
  warnings.length = 0;
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.custom(BRANCH_RECORD, { op: 'teleport', name: 3 });
  b.custom(CHECKPOINT_RECORD, 'nonsense');
  const snap = deriveBranches(b.entries, b.leaf, opts);
  assert.equal(snap.active.name, 'main');
  assert.equal(snap.active.headMessageId, 'q1');
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /Ignoring malformed agent-rewind\/branch record/);
});

test('a parent cycle from a hand edit ends the walk instead of hanging', () => {
  const b = new EntryBuilder();
  b.user('q1', 'q1');
  b.assistant('a1', 'a1');
  (b.entries[0] as { parentId: string | null }).parentId = 'a1';
  const snap = deriveBranches(b.entries, 'a1', opts);
  assert.equal(snap.active.messageCount, 2);
});
