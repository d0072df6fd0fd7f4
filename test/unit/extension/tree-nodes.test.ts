import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionDetails, SessionListing } from '../../../src/core/sources/listings';
import { formatAge } from '../../../src/extension/tree/format';
import {
  BranchNode,
  BranchesNode,
  CheckpointsNode,
  ForksNode,
  FileCheckpointNode,
  NamedCheckpointNode,
  ProblemNode,
  rootNodes,
  SetUpHooksNode,
  SessionNode,
  type SessionTreeSource,
} from '../../../src/extension/tree/nodes';

const NOW = Date.parse('2026-11-22T08:00:00Z');

function listing(file: string, title: string, minutesAgo: number, source: SessionListing['source'] = 'agent-rewind'): SessionListing {
  return { sessionRef: file, sessionId: `id-${title}`, title, source, modifiedMs: NOW - minutesAgo * 60_000 };
}

function fakeSource(sessions: SessionListing[], details: Record<string, Omit<SessionDetails, 'listing'> | Error>): SessionTreeSource {
  return {
    listSessions: async () => sessions,
    describeSession: async (file) => {
      const d = details[file];
      if (d instanceof Error) throw d;
      if (!d) throw new Error(`unknown ${file}`);
      return { listing: sessions.find((s) => s.sessionRef === file)!, ...d };
    },
  };
}

const richDetails: Omit<SessionDetails, 'listing'> = {
  branches: [
    { name: 'main', isActive: false, headEntryId: 'a4', headPreview: 'done', messageCount: 4 },
    { name: 'main-v2', isActive: true, headEntryId: 'u2', headPreview: 'try again', messageCount: 3 },
  ],
  namedCheckpoints: [{ name: 'before-refactor', entryId: 'a2', preview: 'ok' }],
  fileCheckpoints: [
    { anchorEntryId: 'u1', preview: 'first', files: 3 },
    { anchorEntryId: 'u2', preview: 'second', files: 1 },
  ],
  problems: ['line 7 skipped: not JSON'],
};

