import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSessionContext } from '../../../src/core/session/context';
import { SessionManager } from '../../../src/core/session/session-manager';
import type { SessionEntry } from '../../../src/core/session/types';

test('runtime state: thinking level, model roles, assistant fallback, deduplicated ttsr rules, mode', () => {
  const s = SessionManager.inMemory();
  assert.deepEqual(s.buildSessionContext(), { messages: [], thinkingLevel: 'off', models: {}, injectedTtsrRules: [], mode: 'none' });
  s.appendMessage({ role: 'user', content: 'q' });
  s.appendMessage({ role: 'assistant', content: 'a', provider: 'anthropic', model: 'claude' });
  assert.deepEqual(s.buildSessionContext().models, { default: 'anthropic/claude' });
  s.appendModelChange('openai/gpt-4o', 'smol');
  assert.deepEqual(s.buildSessionContext().models, { smol: 'openai/gpt-4o', default: 'anthropic/claude' });
  s.appendModelChange('openai/o3');
  s.appendMessage({ role: 'assistant', content: 'b', provider: 'x', model: 'y' });
  assert.deepEqual(s.buildSessionContext().models, { smol: 'openai/gpt-4o', default: 'openai/o3' });
  s.appendThinkingLevelChange('high');
  s.appendTtsrInjection(['a', 'b']);
  s.appendTtsrInjection(['b', 'c']);
  s.appendModeChange('plan', { planFile: '/p.md' });
  const ctx = s.buildSessionContext();
  assert.equal(ctx.thinkingLevel, 'high');
  assert.deepEqual(ctx.injectedTtsrRules, ['a', 'b', 'c']);
  assert.equal(ctx.mode, 'plan');
  assert.deepEqual(ctx.modeData, { planFile: '/p.md' });
  s.appendModeChange('none');
  assert.equal('modeData' in s.buildSessionContext(), false);
});

test('messages: custom_message → role custom, branch_summary → branchSummary; custom, session_init, labels add nothing', () => {
  const s = SessionManager.inMemory();
  s.appendSessionInit({ systemPrompt: 'sys', task: 't', tools: ['read'] });
  const u = s.appendMessage({ role: 'user', content: 'q' });
  s.appendCustomEntry('agent-rewind/branch', { name: 'main' });
  s.appendLabelChange(u, 'start');
  s.appendCustomMessageEntry('rewind-report', 'hidden report', false, { n: 1 });
  const b = s.branchWithSummary(u, 'the other way');
  const msgs = s.buildSessionContext().messages;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ['user', 'branchSummary'],
  );
  s.branch(s.getEntries()[4]!.id);
  const withCustom = s.buildSessionContext().messages;
  assert.deepEqual(
    withCustom.map((m) => m.role),
    ['user', 'custom'],
  );
  const custom = withCustom[1]!;
  assert.deepEqual(custom, {
    role: 'custom',
    customType: 'rewind-report',
    content: 'hidden report',
    display: false,
    details: { n: 1 },
    timestamp: Date.parse(s.getEntries()[4]!.timestamp),
  });
  assert.deepEqual(msgs[1], { role: 'branchSummary', summary: 'the other way', fromId: u, timestamp: Date.parse(s.getEntry(b)!.timestamp) });
});

test('compaction: summary first, kept entries from firstKeptEntryId, then what follows; the latest compaction on the path wins', () => {
  const s = SessionManager.inMemory();
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(s.appendMessage({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));
  s.appendCompaction('first summary', ids[2]!, 100);
  s.appendMessage({ role: 'user', content: 'after1' });
  const text = () => s.buildSessionContext().messages.map((m) => (m.role === 'compactionSummary' ? `[${m.summary}]` : m.content));
  assert.deepEqual(text(), ['[first summary]', 'm2', 'm3', 'm4', 'm5', 'after1']);
  const keep = s.getLeafId()!;
  s.appendCompaction('second summary', keep, 200, { shortSummary: 'short' });
  s.appendMessage({ role: 'assistant', content: 'after2' });
  assert.deepEqual(text(), ['[second summary]', 'after1', 'after2']);
  assert.equal(s.buildSessionContext().messages[0]!.tokensBefore, 200);
  // a leaf before the second compaction still sees the first
  assert.deepEqual(s.buildSessionContext(keep).messages.length, 6);
  assert.throws(() => s.appendCompaction('x', 'missing'), /no entry missing/);
});

test('leaf selection: null → empty, unknown or undefined → the last entry; a broken parent chain stops the walk', () => {
  const e = (id: string, parentId: string | null, content: string): SessionEntry => ({
    type: 'message',
    id,
    parentId,
    timestamp: 't',
    message: { role: 'user', content },
  });
  const entries = [e('a', null, 'A'), e('b', 'a', 'B'), e('c', 'zz', 'C'), e('d', 'd', 'D')];
  assert.deepEqual(buildSessionContext(entries, null).messages, []);
  assert.deepEqual(
    buildSessionContext(entries, 'b').messages.map((m) => m.content),
    ['A', 'B'],
  );
  assert.deepEqual(
    buildSessionContext(entries, 'c').messages.map((m) => m.content),
    ['C'],
  );
  // a self-parented entry (hand-edited file) does not loop
  assert.deepEqual(
    buildSessionContext(entries).messages.map((m) => m.content),
    ['D'],
  );
  assert.deepEqual(
    buildSessionContext(entries, 'unknown').messages.map((m) => m.content),
    ['D'],
  );
});

test('v1 model_change with provider + modelId counts as an explicit model', () => {
  const entries: SessionEntry[] = [
    { type: 'message', id: 'a', parentId: null, timestamp: 't', message: { role: 'assistant', provider: 'p', model: 'm' } },
    { type: 'model_change', id: 'b', parentId: 'a', timestamp: 't', provider: 'anthropic', modelId: 'claude-opus-4-5' },
  ];
  assert.deepEqual(buildSessionContext(entries).models, { default: 'anthropic/claude-opus-4-5' });
});
