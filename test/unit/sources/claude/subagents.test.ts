import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import type { MessageEntry } from '../../../../src/core/session/types';
import { Transcript, tempConfigDir } from './builder';

function subagent(sessionId: string, agentId: string, prompt: string, answer: string): Transcript {
  const t = new Transcript(sessionId);
  const p = t.user(null, prompt, { isSidechain: true, agentId, uuid: `${agentId}-p` });
  t.text(p, `msg_${agentId}`, answer, { isSidechain: true, agentId, uuid: `${agentId}-a` });
  return t;
}

test('subagents: subagents/ files linked by toolUseResult.agentId, old agent-*.jsonl beside by prompt; not main entries', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'investigate');
  const c1 = t.toolUse(p, 'msg_A', 'toolu_task1', 'Task', { description: 'Find files', subagent_type: 'Explore', prompt: 'find the files' });
  const r1 = t.toolResult(c1, 'toolu_task1', 'found', { toolUseResult: { agentId: 'aaa1', totalTokens: 5 } });
  const c2 = t.toolUse(r1, 'msg_B', 'toolu_task2', 'Agent', { description: 'Old style', prompt: 'old layout prompt' });
  t.toolResult(c2, 'toolu_task2', 'ok');
  const configDir = tempConfigDir(ctx);
  const file = t.write(configDir);
  const nested = join(dirname(file), t.sessionId, 'subagents');
  mkdirSync(nested, { recursive: true });
  writeFileSync(join(nested, 'agent-aaa1.jsonl'), subagent(t.sessionId, 'aaa1', 'find the files', 'here they are').toString());
  writeFileSync(join(dirname(file), 'agent-bbb2.jsonl'), subagent(t.sessionId, 'bbb2', 'old layout prompt', 'done old').toString());
  // an old-layout agent of another session with the same prompt is not ours
  writeFileSync(join(dirname(file), 'agent-ccc3.jsonl'), subagent('99999999-2222-4333-8444-555555555555', 'ccc3', 'old layout prompt', 'not ours').toString());
  const s = await readClaudeSession(file);
  const [sub1] = s.subagentsOf('toolu_task1');
  assert.equal(sub1?.agentId, 'aaa1');
  assert.equal(sub1?.title, 'Explore: Find files');
  assert.equal(sub1?.file, join(nested, 'agent-aaa1.jsonl'));
  assert.deepEqual(
    sub1?.entries.map((e) => (e as MessageEntry).message.role),
    ['user', 'assistant'],
  );
  const sub2 = s.subagentsOf('toolu_task2');
  assert.deepEqual(
    sub2.map((x) => x.agentId),
    ['bbb2'],
  );
  assert.equal(
    s.getEntries().some((e) => e.id.startsWith('aaa1') || e.id.startsWith('bbb2')),
    false,
  );
  assert.deepEqual(s.subagentsOf('toolu_none'), []);
});

test('sidechain lines inside the main file become the subagent of the matching Task call', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'investigate');
  const c1 = t.toolUse(p, 'msg_A', 'toolu_task1', 'Task', { description: 'd', prompt: 'inline sub prompt' });
  const sp = t.user(null, 'inline sub prompt', { isSidechain: true });
  t.text(sp, 'msg_S', 'sub answer', { isSidechain: true });
  t.toolResult(c1, 'toolu_task1', 'ok');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  const [sub] = s.subagentsOf('toolu_task1');
  assert.equal(sub?.entries.length, 2);
  assert.equal(s.getEntries().length, 3);
});