describe('sessions tree nodes', () => {
  it('lists sessions newest first with title, age and source', async () => {
    const source = fakeSource([listing('/s/old.jsonl', 'Old', 600), listing('/s/new.jsonl', 'New', 5, 'pi')], {});
    const roots = await rootNodes(source);
    assert.deepEqual(
      roots.map((r) => r.listing.title),
      ['New', 'Old'],
    );
    const item = roots[0]!.toTreeItem(NOW);
    assert.equal(item.label, 'New');
    assert.equal(item.description, '5 min ago · pi');
    assert.equal(item.contextValue, 'session.pi');
    assert.equal(item.command?.command, 'agentRewind.openTranscript');
    assert.equal(roots[1]!.toTreeItem(NOW).description, '10 h ago · agent-rewind');
  });

  it('puts branches, checkpoints and load problems under a session', async () => {
    const source = fakeSource([listing('/s/a.jsonl', 'A', 1)], { '/s/a.jsonl': richDetails });
    const [session] = await rootNodes(source);
    const children = await session!.getChildren();
    assert.deepEqual(
      children.map((c) => c.constructor),
      [BranchesNode, CheckpointsNode, ProblemNode],
    );

    const branches = await children[0]!.getChildren();
    assert.ok(branches.every((b) => b instanceof BranchNode));
    const [active, other] = branches.map((b) => b.toTreeItem(NOW));
    assert.equal(active!.label, 'main-v2', 'the active branch comes first');
    assert.equal(active!.contextValue, 'branch.active');
    assert.match(active!.description!, /^active · 3 messages · try again$/);
    assert.equal(active!.command?.command, 'agentRewind.showBranch', 'clicking the active branch shows it');
    assert.equal(other!.contextValue, 'branch');
    // A click only shows a branch: switching (which leaves the files as they are) is an explicit action.
    assert.equal(other!.command?.command, 'agentRewind.showBranch');
    assert.equal(other!.command?.arguments[0], branches[1]);
    assert.match(other!.tooltip!, /Switch Branch makes it the active one \(files are not changed\)/);
    assert.equal(children[0]!.toTreeItem(NOW).description, '2 branches · on main-v2');

    const checkpoints = await children[1]!.getChildren();
    assert.deepEqual(
      checkpoints.map((c) => c.constructor),
      [NamedCheckpointNode, FileCheckpointNode, FileCheckpointNode],
    );
    assert.equal(checkpoints[0]!.toTreeItem(NOW).contextValue, 'checkpoint.named');
    const newestFile = checkpoints[1]!.toTreeItem(NOW);
    assert.equal(newestFile.label, 'second', 'file snapshots newest first');
    assert.equal(newestFile.description, 'snapshot of 1 file', 'the count is the snapshot\'s size, not "files changed"');
    assert.equal(checkpoints[2]!.toTreeItem(NOW).description, 'snapshot of 3 files');
    assert.equal(children[2]!.toTreeItem(NOW).label, 'line 7 skipped: not JSON');
  });

  it('shows forks under their origin, named by their own first prompt and marked as forks; a fork of an unlisted session stays at the root', async () => {
    const title = 'Create a small calculator in src/ with add, subtract, multiply and divide';
    const origin = { ...listing('/c/origin.jsonl', title, 30, 'claude'), sessionId: 'origin' };
    const fork = (file: string, minutesAgo: number, firstOwnPrompt?: string, originSessionId = 'origin'): SessionListing => ({
      ...listing(file, `Fork: ${title}`, minutesAgo, 'claude'),
      sessionId: file,
      createdAt: new Date(NOW - minutesAgo * 60_000).toISOString(),
      fork: { originSessionId, ...(firstOwnPrompt ? { firstOwnPrompt } : {}) },
    });
    const sessions = [
      origin,
      fork('/c/f1.jsonl', 20, 'Use a square root button instead'),
      fork('/c/f2.jsonl', 10, 'Add tests with node:test'),
      fork('/c/f3.jsonl', 5),
      fork('/c/f2-1.jsonl', 2, 'Name the tests after the operators', '/c/f2.jsonl'),
      fork('/c/lost.jsonl', 1, 'From a session that is gone', 'not-listed'),
    ];
    const noDetails = {
      branches: [richDetails.branches[0]!],
      namedCheckpoints: [],
      fileCheckpoints: [{ anchorEntryId: 'u1', preview: 'x', files: 1 }],
      problems: [],
    };
    const source = fakeSource(sessions, Object.fromEntries(sessions.map((s) => [s.sessionRef, noDetails])));
    const roots = await rootNodes(source);
    assert.deepEqual(
      roots.map((r) => r.sessionRef),
      ['/c/lost.jsonl', '/c/origin.jsonl'],
      'forks of a listed session are not beside it',
    );
    const lost = roots[0]!.toTreeItem(NOW);
    assert.equal(lost.label, 'From a session that is gone');
    assert.equal(lost.icon?.id, 'repo-forked');
    assert.match(lost.tooltip!, /Fork of session `not-listed`/);

    const group = (await roots[1]!.getChildren()).find((c) => c instanceof ForksNode)!;
    assert.equal(group.toTreeItem(NOW).description, '3 forks');
    const forks = (await group.getChildren()) as SessionNode[];
    const items = forks.map((f) => f.toTreeItem(NOW));
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.icon?.id]),
      [
        [`Fork: ${title}`, 'fork · 5 min ago · Claude Code', 'repo-forked'],
        ['Add tests with node:test', 'fork · 10 min ago · Claude Code', 'repo-forked'],
        ['Use a square root button instead', 'fork · 20 min ago · Claude Code', 'repo-forked'],
      ],
    );
    assert.match(items[1]!.tooltip!, /Fork of \*\*Create a small calculator/);
    assert.match(items[1]!.tooltip!, /Started 2026-11-22 07:50 UTC/, "the fork's own start");
    assert.equal(items[1]!.contextValue, 'session.claude', 'a fork is a session: every session command works on it');
    // A fork of a fork is under that fork.
    const nested = (await forks[1]!.getChildren()).find((c) => c instanceof ForksNode)!;
    assert.deepEqual(
      ((await nested.getChildren()) as SessionNode[]).map((n) => n.toTreeItem(NOW).label),
      ['Name the tests after the operators'],
    );
  });

  it('keeps forks that name each other in a loop at the root (each shown once)', async () => {
    const a: SessionListing = { ...listing('/c/a.jsonl', 'A', 1, 'claude'), sessionId: 'a', fork: { originSessionId: 'b' } };
    const b: SessionListing = { ...listing('/c/b.jsonl', 'B', 2, 'claude'), sessionId: 'b', fork: { originSessionId: 'a' } };
    const roots = await rootNodes(fakeSource([a, b], {}));
    assert.deepEqual(
      roots.map((r) => [r.sessionRef, r.forks.length]),
      [
        ['/c/a.jsonl', 0],
        ['/c/b.jsonl', 0],
      ],
    );
  });

  it('leaves out the checkpoints group when there are none', async () => {
    const source = fakeSource([listing('/s/a.jsonl', 'A', 1)], {
      '/s/a.jsonl': { branches: [richDetails.branches[0]!], namedCheckpoints: [], fileCheckpoints: [], problems: [] },
    });
    const [session] = await rootNodes(source);
    assert.deepEqual(
      (await session!.getChildren()).map((c) => c.constructor),
      [BranchesNode],
    );
  });

  it('keeps the same ids across refreshes so expansion survives', async () => {
    const source = fakeSource([listing('/s/a.jsonl', 'A', 1)], { '/s/a.jsonl': richDetails });
    const ids = async () => {
      const [session] = await rootNodes(source);
      const all = [session!.id];
      for (const group of await session!.getChildren()) {
        all.push(group.id);
        for (const leaf of await group.getChildren()) all.push(leaf.id);
      }
      return all;
    };
    const first = await ids();
    assert.deepEqual(await ids(), first);
    assert.equal(new Set(first).size, first.length, 'ids are unique');
  });

  it('shows a session that cannot be read as a problem instead of failing the whole tree', async () => {
    const source = fakeSource([listing('/s/bad.jsonl', 'Bad', 1)], { '/s/bad.jsonl': new Error('EACCES: permission denied') });
    const [session] = await rootNodes(source);
    const children = await session!.getChildren();
    assert.equal(children.length, 1);
    assert.ok(children[0] instanceof ProblemNode);
    assert.match(children[0]!.toTreeItem(NOW).label, /Cannot read this session: EACCES/);
  });

  it("shows what the agent says about a session (its model and mode) after its agent's name", () => {
    const node = new SessionNode(fakeSource([], {}), { ...listing('/s/x.jsonl', 'chat', 1), detail: 'fake-model · agent' });
    assert.match(node.toTreeItem(NOW).description!, / · fake-model · agent$/);
  });

  it('escapes markdown in tooltips built from session text', () => {
    const source = fakeSource([], {});
    const node = new SessionNode(source, { ...listing('/s/x.jsonl', '<img src=x onerror=alert(1)> *bold*', 1), sessionId: 'abc' });
    const tooltip = node.toTreeItem(NOW).tooltip!;
    assert.doesNotMatch(tooltip, /(^|[^\\])<img/, tooltip);
    assert.ok(tooltip.includes('\\*bold\\*'));
  });
});

