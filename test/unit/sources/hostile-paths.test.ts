// Readers never leave the agent's folders and never block. A session file can name other files: a Claude Code fork's
// `forkedFrom.sessionId`, a Codex `rollout_reference.rollout_path`. An id is used only as an id (never `../../x`), a
// path only when it resolves inside the agent's folder, and every file is opened without blocking and read only when
// it is a regular file: a FIFO (outside or inside the folder, in place of a transcript, a subagent file, a fork's
// origin, Codex's session index or our prompt records) would otherwise hang every reader. A guard opens each FIFO for
// writing after 5 s, so a reader that blocks fails the test instead of hanging it; a regular decoy outside the folder
// has its access time primed, so reading it would show.
import assert from 'node:assert/strict';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { discoverClaudeSessions, readClaudeSession } from '../../../src/core/sources/claude';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { readCodexSession } from '../../../src/core/sources/codex';
import { promptRecordsFile } from '../../../src/core/sources/claude/prompt-records';
import { guardFifo, makeFifo, primeAtime, type FifoGuard } from '../../support/fifo-guard';
import { readSessionSummary } from '../../../src/core/sources/pi/discovery';
import { SessionManager } from '../../../src/core/session/session-manager';
import { FileSessionStorage } from '../../../src/core/session/storage';
import { tempDir } from '../session/helpers';
import { Transcript } from './claude/builder';
import { Rollout } from './codex/builder';

const ORIGIN = '11111111-2222-4333-8444-555555555555';
const FORK = '66666666-2222-4333-8444-555555555555';

function guarded(t: { after(fn: () => void): void }, path: string): FifoGuard {
  makeFifo(path);
  const g = guardFifo(path);
  t.after(() => g.dispose());
  return g;
}

/** A fork transcript whose lines name `origin` as forkedFrom.sessionId. */
function forkNaming(origin: string): Transcript {
  const f = new Transcript(FORK);
  const p = f.user(null, 'q1', { forkedFrom: { sessionId: origin, messageUuid: 'x' } });
  f.text(p, 'msg_1', 'a1', { forkedFrom: { sessionId: origin, messageUuid: 'y' } });
  return f;
}

test('Claude Code: forkedFrom.sessionId "../../../x" is not a session id: nothing outside the folder is opened or read', async (t) => {
  const root = tempDir(t, 'ar-hostile-');
  const configDir = join(root, 'config');
  // from <config>/projects/-work-proj, ../../../x.jsonl is <root>/x.jsonl: a FIFO, and beside it a readable decoy
  const fifo = guarded(t, join(root, 'x.jsonl'));
  const decoy = join(root, 'y.jsonl');
  const o = new Transcript(ORIGIN);
  o.user(null, 'the decoy');
  writeFileSync(decoy, o.toString());
  const old = primeAtime(decoy);

  const viaFifo = forkNaming('../../../x').write(configDir);
  const s = await readClaudeSession(viaFifo);
  assert.equal(s.forkedFrom?.sessionRef, undefined, 'no origin file outside the project folder');
  const source = new ClaudeSource({ configDirs: [configDir], home: join(root, 'home') });
  t.after(() => source.dispose());
  await source.open(viaFifo);
  const viaDecoy = forkNaming('../../../y');
  const other = viaDecoy.write(configDir, '-work-other');
  await source.open(other);
  assert.equal((await readClaudeSession(other)).forkedFrom?.sessionRef, undefined);
  assert.equal(fifo.fired(), false, 'a reader blocked on the FIFO outside the folder');
  assert.equal(statSync(decoy).atimeMs, old, 'the decoy outside the folder was read');
});

