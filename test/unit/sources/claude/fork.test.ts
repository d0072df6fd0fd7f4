import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readClaudeSession, writeClaudeFork } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

function session() {
  const t = new Transcript();
  t.raw({ type: 'queue-operation', operation: 'dequeue', sessionId: t.sessionId, timestamp: t.tick() });
  const p1 = t.user(null, 'q1', { promptId: 'pid1' });
  const a1 = t.text(p1, 'msg_1', 'a1');
  const at = t.attachment(a1);
  const p2 = t.user(at, 'q2 (rewound)');
  t.text(p2, 'msg_2', 'a2');
  const p3 = t.user(at, 'q2 again');
  const a3 = t.text(p3, 'msg_3', 'a3');
  const sum = t.compact(a3, 'summary');
  const p4 = t.user(sum, 'q4');
  const a4 = t.text(p4, 'msg_4', 'a4');
  const p5 = t.user(a4, 'q5');
  t.text(p5, 'msg_5', 'a5');
  return { t, p1, a1, at, p2, p3, a3, sum, p4, a4, p5 };
}

test('a fork holds the raw path up to the prompt, reads back as that prefix, points to its origin; the original is untouched', async (ctx) => {
  const { t, p1, a1, at, p3, a3, sum, p4, a4, p5 } = session();
  const file = t.write(tempConfigDir(ctx));
  const before = readFileSync(file);
  const s = await readClaudeSession(file);
  const fork = await writeClaudeFork(s, p5);
  assert.deepEqual(readFileSync(file), before);
  assert.equal(dirname(fork.sessionRef), dirname(file));
  assert.match(fork.sessionId, /^[0-9a-f-]{36}$/);
  const raw = readFileSync(fork.sessionRef, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  // the compact boundary and the attachment on the path are copied; the rewound branch and the queue line are not
  assert.deepEqual(
    raw.map((l) => l.uuid),
    [p1, a1, at, p3, a3, raw[5].uuid, sum, p4, a4],
  );
  assert.equal(raw[5].subtype, 'compact_boundary');
  for (const l of raw) {
    assert.equal(l.sessionId, fork.sessionId);
    assert.deepEqual(l.forkedFrom, { sessionId: s.sessionId, messageUuid: l.uuid });
  }
  const f = await readClaudeSession(fork.sessionRef);
  assert.deepEqual(
    f.getPath().map((e) => e.id),
    [p1, a1, p3, a3, sum, p4, a4],
  );
  assert.deepEqual(f.getPath(), s.getPath(a4));
  assert.deepEqual(f.forkedFrom, { sessionId: s.sessionId, sessionRef: file, entryId: a4 });
  assert.equal(f.isInherited(p4), true);
  assert.equal(
    readdirSync(dirname(file)).some((n) => n.endsWith('.partial')),
    false,
  );
});

test('forking at the first prompt, at a non-prompt, or onto an existing file fails clearly and writes nothing', async (ctx) => {
  const { t, p1, a1, p4 } = session();
  const file = t.write(tempConfigDir(ctx));
  const s = await readClaudeSession(file);
  await assert.rejects(writeClaudeFork(s, p1), /first prompt of the session/);
  await assert.rejects(writeClaudeFork(s, a1), /not a user prompt/);
  const taken = join(dirname(file), '99999999-2222-4333-8444-555555555555.jsonl');
  writeFileSync(taken, 'keep me\n');
  await assert.rejects(writeClaudeFork(s, p4, { sessionId: '99999999-2222-4333-8444-555555555555' }), /already exists/);
  assert.equal(readFileSync(taken, 'utf8'), 'keep me\n');
  assert.deepEqual(readdirSync(dirname(file)).sort(), [`${t.sessionId}.jsonl`, '99999999-2222-4333-8444-555555555555.jsonl'].sort());
});
