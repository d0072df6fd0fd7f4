import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { SessionManager } from '../../../src/core/session/session-manager';
import { buildSessionChild } from '../../crash/build-child';
import { tempDir } from './helpers';

test("syncFromDisk reads what another writer appended; the leaf becomes the file's last entry", async (t) => {
  const home = tempDir(t);
  const a = SessionManager.create('/p', { home, deferUntilAssistant: false });
  const first = a.appendMessage({ role: 'user', content: 'a1' });
  await a.flush();
  const b = await SessionManager.open(a.sessionFile!, { home, deferUntilAssistant: false });
  assert.equal(await b.syncFromDisk(), 0);
  const second = await a.transaction((s) => s.appendMessage({ role: 'assistant', content: 'a2' }));
  assert.equal(await b.syncFromDisk(), 1);
  assert.equal(b.getLeafId(), second);
  const third = await b.transaction((s) => s.appendMessage({ role: 'user', content: 'b1' }));
  assert.equal(b.getEntry(third)!.parentId, second);
  // a's transaction first reads b's entry, so its append chains after it
  const fourth = await a.transaction((s) => s.appendMessage({ role: 'assistant', content: 'a3' }));
  assert.equal(a.getEntry(fourth)!.parentId, third);
  assert.deepEqual(
    a.getEntries().map((e) => e.id),
    [first, second, third, fourth],
  );
  await a.close();
  await b.close();
  const reloaded = await SessionManager.open(a.sessionFile!, { home });
  assert.deepEqual(
    reloaded.getEntries().map((e) => e.id),
    [first, second, third, fourth],
  );
});

test('syncFromDisk leaves a half-written line alone until it is complete', async (t) => {
  const home = tempDir(t);
  const a = SessionManager.create('/p', { home, deferUntilAssistant: false });
  a.appendMessage({ role: 'user', content: 'a1' });
  await a.close();
  const b = await SessionManager.open(a.sessionFile!, { home, deferUntilAssistant: false });
  const line = JSON.stringify({ type: 'message', id: 'abcdef01', parentId: b.getLeafId(), timestamp: 't', message: { role: 'user', content: 'other' } });
  appendFileSync(a.sessionFile!, line.slice(0, 20));
  assert.equal(await b.syncFromDisk(), 0);
  assert.deepEqual(b.getLoadReport().skipped, []);
  appendFileSync(a.sessionFile!, line.slice(20) + '\n');
  assert.equal(await b.syncFromDisk(), 1);
  assert.equal(b.getLeafId(), 'abcdef01');
  await b.close();
});

test('a torn last line seen at open is picked up by syncFromDisk once its writer completes it', async (t) => {
  const home = tempDir(t);
  const a = SessionManager.create('/p', { home, deferUntilAssistant: false });
  a.appendMessage({ role: 'user', content: 'a1' });
  await a.close();
  const line = JSON.stringify({ type: 'message', id: 'abcdef02', parentId: a.getLeafId(), timestamp: 't', message: { role: 'user', content: 'late' } });
  appendFileSync(a.sessionFile!, line.slice(0, 30));
  const b = await SessionManager.open(a.sessionFile!, { home, deferUntilAssistant: false });
  assert.deepEqual(b.getLoadReport().skipped, [{ line: 3, reason: 'incomplete last line' }]);
  appendFileSync(a.sessionFile!, line.slice(30) + '\n');
  assert.equal(await b.syncFromDisk(), 1);
  assert.equal(b.getLeafId(), 'abcdef02');
  await b.close();
});

function runChild(child: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`child failed (${code}): ${err}`))));
  });
}

test('transactions from concurrent processes never interleave: every entry is kept and the file stays one chain', async (t) => {
  const home = tempDir(t);
  const child = buildSessionChild(home);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  await s.close();
  const file = s.sessionFile!;
  await Promise.all([
    runChild(child, ['tx-append', file, home, '15', 'A']),
    runChild(child, ['tx-append', file, home, '15', 'B']),
    runChild(child, ['tx-append', file, home, '15', 'C']),
  ]);
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 1 + 45);
  const r = await SessionManager.open(file, { home });
  assert.deepEqual(r.getLoadReport().skipped, []);
  const entries = r.getEntries();
  entries.forEach((e, i) => assert.equal(e.parentId, i === 0 ? null : entries[i - 1]!.id));
  for (const tag of ['A', 'B', 'C']) {
    const mine = entries.map((e) => (e as { message: { content: string } }).message.content).filter((c) => c.startsWith(tag + ' '));
    assert.deepEqual(
      mine,
      Array.from({ length: 15 }, (_, i) => `${tag} ${i}`),
    );
  }
});