test('Claude Code: a FIFO in place of a transcript, a fork origin, a subagent file or the prompt records blocks nothing', async (t) => {
  const root = tempDir(t, 'ar-hostile-');
  const configDir = join(root, 'config');
  const home = join(root, 'home');
  const project = join(configDir, 'projects', '-work-proj');
  mkdirSync(project, { recursive: true });
  const fifos = [
    guarded(t, join(project, `${ORIGIN}.jsonl`)), // the origin a fork names by a valid id
    guarded(t, join(project, 'agent-a1.jsonl')), // an old-layout subagent file beside the session
  ];
  mkdirSync(join(project, FORK, 'subagents'), { recursive: true });
  fifos.push(guarded(t, join(project, FORK, 'subagents', 'agent-a2.jsonl')));
  mkdirSync(join(home, 'claude', 'prompts'), { recursive: true });
  fifos.push(guarded(t, promptRecordsFile(home, FORK)));
  const transcriptFifo = join(project, '77777777-2222-4333-8444-555555555555.jsonl');
  fifos.push(guarded(t, transcriptFifo));

  const fork = forkNaming(ORIGIN).write(configDir);
  const source = new ClaudeSource({ configDirs: [configDir], home });
  t.after(() => source.dispose());
  const s = await source.open(fork);
  assert.equal(s.getPath().length, 2);
  await assert.rejects(readClaudeSession(transcriptFifo), /not a regular file/);
  await assert.rejects(source.open(transcriptFifo));
  const listed = await discoverClaudeSessions({ workspaceRoots: ['/work/proj'], configDirs: [configDir] });
  assert.deepEqual(
    listed.map((l) => l.sessionId),
    [FORK],
  );
  assert.deepEqual(
    fifos.map((f) => f.fired()),
    fifos.map(() => false),
    'a reader blocked on a FIFO',
  );
});

test('Codex: a rollout_reference whose rollout_path leaves CODEX_HOME is not followed; FIFOs block nothing', async (t) => {
  const root = tempDir(t, 'ar-hostile-');
  const home = join(root, 'codexhome');
  const outsideFifo = guarded(t, join(root, 'parent.jsonl'));
  const decoy = join(root, 'decoy.jsonl');
  writeFileSync(decoy, new Rollout('01a20aad-def5-7222-afbb-000000000001').turn('decoy prompt').say('decoy').end().toString());
  const old = primeAtime(decoy);
  mkdirSync(home, { recursive: true });
  const indexFifo = guarded(t, join(home, 'session_index.jsonl'));

  for (const [i, path] of [join(root, 'parent.jsonl'), decoy, '../parent.jsonl', `../${'decoy.jsonl'}`].entries()) {
    const r = new Rollout(`01a20aad-def5-7222-afbb-00000000001${i}`);
    r.push('rollout_reference', { rollout_path: path, nth_user_message: 1, max_depth: 4 });
    r.turn('own prompt').say('own reply').end();
    const s = await readCodexSession(r.write(home), { home });
    assert.deepEqual(
      s.userPrompts().map((p) => p.text),
      ['own prompt'],
      `${path}: nothing from outside CODEX_HOME`,
    );
  }
  const rolloutFifo = join(home, 'sessions', '2026', '11', '23', 'rollout-2026-11-23T10-00-00-01a20aad-def5-7222-afbb-0000000000ff.jsonl');
  const inHome = guarded(t, rolloutFifo);
  await assert.rejects(readCodexSession(rolloutFifo, { home }), /not a regular file/);
  assert.equal(outsideFifo.fired(), false, 'a reader blocked on the FIFO outside CODEX_HOME');
  assert.equal(indexFifo.fired(), false, 'a reader blocked on session_index.jsonl');
  assert.equal(inHome.fired(), false, 'a reader blocked on a FIFO rollout');
  assert.equal(statSync(decoy).atimeMs, old, 'the decoy outside CODEX_HOME was read');
});

test('ours and pi: a FIFO named like a session file blocks neither reading it nor listing its folder', async (t) => {
  const root = tempDir(t, 'ar-hostile-');
  const fifo = join(root, 'fifo.jsonl');
  const guard = guarded(t, fifo);
  const storage = new FileSessionStorage();
  await assert.rejects(storage.readText(fifo), /not a regular file/);
  await assert.rejects(storage.readTextPrefix(fifo, 4096), /not a regular file/);
  await assert.rejects(SessionManager.open(fifo, { home: root }));
  assert.equal(await readSessionSummary(fifo, 'agent-rewind').catch(() => undefined), undefined);
  assert.equal(guard.fired(), false, 'a reader blocked on the FIFO');
});
