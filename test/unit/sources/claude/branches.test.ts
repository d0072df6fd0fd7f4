import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { deriveBranches } from '../../../../src/core/branches/derive';
import type { ClaudeSession } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

function branchNames(s: ClaudeSession): string[] {
  return deriveBranches(s.getEntries(), s.getLeafId(), { sessionId: s.sessionId, sessionCreatedAt: 0, warn: () => {} }).branches.map((b) => b.name);
}

test('a rewind (a prompt re-sent from an earlier point, later) forks the tree; the last conversational line is the leaf', async (ctx) => {
  const t = new Transcript();
  const p1 = t.user(null, 'first');
  const a1 = t.text(p1, 'msg_1', 'one');
  const p2 = t.user(a1, 'second');
  const a2 = t.text(p2, 'msg_2', 'two');
  const p2b = t.user(a1, 'second, differently');
  const a2b = t.text(p2b, 'msg_3', 'two b');
  t.system(a2b, 'turn_duration', { durationMs: 5 });
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.equal(s.getLeafId(), a2b);
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [p1, a1, p2b, a2b],
  );
  assert.equal(s.getEntry(p2)?.parentId, a1);
  assert.deepEqual(branchNames(s), ['main', `tip-${a2}`]);
});

test('parallel tool calls and their results, progress and attachment side chains are one chain, not branches', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'do two things');
  const u1 = t.toolUse(p, 'msg_A', 'toolu_1', 'Read', { file_path: '/a' });
  const u2 = t.toolUse(u1, 'msg_A', 'toolu_2', 'Read', { file_path: '/b' });
  t.raw({ type: 'progress', uuid: 'pg1', parentUuid: u1, timestamp: t.tick(), data: { type: 'hook_progress' }, toolUseID: 'toolu_1' });
  const r1 = t.toolResult(u1, 'toolu_1', 'A'); // answers the first block's line: a sibling of the second block
  const r2 = t.toolResult(u2, 'toolu_2', 'B');
  t.attachment(r1);
  const a = t.text(r2, 'msg_B', 'both read');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [p, u1, r1, r2, a],
  );
  assert.deepEqual(branchNames(s), ['main']);
});

test('compaction replays (same parent, same timestamp) and max_tokens continuations are flattened', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'start');
  const a = t.text(p, 'msg_A', 'partial', {
    message: { id: 'msg_A', role: 'assistant', content: [{ type: 'text', text: 'partial' }], stop_reason: 'max_tokens' },
  });
  const ts = t.tick();
  const q1 = t.user(a, 'same prompt', { timestamp: ts });
  const q2 = t.user(a, 'same prompt', { timestamp: ts });
  const b = t.text(q2, 'msg_B', 'rest');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [p, a, q1, q2, b],
  );
  assert.deepEqual(branchNames(s), ['main']);
});

test('sidechain lines of the main file are not main entries and never the leaf', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'go');
  const a = t.text(p, 'msg_A', 'main answer');
  t.user(null, 'sub prompt', { isSidechain: true, agentId: 'ag1' });
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.equal(s.getLeafId(), a);
  assert.equal(s.getEntries().length, 2);
});
