import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { findMostRecentSession, findSessionFilesById, listAllSessions, listSessions, readSessionSummary } from '../../../src/core/sources/pi/discovery';
import { encodeCwd, sessionDirFor } from '../../../src/core/session/paths';
import { SessionManager } from '../../../src/core/session/session-manager';
import { PI_FIXTURES, tempDir } from './helpers';

test('encodeCwd strips the leading slash and replaces / \\ : with -', () => {
  assert.equal(encodeCwd('/home/will/projects/x'), 'home-will-projects-x');
  assert.equal(encodeCwd('C:\\Users\\me\\proj'), 'C--Users-me-proj');
  assert.equal(encodeCwd('\\\\server\\share'), '-server-share');
});

test('lists our sessions, pi and oh-my-pi sessions of one folder, newest first, from the first 4 KiB plus stat', async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'home');
  const piRoot = join(dir, 'pi');
  const ompRoot = join(dir, 'omp');
  const cwd = '/home/will/projects/test-project';
  const opts = { home, piRoot, ompRoot };

  const ours = SessionManager.create(cwd, { home, title: 'Ours', deferUntilAssistant: false });
  ours.appendMessage({ role: 'user', content: 'q' });
  ours.appendMessage({ role: 'assistant', content: 'a', provider: 'p', model: 'm' });
  await ours.close();
  const other = SessionManager.create('/elsewhere', { home, deferUntilAssistant: false });
  await other.close();

  const piDir = sessionDirFor(piRoot, cwd);
  mkdirSync(piDir, { recursive: true });
  const piFile = join(piDir, '2026-01-25T10-00-00-000Z_a1b2c3d4-e5f6-7890-abcd-ef1234567890.jsonl');
  copyFileSync(join(PI_FIXTURES, 'simple-session.v3.jsonl'), piFile);
  utimesSync(piFile, new Date('2026-01-01'), new Date('2026-01-01'));
  const ompDir = sessionDirFor(ompRoot, cwd);
  mkdirSync(ompDir, { recursive: true });
  const ompFile = join(ompDir, '2026-01-26T10-00-00-000Z_omp-1.jsonl');
  writeFileSync(
    ompFile,
    '{"type":"title","title":"From the title line"}\n{"type":"session","version":3,"id":"omp-1","timestamp":"2026-01-26T10:00:00.000Z","cwd":"/home/will/projects/test-project"}\n{"type":"session_info","id":"00000001","parentId":null,"timestamp":"t","name":"named"}\n',
  );
  utimesSync(ompFile, new Date('2025-06-01'), new Date('2025-06-01'));
  const broken = join(ompDir, 'garbage.jsonl');
  writeFileSync(broken, 'not a session');
  utimesSync(broken, new Date('2025-01-01'), new Date('2025-01-01'));
  writeFileSync(join(ompDir, 'notes.txt'), 'ignored');
  symlinkSync(piFile, join(ompDir, 'link.jsonl'));

  const list = await listSessions(cwd, opts);
  assert.deepEqual(
    list.map((s) => [s.source, s.id, s.title, s.entryCount]),
    [
      ['agent-rewind', ours.sessionId, 'Ours', 2],
      ['pi', 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', undefined, 6],
      ['omp', 'omp-1', 'From the title line', 1],
      ['omp', 'garbage', undefined, 1],
    ],
  );
  assert.equal(list[3]!.problem, 'no valid session header in the first 4 KiB');
  assert.equal(list[0]!.cwd, cwd);
  assert.equal(list[1]!.created, '2026-01-25T10:00:00.000Z');
  assert.equal(list[1]!.modified, '2026-01-01T00:00:00.000Z');
  assert.equal(list[0]!.file, ours.sessionFile);

  assert.equal((await findMostRecentSession(cwd, opts))!.id, ours.sessionId);
  assert.deepEqual(
    (await listSessions(cwd, { ...opts, sources: ['pi'] })).map((s) => s.source),
    ['pi'],
  );
  const all = await listAllSessions(opts);
  assert.equal(all.length, 5);
  assert.ok(all.some((s) => s.id === other.sessionId && s.cwd === '/elsewhere'));

  // pi sessions open in place
  const piSession = await SessionManager.open(list[1]!.file, { home });
  assert.equal(piSession.buildSessionContext().messages.length, 6);
});

test('the session id is found in <home>/sessions by full id or unique prefix', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/x', { home, deferUntilAssistant: false });
  await s.close();
  assert.deepEqual(findSessionFilesById(s.sessionId, { home }), [s.sessionFile]);
  assert.deepEqual(findSessionFilesById(s.sessionId.slice(0, 13), { home }), [s.sessionFile]);
  assert.deepEqual(findSessionFilesById('nope', { home }), []);
});

test('metadata reads only the prefix: a header longer than 4 KiB is reported as a problem, not parsed', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'big.jsonl');
  writeFileSync(file, JSON.stringify({ type: 'session', version: 3, id: 'big', timestamp: 't', cwd: '/', pad: 'x'.repeat(5000) }) + '\n');
  const s = await readSessionSummary(file, 'agent-rewind');
  assert.equal(s!.problem, 'no valid session header in the first 4 KiB');
});
