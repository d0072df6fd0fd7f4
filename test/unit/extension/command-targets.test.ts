import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { branchTargetOf, checkpointTargetOf, entryTargetOf, sessionRefOf } from '../../../src/extension/commands/targets';
import {
  BranchNode,
  BranchesNode,
  CheckpointsNode,
  FileCheckpointNode,
  NamedCheckpointNode,
  SessionNode,
  type SessionTreeSource,
} from '../../../src/extension/tree/nodes';

const source: SessionTreeSource = {
  listSessions: async () => [],
  describeSession: async () => {
    throw new Error('unused');
  },
};
const session = new SessionNode(source, { sessionRef: '/s/a.jsonl', sessionId: 'a', title: 'A', source: 'agent-rewind', modifiedMs: 0 });
const branch = new BranchNode(new BranchesNode(session, []), { name: 'main-v2', isActive: false, headEntryId: 'h', headPreview: '', messageCount: 1 });
const group = new CheckpointsNode(session, [], []);
const named = new NamedCheckpointNode(group, { name: 'good', entryId: 'e1', preview: '' });
const fileCp = new FileCheckpointNode(group, { anchorEntryId: 'u7', preview: '', files: 2 });

describe('command targets', () => {
  it('finds the session in tree nodes, plain refs and file URIs', () => {
    for (const arg of [session, branch, named, fileCp, { sessionRef: '/s/a.jsonl' }, { scheme: 'file', fsPath: '/s/a.jsonl' }, '/s/a.jsonl']) {
      assert.equal(sessionRefOf(arg), '/s/a.jsonl');
    }
    for (const arg of [undefined, null, 42, {}, { scheme: 'untitled', fsPath: '/x' }, '']) assert.equal(sessionRefOf(arg), undefined);
  });

  it('still takes the { sessionFile } arguments documented before sessions were named by refs', () => {
    assert.equal(sessionRefOf({ sessionFile: '/s/a.jsonl' }), '/s/a.jsonl');
    assert.deepEqual(entryTargetOf({ sessionFile: '/s/a.jsonl', entryId: 'u1' }), { sessionRef: '/s/a.jsonl', entryId: 'u1' });
    assert.deepEqual(branchTargetOf({ sessionFile: '/s/a.jsonl', branch: 'main' }), { sessionRef: '/s/a.jsonl', branch: 'main' });
  });

  it('resolves the message a rewind, fork or label acts on', () => {
    assert.deepEqual(entryTargetOf({ sessionRef: '/s/a.jsonl', entryId: 'u1' }), { sessionRef: '/s/a.jsonl', entryId: 'u1' });
    assert.deepEqual(entryTargetOf(fileCp), { sessionRef: '/s/a.jsonl', entryId: 'u7' });
    assert.deepEqual(entryTargetOf(named), { sessionRef: '/s/a.jsonl', entryId: 'e1' });
    assert.equal(entryTargetOf(session), undefined, 'a session alone names no message');
    assert.equal(entryTargetOf({ entryId: 'u1' }), undefined, 'an id without its session is not enough');
  });

  it('resolves branches and checkpoints, leaving the name open when only the session is known', () => {
    assert.deepEqual(branchTargetOf(branch), { sessionRef: '/s/a.jsonl', branch: 'main-v2' });
    assert.deepEqual(branchTargetOf({ sessionRef: '/s/a.jsonl', branch: 'main' }), { sessionRef: '/s/a.jsonl', branch: 'main' });
    assert.deepEqual(branchTargetOf(session), { sessionRef: '/s/a.jsonl' });
    assert.equal(branchTargetOf(undefined), undefined);
    assert.deepEqual(checkpointTargetOf(named), { sessionRef: '/s/a.jsonl', name: 'good' });
    assert.deepEqual(checkpointTargetOf({ sessionRef: '/s/a.jsonl', name: 'x' }), { sessionRef: '/s/a.jsonl', name: 'x' });
    assert.deepEqual(checkpointTargetOf(session), { sessionRef: '/s/a.jsonl' });
  });
});
