import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import type { MessageEntry } from '../../../../src/core/session/types';
import { Transcript, tempConfigDir } from './builder';

const texts = (ms: { role: string; content?: unknown; summary?: unknown }[]) =>
  ms.map((m) => `${m.role}:${String(m.summary ?? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))}`);

test('a compact boundary continues from its logical parent; the model sees the summary and what follows', async (ctx) => {
  const t = new Transcript();
  const p1 = t.user(null, 'old question');
  const a1 = t.text(p1, 'msg_1', 'old answer');
  const sum = t.compact(a1, 'This session is being continued from a previous conversation. Summary: X');
  const p2 = t.user(sum, 'new question');
  const a2 = t.text(p2, 'msg_2', 'new answer');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [p1, a1, sum, p2, a2],
  );
  const c = s.getEntry(sum)!;
  assert.equal(c.type, 'compaction');
  assert.equal(c.summary, 'This session is being continued from a previous conversation. Summary: X');
  assert.equal(c.tokensBefore, 1234);
  const context = s.buildSessionContext();
  assert.equal(context.messages.length, 3);
  assert.equal(context.messages[0]!.role, 'compactionSummary');
  assert.deepEqual(texts(context.messages.slice(1)), ['user:new question', `assistant:${JSON.stringify([{ type: 'text', text: 'new answer' }])}`]);
  // before the compaction, the context is still the full conversation
  assert.equal(s.buildSessionContext(a1).messages.length, 2);
});

test('compaction after a rewind continues the rewound branch, not the trunk', async (ctx) => {
  const t = new Transcript();
  const p1 = t.user(null, 'q1');
  const a1 = t.text(p1, 'msg_1', 'a1');
  const p2 = t.user(a1, 'q2 (abandoned)');
  t.text(p2, 'msg_2', 'a2');
  const p3 = t.user(a1, 'q2 again');
  const a3 = t.text(p3, 'msg_3', 'a3');
  const sum = t.compact(a3, 'summary of q1 and q2 again');
  const p4 = t.user(sum, 'q4');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.equal(s.getLeafId(), p4);
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [p1, a1, p3, a3, sum, p4],
  );
  const context = s.buildSessionContext();
  assert.deepEqual(
    context.messages.map((m) => m.role),
    ['compactionSummary', 'user'],
  );
  assert.equal((s.getEntry(p4) as MessageEntry).message.content, 'q4');
});
