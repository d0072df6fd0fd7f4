// The Workspace Timeline view's model (issue 27, item 6) without VS Code: days newest first, the points of every
// session interleaved as the engine orders them, each point's label, kind, agent and click, and what commands given a
// point act on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkspaceTimelinePoint } from '../../../src/core/engine';
import { entryTargetOf, sessionRefOf } from '../../../src/extension/commands/targets';
import { dayOf, TimelineDayNode, TimelinePointNode, timelineRootNodes } from '../../../src/extension/tree/timeline-nodes';

const ours = { sessionRef: '/s/a.jsonl', source: 'agent-rewind', title: 'Session A' };
const claude = { sessionRef: '/claude/b.jsonl', source: 'claude', title: 'Parser work' };

function point(index: number, at: string, p: Partial<WorkspaceTimelinePoint>): WorkspaceTimelinePoint {
  return { folder: '/ws', index, sessionId: 's', anchorId: `an-${index}`, kind: 'prompt', at, ...p };
}

// local times, so that the days are the same whatever the machine's time zone
const local = (d: number, h: number, m = 0) => new Date(2026, 10, d, h, m).toISOString();
const NOW = new Date(2026, 10, 27, 18, 0);

const POINTS: WorkspaceTimelinePoint[] = [
  point(6, local(27, 10, 5), { sessionId: 'b', kind: 'turn-end', session: claude, prompt: { messageId: 'm-b1', text: 'fix the parser' } }),
  point(5, local(27, 10, 4), { sessionId: 'a', kind: 'pre-restore', session: ours }),
  point(4, local(27, 10, 2), { sessionId: 'a', kind: 'prompt', session: ours, prompt: { messageId: 'u2', text: 'add tests' } }),
  point(3, local(27, 10, 0), { sessionId: 'b', kind: 'prompt', session: claude, prompt: { messageId: 'm-b1', text: 'fix the parser' } }),
  point(2, local(26, 9), { sessionId: 'gone', kind: 'prompt' }),
  point(1, local(26, 8), { sessionId: 'a', kind: 'prompt', session: ours, prompt: { messageId: 'u1', text: 'start' } }),
  point(0, local(20, 8), { sessionId: 'claude-hooks-baseline', kind: 'baseline' }),
];

describe('workspace timeline nodes', () => {
  it('groups the points by day, newest day first and expanded; points keep the engine’s order (newest first)', async () => {
    const days = await timelineRootNodes({ workspaceTimeline: async () => POINTS }, NOW);
    assert.deepEqual(
      days.map((d) => {
        const item = d.toTreeItem();
        return [item.label, item.description, item.collapsible];
      }),
      [
        ['Today', '4 snapshots · 2 sessions', 'expanded'],
        ['Yesterday', '2 snapshots · 2 sessions', 'collapsed'],
        [dayOf(new Date(2026, 10, 20)), '1 snapshot · 0 sessions', 'collapsed'],
      ],
    );
    const today = await days[0]!.getChildren();
    assert.ok(today.every((n) => n instanceof TimelinePointNode && n.parent === days[0]));
    assert.deepEqual(
      today.map((n) => (n as TimelinePointNode).point.index),
      [6, 5, 4, 3],
      'the two sessions interleaved as they were taken',
    );
  });

  it('each point says its prompt, agent, kind and time, and opens its session at its prompt', async () => {
    const days = await timelineRootNodes({ workspaceTimeline: async () => POINTS }, NOW);
    const items = (await Promise.all(days.map((d) => d.getChildren()))).flat().map((n) => n.toTreeItem(NOW.getTime()));
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.icon?.id, i.contextValue]),
      [
        ['“fix the parser”', 'Claude Code · turn ended · 10:05', 'pass', 'timeline.turn-end.message'],
        ['Before a rewind', 'agent-rewind · Session A · before a rewind · 10:04', 'discard', 'timeline.pre-restore'],
        ['“add tests”', 'agent-rewind · prompt sent · 10:02', 'comment-discussion', 'timeline.prompt.message'],
        ['“fix the parser”', 'Claude Code · prompt sent · 10:00', 'terminal', 'timeline.prompt.message'],
        ['Prompt an-2', 'Unknown session · prompt sent · 09:00', 'comment', 'timeline.prompt'],
        ['“start”', 'agent-rewind · prompt sent · 08:00', 'comment-discussion', 'timeline.prompt.message'],
        ['Baseline snapshot (claude hooks set up)', 'baseline · 08:00', 'circle-large-outline', 'timeline.baseline'],
      ],
    );
    assert.deepEqual(items[3]!.command, {
      command: 'agentRewind.openTranscript',
      title: 'Open Transcript',
      arguments: [{ sessionRef: '/claude/b.jsonl', entryId: 'm-b1' }],
    });
    assert.deepEqual(items[1]!.command?.arguments, [{ sessionRef: '/s/a.jsonl' }], 'a point without a prompt opens its session');
    assert.equal(items[4]!.command, undefined, 'a session the folder does not list opens nothing');
    assert.match(items[3]!.tooltip ?? '', /Claude Code session \*\*Parser work\*\*/);
    assert.equal(new Set(items.map((i) => i.id)).size, items.length, 'ids are unique (a refresh keeps the expansion)');
  });

  it('Rewind to Here and Open Transcript from a point’s context menu act on its session and prompt', () => {
    const day = new TimelineDayNode('2026-11-27', POINTS.slice(0, 4), NOW, true);
    const [turnEnd, preRestore] = day.points;
    assert.deepEqual(entryTargetOf(turnEnd), { sessionRef: '/claude/b.jsonl', entryId: 'm-b1' });
    assert.equal(entryTargetOf(preRestore), undefined);
    assert.equal(sessionRefOf(preRestore), '/s/a.jsonl');
  });

  it('an empty timeline has no days (the view shows its welcome text)', async () => {
    assert.deepEqual(await timelineRootNodes({ workspaceTimeline: async () => [] }, NOW), []);
  });
});
