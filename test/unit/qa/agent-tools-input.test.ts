// The agent tools take their context from a host (the extension API, another tool's glue). A messageCount that is not
// a number (undefined from a caller that left it out, NaN from arithmetic on one) must be refused at checkpoint time:
// carried along it became NaN, and at turn end `slice(0, NaN)` silently cut every in-memory message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCheckpointTools } from '../../../src/core/agent-tools/checkpoint-tools';
import { newSession, withTempHome } from '../branches/session-fixture';

test('checkpoint refuses a messageCount that is not a whole number ≥ 0, and nothing becomes active', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    const tools = new AgentCheckpointTools(session);
    for (const messageCount of [NaN, undefined, Infinity, -1, '3'] as unknown[]) {
      assert.throws(() => tools.checkpoint({}, { messageCount } as never), /messageCount must be a whole number of at least 0/, String(messageCount));
      assert.equal(tools.active, undefined, String(messageCount));
    }
    assert.throws(() => tools.checkpoint({}, undefined as never), /messageCount must be a whole number of at least 0/);
    tools.checkpoint({}, { messageCount: 2 });
    assert.throws(() => tools.recordCheckpointResult('x', NaN), /messageCount must be a whole number of at least 0/);
    assert.equal(tools.active?.messageCount, 2);
  }));
