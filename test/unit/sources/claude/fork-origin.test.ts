import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

const ORIGIN = '11111111-2222-4333-8444-555555555555';
const FORK = '66666666-2222-4333-8444-555555555555';

function origin(): { t: Transcript; p1: string; a1: string } {
  const t = new Transcript(ORIGIN);
  const p1 = t.user(null, 'q1', { uuid: 'aaaaaaaa-0001' });
  const a1 = t.text(p1, 'msg_1', 'a1', { uuid: 'aaaaaaaa-0002' });
  t.user(a1, 'q2 in origin', { uuid: 'aaaaaaaa-0003' });
  return { t, p1, a1 };
}

test('--fork-session copies (same uuids, no mark): forkedFrom names the origin; copied entries are inherited', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { t: o, p1, a1 } = origin();
  o.write(dir);
  await new Promise((r) => setTimeout(r, 20));
  const f = new Transcript(FORK);
  // like 2.1.330: bookkeeping and the new prompt's queue lines (timestamped now) come before the copied lines
  f.raw({ type: 'mode', mode: 'normal', sessionId: FORK });
  f.raw({ type: 'queue-operation', operation: 'enqueue', content: 'q2 in fork', sessionId: FORK, timestamp: new Date().toISOString() });
  for (const l of o.lines.slice(0, 2)) f.raw({ ...l, sessionId: FORK });
  const fp = f.user(a1, 'q2 in fork');
  const forkRef = f.write(dir);
  const s = await readClaudeSession(forkRef);
  assert.equal(s.forkedFrom?.sessionId, ORIGIN);
  assert.match(s.forkedFrom?.sessionRef ?? '', new RegExp(`${ORIGIN}\\.jsonl$`));
  assert.equal(s.forkedFrom?.entryId, a1);
  assert.equal(s.isInherited(p1), true);
  assert.equal(s.isInherited(a1), true);
  assert.equal(s.isInherited(fp), false);
  // the origin, created earlier, is not a fork of its fork
  assert.equal((await readClaudeSession(o.write(dir))).forkedFrom, undefined);
});

test('lines marked forkedFrom name the origin directly', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { t: o, a1 } = origin();
  o.write(dir);
  const f = new Transcript(FORK);
  for (const l of o.lines.slice(0, 2)) f.raw({ ...l, sessionId: FORK, forkedFrom: { sessionId: ORIGIN, messageUuid: l.uuid } });
  f.user(a1, 'q2 in fork');
  const s = await readClaudeSession(f.write(dir), { findForkOrigin: false });
  assert.deepEqual(s.forkedFrom, { sessionId: ORIGIN, sessionRef: o.write(dir), entryId: a1 });
});

test('a transcript whose first line is as new as the file is an original: the folder is not searched for an origin', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { t: o } = origin();
  o.write(dir);
  const f = new Transcript(FORK);
  // shares the origin's first uuid, but was written now, not copied
  f.raw({ ...o.lines[0]!, sessionId: FORK, timestamp: new Date().toISOString() });
  const s = await readClaudeSession(f.write(dir));
  assert.equal(s.forkedFrom, undefined);
});

test('an origin written with spaces after the colons is found as the compact one is (copied entries inherited)', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { t: o, p1, a1 } = origin();
  const spaced = (l: object) => JSON.stringify(l, null, 1).replace(/\n\s*/g, ' ');
  const originFile = o.write(dir);
  writeFileSync(originFile, o.lines.map(spaced).join('\n') + '\n');
  await new Promise((r) => setTimeout(r, 20));
  const f = new Transcript(FORK);
  for (const l of o.lines.slice(0, 2)) f.raw({ ...l, sessionId: FORK });
  const fp = f.user(a1, 'q2 in fork');
  const s = await readClaudeSession(f.write(dir));
  assert.equal(s.forkedFrom?.sessionId, ORIGIN);
  assert.deepEqual([s.isInherited(p1), s.isInherited(a1), s.isInherited(fp)], [true, true, false]);
});