describe('formatAge', () => {
  it('reads naturally from seconds to months', () => {
    assert.equal(formatAge(NOW - 10_000, NOW), 'just now');
    assert.equal(formatAge(NOW - 3 * 60_000, NOW), '3 min ago');
    assert.equal(formatAge(NOW - 2 * 3600_000, NOW), '2 h ago');
    assert.equal(formatAge(NOW - 24 * 3600_000, NOW), 'yesterday');
    assert.equal(formatAge(NOW - 5 * 24 * 3600_000, NOW), '5 days ago');
    assert.equal(formatAge(Date.parse('2026-01-02T00:00:00Z'), NOW), '2026-01-02');
    assert.equal(formatAge(NOW + 60_000, NOW), 'just now', 'a clock skew into the future is not negative');
  });

  it('shows a Claude Code session read-only: branches are shown, not switched to, and no snapshots offers the hooks', async () => {
    const file = '/c/projects/-w/abc.jsonl';
    const source = fakeSource([listing(file, 'Fix the parser', 3, 'claude')], {
      [file]: { branches: richDetails.branches, namedCheckpoints: [], fileCheckpoints: [], problems: [] },
    });
    const [session] = await rootNodes(source);
    const item = session!.toTreeItem(NOW);
    assert.equal(item.contextValue, 'session.claude');
    assert.match(String(item.description), /Claude Code/);
    const children = await session!.getChildren();
    assert.ok(
      children.some((c) => c instanceof SetUpHooksNode),
      'offers to set up the hooks',
    );
    assert.equal(children.find((c) => c instanceof SetUpHooksNode)!.toTreeItem(NOW).command?.command, 'agentRewind.installClaudeHooks');
    const branches = (await (children[0] as BranchesNode).getChildren()) as BranchNode[];
    for (const b of branches) {
      const spec = b.toTreeItem(NOW);
      assert.equal(spec.contextValue, 'branch.readonly');
      assert.equal(spec.command?.command, 'agentRewind.showBranch');
    }
  });
});