test('a transaction whose fn throws releases the lock and keeps what was appended before the throw', async (t) => {
  const home = tempDir(t);
  const a = SessionManager.create('/p', { home, deferUntilAssistant: false });
  let kept = '';
  await assert.rejects(
    a.transaction((s) => {
      kept = s.appendMessage({ role: 'user', content: 'before the failure' });
      throw new Error('boom');
    }),
    /boom/,
  );
  const b = await SessionManager.open(a.sessionFile!, { home, deferUntilAssistant: false });
  assert.deepEqual(
    b.getEntries().map((e) => e.id),
    [kept],
  );
  // the lock was released: another manager can take it at once
  await b.transaction((s) => s.appendMessage({ role: 'user', content: 'next' }));
  await a.transaction(() => undefined);
  assert.equal(a.getEntries().length, 2);
  await a.close();
  await b.close();
});

test('in-memory sessions run transactions without any storage', async () => {
  const s = SessionManager.inMemory('/p');
  const id = await s.transaction((x) => x.appendMessage({ role: 'user', content: 'q' }));
  assert.equal(s.getLeafId(), id);
  assert.equal(s.sessionFile, undefined);
  assert.equal(await s.syncFromDisk(), 0);
});

/** An empty session file on disk and the bundled child process that works on it. */
async function sessionWithChild(t: { after(fn: () => void): void }): Promise<{ home: string; child: string; file: string }> {
  const home = tempDir(t);
  const child = buildSessionChild(home);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  await s.close();
  return { home, child, file: s.sessionFile! };
}

/** Starts `tx-hold`: resolves once the child holds the session's lock (it has appended "<tag> start"). */
function holdLock(child: string, file: string, home: string, ms: number, tag: string): Promise<ReturnType<typeof spawn>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, 'tx-hold', file, home, String(ms), tag], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    p.stdout!.setEncoding('utf8').on('data', (c: string) => c.includes('locked') && resolve(p));
    p.on('close', (code) => reject(new Error(`child ended before it held the lock (${code}): ${err}`)));
  });
}

const contents = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => (JSON.parse(l) as { message: { content: string } }).message.content);

test('two processes contending for a session file serialize: the second transaction runs after the first ends', async (t) => {
  const { home, child, file } = await sessionWithChild(t);
  const holder = await holdLock(child, file, home, 400, 'C');
  const exited = new Promise((r) => holder.on('close', r));
  const b = await SessionManager.open(file, { home, deferUntilAssistant: false });
  let sawInside: string[] = [];
  await b.transaction((x) => {
    sawInside = x.getEntries().map((e) => (e as { message: { content: string } }).message.content);
    x.appendMessage({ role: 'user', content: 'P' });
  });
  await b.close();
  await exited;
  assert.deepEqual(sawInside, ['C start', 'C end'], 'the waiting transaction read what the holder wrote');
  assert.deepEqual(contents(file), ['C start', 'C end', 'P']);
});

test('a session lock left by a killed process is taken over at once, not after a timeout', async (t) => {
  const { home, child, file } = await sessionWithChild(t);
  const holder = await holdLock(child, file, home, 60_000, 'K');
  const killed = new Promise((r) => holder.on('close', r));
  holder.kill('SIGKILL');
  await killed;
  assert.ok(existsSync(`${file}.lock`), 'the killed process left its lock');
  const b = await SessionManager.open(file, { home, deferUntilAssistant: false });
  const started = Date.now();
  await b.transaction((x) => x.appendMessage({ role: 'user', content: 'after the crash' }));
  assert.ok(Date.now() - started < 2_000, `waited ${Date.now() - started} ms for a dead owner`);
  await b.close();
  assert.deepEqual(contents(file), ['K start', 'after the crash']);
  assert.equal(existsSync(`${file}.lock`), false);
});
