// The "Search sessions" picker rows: each hit names the branch its message is on (and says when that is not the
// active one), hits are grouped under their session, and picking one targets { sessionRef, entryId }, the same
// argument agentRewind.openTranscript takes to open the transcript at that message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { branchText, searchHitRows, type SessionSearchHit } from '../../../src/extension/commands/search-hit-items';
import { entryTargetOf } from '../../../src/extension/commands/targets';
import { BranchNode, BranchesNode, SessionNode, type SessionTreeSource } from '../../../src/extension/tree/nodes';

const hit = (over: Partial<SessionSearchHit>): SessionSearchHit => ({
  sessionRef: '/s/a.jsonl',
  sessionTitle: 'Fix the parser',
  entryId: 'u1',
  kind: 'user',
  preview: 'parse <b>dates</b>',
  ...over,
});

describe('search hit rows', () => {
  it('names the branch, marking one that is not active', () => {
    assert.equal(branchText(hit({ branch: 'main', onActiveBranch: true })), '$(git-branch) main');
    assert.equal(branchText(hit({ branch: 'main-v2', onActiveBranch: false })), '$(git-branch) main-v2 (not active)');
    assert.equal(branchText(hit({ onActiveBranch: false })), '$(git-branch) on another branch');
    assert.equal(branchText(hit({})), '');
  });

  it('shows a snippet without markdown backticks (a quick pick shows them raw; a snippet may cut a code span)', () => {
    const [, row] = searchHitRows([hit({ preview: 'run `npm test` then ```js fence and a cut `half' })]);
    assert.equal(row?.separator === false && row.label, '$(account) run npm test then js fence and a cut half');
  });

  it('groups hits under a separator per session and targets the message', () => {
    const rows = searchHitRows([
      hit({ entryId: 'u1', branch: 'main', onActiveBranch: true, timestamp: '2026-01-02T03:04:05.000Z' }),
      hit({ entryId: 'a9', kind: 'assistant', branch: 'main-v2', onActiveBranch: false }),
      hit({ sessionRef: '/s/b.jsonl', sessionTitle: 'Other', entryId: 'x1', kind: 'weird' }),
    ]);
    assert.deepEqual(rows, [
      { separator: true, label: 'Fix the parser' },
      {
        separator: false,
        label: '$(account) parse <b>dates</b>',
        description: '$(git-branch) main',
        detail: 'Fix the parser · user · 2026-01-02 03:04',
        target: { sessionRef: '/s/a.jsonl', entryId: 'u1' },
      },
      {
        separator: false,
        label: '$(hubot) parse <b>dates</b>',
        description: '$(git-branch) main-v2 (not active)',
        detail: 'Fix the parser · assistant',
        target: { sessionRef: '/s/a.jsonl', entryId: 'a9' },
      },
      { separator: true, label: 'Other' },
      {
        separator: false,
        label: '$(comment) parse <b>dates</b>',
        description: '',
        detail: 'Other · weird',
        target: { sessionRef: '/s/b.jsonl', entryId: 'x1' },
      },
    ]);
  });

  it('no hits, no rows', () => assert.deepEqual(searchHitRows([]), []));
});

describe('what openTranscript reveals', () => {
  const source: SessionTreeSource = {
    listSessions: async () => [],
    describeSession: async () => {
      throw new Error('unused');
    },
  };
  const session = new SessionNode(source, { sessionRef: '/s/a.jsonl', sessionId: 'a', title: 'A', source: 'agent-rewind', modifiedMs: 0 });

  it('a picked hit is an entry target; a session or branch node opens without a message', () => {
    const [, row] = searchHitRows([hit({ entryId: 'u42' })]);
    assert.ok(row && !row.separator);
    assert.deepEqual(entryTargetOf(row.target), { sessionRef: '/s/a.jsonl', entryId: 'u42' });
    assert.equal(entryTargetOf(session), undefined);
    const branch = new BranchNode(new BranchesNode(session, []), { name: 'b', isActive: false, headEntryId: 'h', headPreview: '', messageCount: 1 });
    assert.equal(entryTargetOf(branch), undefined);
  });
});
