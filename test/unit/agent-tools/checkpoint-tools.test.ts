import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCheckpointTools, ToolError } from '../../../src/core/agent-tools/checkpoint-tools';
import { CHECKPOINT_TOOL, REWIND_TOOL } from '../../../src/core/agent-tools/tool-schemas';
import type { AgentMessage } from '../../../src/core/session/types';
import { assistant, newSession, readAsPi, user, withTempHome } from '../branches/session-fixture';

const clock = () => {
  let t = Date.parse('2026-03-01T10:00:00.000Z');
  return () => new Date((t += 60_000));
};

test('tool texts and refusals are exactly those of the contract', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    const tools = new AgentCheckpointTools(session, { now: clock() });
    assert.throws(() => tools.rewind({ report: 'x' }), new ToolError('No active checkpoint.'));
    const cp = tools.checkpoint({ goal: 'find the auth flow' }, { messageCount: 0 });
    assert.equal(cp.text, 'Checkpoint: find the auth flow\nFinish exploration and formulate findings.');
    assert.deepEqual(cp.details, { goal: 'find the auth flow', startedAt: '2026-03-01T10:01:00.000Z' });
    assert.throws(() => tools.checkpoint({}, { messageCount: 0 }), new ToolError('Checkpoint already active.'));
    assert.throws(() => tools.rewind({ report: '  \n ' }), new ToolError('Report cannot be empty.'));
    assert.throws(() => tools.rewind({}), ToolError);
    assert.deepEqual(tools.rewind({ report: '  JWT in middleware  ' }), {
      text: 'Rewind requested.\nReport captured for context replacement.',
      details: { report: 'JWT in middleware', rewound: true },
    });
    assert.equal(session.getEntries().length, 0, 'nothing is applied inside the call');

    const sub = new AgentCheckpointTools(session, { isSubagent: true });
    assert.throws(() => sub.checkpoint({ goal: 'x' }, { messageCount: 0 }), new ToolError('Checkpoint not available in subagents.'));
    assert.throws(() => sub.rewind({ report: 'x' }), new ToolError('Checkpoint not available in subagents.'));
  }));

test('JSON schemas describe both inputs', () => {
  assert.deepEqual(Object.keys(CHECKPOINT_TOOL.inputSchema.properties), ['goal']);
  assert.deepEqual(REWIND_TOOL.inputSchema.required, ['report']);
});

test('turn end: messages cut to the checkpoint, branch_summary from the checkpoint entry, hidden rewind-report', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    const tools = new AgentCheckpointTools(session, { now: clock() });
    const messages: AgentMessage[] = [user('fix login'), assistant('let me look')];
    session.appendMessage(messages[0]!);
    const cpEntry = session.appendMessage(messages[1]!);
    tools.checkpoint({ goal: 'explore' }, { messageCount: messages.length });
    assert.equal(await tools.applyAtTurnEnd(messages), undefined, 'nothing pending yet');
    for (const m of [assistant('reading a.ts'), assistant('reading b.ts')]) {
      messages.push(m);
      session.appendMessage(m);
    }
    tools.rewind({ report: 'login uses JWT' });

    const after = await tools.applyAtTurnEnd(messages);
    assert.equal(after?.length, 3);
    assert.deepEqual(after!.slice(0, 2), messages.slice(0, 2));
    assert.deepEqual(after![2], {
      role: 'custom',
      customType: 'rewind-report',
      content: 'login uses JWT',
      display: false,
      details: { startedAt: '2026-03-01T10:01:00.000Z', rewoundAt: '2026-03-01T10:02:00.000Z' },
      timestamp: Date.parse('2026-03-01T10:02:00.000Z'),
    });
    const [summary, report] = session.getEntries().slice(-2) as Record<string, unknown>[];
    assert.deepEqual(
      [summary!.type, summary!.parentId, summary!.fromId, summary!.summary, summary!.details],
      ['branch_summary', cpEntry, cpEntry, 'login uses JWT', { startedAt: '2026-03-01T10:01:00.000Z' }],
    );
    assert.deepEqual(
      [report!.type, report!.parentId, report!.customType, report!.display, report!.details],
      ['custom_message', summary!.id, 'rewind-report', false, { startedAt: '2026-03-01T10:01:00.000Z', rewoundAt: '2026-03-01T10:02:00.000Z' }],
    );
    assert.equal(tools.active, undefined);
    assert.equal(tools.pendingReport, undefined);
    const roles = session.buildSessionContext().messages.map((m) => m.role);
    assert.deepEqual(roles, ['user', 'assistant', 'branchSummary', 'custom']);
    await session.flush();
    assert.deepEqual((await readAsPi(session.sessionFile!)).context, session.buildSessionContext());
  }));

test('a checkpoint entry that no longer exists falls back to the root with a warning', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    const warnings: string[] = [];
    const tools = new AgentCheckpointTools(session, { warn: (m) => warnings.push(m) });
    session.appendMessage(user('hi'));
    tools.checkpoint({}, { messageCount: 5, entryId: 'gone1234' });
    tools.rewind({ report: 'r' });
    const after = await tools.applyAtTurnEnd([user('hi')]);
    assert.equal(after?.length, 2, 'the count is clamped to the messages there are');
    assert.deepEqual(warnings, ['Rewind branch checkpoint missing, falling back to root']);
    const summary = session.getEntries().find((e) => e.type === 'branch_summary') as Record<string, unknown>;
    assert.deepEqual([summary.parentId, summary.fromId], [null, 'root']);
  }));

test('rehydrate: an unfinished checkpoint on the active path survives a reload; a finished one does not', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    session.appendMessage(user('investigate'));
    session.appendMessage({ role: 'assistant', content: [{ type: 'toolCall', id: 't1', name: 'checkpoint', arguments: { goal: 'g' } }], timestamp: 1 });
    const result = session.appendMessage({
      role: 'toolResult',
      toolCallId: 't1',
      toolName: 'checkpoint',
      content: [{ type: 'text', text: 'Checkpoint: g' }],
      details: { goal: 'g', startedAt: '2026-03-01T10:00:00.000Z' },
      isError: false,
      timestamp: 2,
    });
    session.appendMessage(assistant('exploring'));
    const tools = new AgentCheckpointTools(session, { now: clock() });
    assert.deepEqual(tools.rehydrate(), { goal: 'g', startedAt: '2026-03-01T10:00:00.000Z', checkpointEntryId: result, messageCount: 3 });
    tools.rewind({ report: 'found it' });
    await tools.applyAtTurnEnd([]);
    assert.equal(new AgentCheckpointTools(session).rehydrate(), undefined, 'the rewind-report closes it');
  }));
