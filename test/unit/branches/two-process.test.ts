// Two real processes move heads of one session file at the same time. Every mutation runs in a session
// transaction, so: no entry lost or duplicated, no branch name created twice, and no head update lost (a lost one
// would leave an unnamed tip: a message reachable from no named branch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Conversation } from '../../../src/core/branches/conversation';
import { assistant, newSession, openSession, readAsPi, user, withTempHome } from './session-fixture';

const ROOT = resolve(__dirname, '../../..');
const HAMMER = resolve(ROOT, 'test/multiprocess/hammer-session.ts');

interface WorkerLog {
  saved: { id: string; tag: string }[];
  created: string[];
  checkpoints: string[];
}

function runWorker(file: string, home: string, worker: string, iterations: number, seed: number, startAt: number): Promise<WorkerLog> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HAMMER, file, home, worker, String(iterations), String(seed), String(startAt)], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as WorkerLog) : reject(new Error(`${worker} exited ${code}: ${err}`))));
  });
}

test('two processes appending, rewinding, switching and checkpointing one session lose and duplicate nothing', { timeout: 120_000 }, () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    session.appendMessage(user('start'));
    session.appendMessage(assistant('ready'));
    await session.close();
    const file = session.sessionFile!;
    const iterations = Number(process.env.AGENT_REWIND_HAMMER_ITERATIONS ?? 40);
    const startAt = Date.now() + 1500;
    const logs = await Promise.all([runWorker(file, home, 'A', iterations, 1, startAt), runWorker(file, home, 'B', iterations, 2, startAt)]);

    const pi = await readAsPi(file);
    const ids = pi.entries.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'no duplicated entry ids');
    const seen = new Set<string>();
    for (const e of pi.entries) {
      assert.ok(e.parentId === null || seen.has(e.parentId), `parent of ${e.id} is written before it`);
      seen.add(e.id);
    }
    const text = await readFile(file, 'utf8');
    for (const log of logs) {
      for (const { id, tag } of log.saved) {
        const hits = pi.entries.filter((e) => e.type === 'message' && (e as { message: { content: unknown } }).message.content === tag);
        assert.deepEqual(
          hits.map((h) => h.id),
          [id],
          `message ${tag} saved exactly once`,
        );
      }
    }
    assert.ok(text.endsWith('\n'));

    const reopened = new Conversation(await openSession(file, home), { warn: (m) => assert.fail(m) });
    const snap = reopened.snapshot();
    const created = logs.flatMap((l) => l.created);
    assert.equal(new Set(created).size, created.length, `no branch name created twice: ${created.join(' ')}`);
    const names = new Set(snap.branches.map((b) => b.name));
    for (const name of created) assert.ok(names.has(name), `branch ${name} exists`);
    assert.deepEqual(
      snap.branches.filter((b) => b.kind === 'tip').map((b) => b.name),
      [],
      'no head update lost: every tip is a named branch',
    );
    const cps = new Set(snap.checkpoints.map((c) => c.name));
    for (const name of logs.flatMap((l) => l.checkpoints)) assert.ok(cps.has(name), `checkpoint ${name} kept`);
    assert.deepEqual(pi.context, reopened.session.buildSessionContext(snap.active.leafId), 'last entry as leaf == our active branch');
    assert.ok(
      logs.every((l) => l.saved.length > 0 && l.created.length > 0),
      'both workers wrote and rewound',
    );
  }),
);
