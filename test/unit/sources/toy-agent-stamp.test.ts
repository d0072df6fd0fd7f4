// The toy agent's change signal: a session written again gets a new stamp, also when it is the database's only one
// (its version was taken after its row was deleted, so a one-session database stamped every write 1, and the catalog
// never indexed the session again: found by flow 8's search).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseSettings } from '../../../src/core/settings/settings';
import { agent, writeToySession, type ToyMessage } from '../../support/toy-agent/agent';

test("a toy session written again has a new stamp, also as the database's only session", async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ar-toy-stamp-'));
  const saved = process.env.TOY_AGENT_HOME;
  process.env.TOY_AGENT_HOME = home;
  t.after(() => {
    if (saved === undefined) delete process.env.TOY_AGENT_HOME;
    else process.env.TOY_AGENT_HOME = saved;
    rmSync(home, { recursive: true, force: true });
  });
  const source = agent.source(parseSettings(() => undefined, {}));
  const u1: ToyMessage = { id: 'u1', parentId: null, role: 'user', text: 'first', at: '2026-11-27T09:00:01.000Z' };
  const ref = await writeToySession(home, { id: 's1', cwd: home, title: 'T', created: u1.at, messages: [u1] });
  const first = await source.stamp!(ref);
  await new Promise((r) => setTimeout(r, 20)); // a new mtime for the database file the source caches by
  await writeToySession(home, { id: 's1', cwd: home, title: 'T', created: u1.at, messages: [u1, { ...u1, id: 'a1', role: 'assistant', text: 'one' }] });
  const second = await source.stamp!(ref);
  assert.ok(first !== undefined && second !== undefined);
  assert.notEqual(second, first);
});
