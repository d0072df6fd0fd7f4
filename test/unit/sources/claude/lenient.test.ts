import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

test('bad lines are reported with their 1-based numbers and skipped; the rest still reads', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'hello');
  t.text(p, 'msg_1', 'hi');
  const file = t.write(tempConfigDir(ctx));
  const text = t.toString().split('\n');
  text.splice(1, 0, '{not json', '[1,2]');
  writeFileSync(file, text.join('\n'));
  const s = await readClaudeSession(file);
  assert.deepEqual(
    s.getLoadReport().skipped.map((x) => x.line),
    [2, 3],
  );
  assert.match(s.getLoadReport().skipped[0]!.reason, /invalid JSON/);
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    ['u1', 'u2'],
  );
});

test('a torn last line (being written) is ignored silently until it is complete', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'hello');
  const file = t.write(tempConfigDir(ctx));
  const next = JSON.stringify({
    type: 'assistant',
    uuid: 'a1',
    parentUuid: p,
    timestamp: t.tick(),
    message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  });
  appendFileSync(file, next.slice(0, 40));
  const torn = await readClaudeSession(file);
  assert.deepEqual(torn.getLoadReport().skipped, []);
  assert.equal(torn.getLeafId(), 'u1');
  appendFileSync(file, next.slice(40) + '\n');
  assert.equal((await readClaudeSession(file)).getLeafId(), 'a1');
});

test('unknown line types with a uuid stay in the graph, so their children are not orphaned; others are skipped', async (ctx) => {
  const t = new Transcript();
  const p = t.user(null, 'hello');
  t.raw({ type: 'frobnicate', uuid: 'x1', parentUuid: p, timestamp: t.tick() });
  t.raw({ type: 'cost-state', cost: 1 });
  t.text('x1', 'msg_1', 'hi');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    ['u1', 'u2'],
  );
  assert.equal(s.getEntry('x1'), undefined);
  assert.equal(s.getEntries().length, 2);
});

test('cycles, self-parents and missing parents neither crash nor hang: such lines become roots', async (ctx) => {
  const t = new Transcript();
  t.raw({ type: 'user', uuid: 'c1', parentUuid: 'c2', timestamp: t.tick(), message: { role: 'user', content: 'one' } });
  t.raw({ type: 'user', uuid: 'c2', parentUuid: 'c1', timestamp: t.tick(), message: { role: 'user', content: 'two' } });
  t.raw({ type: 'user', uuid: 'c3', parentUuid: 'c3', timestamp: t.tick(), message: { role: 'user', content: 'three' } });
  t.text('gone', 'msg_1', 'orphan');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  const byId = new Map(s.getEntries().map((e) => [e.id, e.parentId]));
  assert.equal(byId.get('c1'), null); // its parent comes later in the file: treated as missing, which breaks the cycle
  assert.equal(byId.get('c2'), 'c1');
  assert.equal(byId.get('c3'), null);
  assert.equal(byId.get('u1'), null);
  for (const e of s.getEntries()) assert.ok(s.getPath(e.id).length <= 2);
});

test('a 20,000-deep chain reads without recursion', async (ctx) => {
  const t = new Transcript();
  let p: string | null = null;
  for (let i = 0; i < 10_000; i++) {
    p = t.user(p, `q${i}`);
    p = t.attachment(p);
  }
  const last = t.text(p, 'msg_end', 'end');
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.equal(s.getLeafId(), last);
  assert.equal(s.getPath().length, 10_001);
  assert.equal(s.buildSessionContext().messages.length, 10_001);
});
