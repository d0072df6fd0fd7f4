// How a fork is listed: named as a fork first (lists cut titles at the end, where "(fork)" was), linked to its
// origin with the first prompt of its own (what tells the forks of one session apart), and started when it was
// made, not at its origin's first line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, utimesSync } from 'node:fs';
import { discoverClaudeSessions, readClaudeSession, writeClaudeFork } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

const LONG = 'Create a small calculator in src/ with add, subtract, multiply and divide, and tests for each of them';

async function originAndFork(dir: string) {
  const t = new Transcript('aaaaaaaa-2222-4333-8444-555555555555', '/work/calc');
  const p1 = t.user(null, LONG);
  const a1 = t.text(p1, 'msg_1', 'done');
  const p2 = t.user(a1, 'Add tests');
  t.text(p2, 'msg_2', 'tests added');
  const file = t.write(dir, '-work-calc');
  const fork = await writeClaudeFork(await readClaudeSession(file), p2);
  return { t, file, fork, a1 };
}

test('a Rewind to here fork, not yet continued: "Fork: <title>", its origin, started when written', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { t, file, fork } = await originAndFork(dir);
  const written = new Date('2026-03-04T05:06:07.000Z');
  utimesSync(fork.sessionRef, written, written);
  const list = await discoverClaudeSessions({ workspaceRoots: ['/work/calc'], configDirs: [dir] });
  const origin = list.find((l) => l.sessionId === t.sessionId)!;
  const f = list.find((l) => l.sessionId === fork.sessionId)!;
  assert.equal(origin.title, LONG);
  assert.equal(origin.fork, undefined);
  assert.equal(f.title, `Fork: ${LONG}`, 'the mark comes first, so a cut title still shows it');
  assert.deepEqual(f.fork, { originSessionId: t.sessionId });
  assert.notEqual(f.createdAt, origin.createdAt, "not the origin's first line");
  assert.ok(Date.parse(f.createdAt) >= Date.parse('2026-01-02T00:00:00Z'), f.createdAt);
  const read = await readClaudeSession(fork.sessionRef);
  assert.equal(read.title, `Fork: ${LONG}`);
  assert.notEqual(read.createdAt, (await readClaudeSession(file)).createdAt);
});

test('a continued fork: its own first prompt and its own start time', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const { fork, a1 } = await originAndFork(dir);
  const own = new Transcript(fork.sessionId, '/work/calc');
  (own as unknown as { clock: number }).clock = Date.parse('2026-02-01T10:00:00.000Z');
  const p = own.user(a1, 'Add a square root button instead');
  own.text(p, 'msg_9', 'ok');
  appendFileSync(fork.sessionRef, own.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const list = await discoverClaudeSessions({ workspaceRoots: ['/work/calc'], configDirs: [dir] });
  const f = list.find((l) => l.sessionId === fork.sessionId)!;
  assert.equal(f.fork?.firstOwnPrompt, 'Add a square root button instead');
  assert.equal(f.createdAt, '2026-02-01T10:00:01.000Z');
  assert.equal((await readClaudeSession(fork.sessionRef)).createdAt, '2026-02-01T10:00:01.000Z');
});
