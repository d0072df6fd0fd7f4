// Codex 0.169's TUI backtrack: the thread continues in a new segment file (`rollout-<time>-<thread>_<segment>.jsonl`)
// whose session_meta.history_base names the segment and byte offset its history continues from. The abandoned turns
// are branches, the thread is listed once (its newest segment), and a fork at any of its prompts has the right history.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deriveBranches } from '../../../../src/core/branches/derive';
import { contentText } from '../../../../src/core/transcript/transcript';
import type { AgentMessage, MessageEntry, SessionEntry } from '../../../../src/core/session/types';
import { discoverCodexSessions, readCodexSession, writeCodexFork } from '../../../../src/core/sources/codex';
import { CodexSource } from '../../../../src/core/sources/codex/codex-source';
import { Rollout } from './builder';

const THREAD = '01a20abe-6ee7-7c31-b40d-db80ea8ae903';
const SEG_B = '01a20abe-dc46-7e91-bec7-355484253151';
const SEG_C = '01a20abf-5acf-7a41-921d-327d8fed4613';
const texts = (path: readonly SessionEntry[]) => path.map((e) => contentText(((e as MessageEntry).message as AgentMessage).content));

describe('Codex backtrack segments', () => {
  let dir: string;
  let home: string;
  let fileC: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-seg-'));
    home = join(dir, 'codexhome');
    // A: the first file; backtracked to before its first prompt, so B starts afresh (no history_base)
    const a = new Rollout(THREAD, '/w/p').turn('alpha').say('r0').end().turn('beta').say('r2').end();
    const fa = a.write(home, '2026/11/23', { time: '10-00-00' });
    const b = new Rollout(THREAD, '/w/p').turn('alpha v2').say('r6').end();
    const cutB = b.lines.length;
    b.turn('delta').say('r8').end().turn('epsilon').say('r10').end();
    const fb = b.write(home, '2026/11/23', { segmentId: SEG_B, time: '10-05-00' });
    // C continues B after its first turn
    const c = new Rollout(THREAD, '/w/p', { history_base: { thread_id: SEG_B, end_ordinal_exclusive: cutB, end_byte_offset: b.bytesOfLines(cutB) } });
    c.turn('delta v2').say('r12').end();
    fileC = c.write(home, '2026/11/23', { segmentId: SEG_C, time: '10-09-00' });
    await utimes(fa, new Date('2026-11-23T10:00:30Z'), new Date('2026-11-23T10:00:30Z'));
    await utimes(fb, new Date('2026-11-23T10:06:00Z'), new Date('2026-11-23T10:06:00Z'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('lists the thread once, by its newest segment; findById gives that segment', async () => {
    const found = await discoverCodexSessions({ workspaceRoots: ['/w/p'], home });
    assert.deepEqual(
      found.map((f) => [f.sessionId, f.sessionRef]),
      [[THREAD, fileC]],
    );
    assert.deepEqual(await new CodexSource({ home }).findById(THREAD.slice(0, 8)), [fileC]);
  });

  it("replays the segments: the active path continues B's prefix, B's later turns and A are abandoned branches", async () => {
    const s = await readCodexSession(fileC, { home });
    assert.deepEqual(texts(s.getPath()), ['alpha v2', 'r6', 'delta v2', 'r12']);
    const branches = deriveBranches(s.getEntries(), s.getLeafId(), { sessionId: s.sessionId, sessionCreatedAt: 0, warn: () => {} }).branches;
    const others = branches.filter((b) => !b.isActive).map((b) => texts(s.getPath(b.leafId)).join(' '));
    assert.deepEqual(others.sort(), ['alpha r0 beta r2', 'alpha v2 r6 delta r8 epsilon r10']);
    assert.deepEqual(texts(s.buildSessionContext().messages.map((m) => ({ type: 'message', message: m }) as unknown as SessionEntry)), [
      'alpha v2',
      'r6',
      'delta v2',
      'r12',
    ]);
    assert.equal(s.title, 'alpha v2');
    assert.equal(s.userPrompts().length, 6);
    assert.ok(s.userPrompts().every((p) => s.checkpointKeysOf(p.entryId).length === 1));
  });

  it('forks at a prompt of an abandoned segment with the history Codex had then, and at the newest one across segments', async () => {
    const s = await readCodexSession(fileC, { home });
    const epsilon = s.userPrompts().find((p) => p.text === 'epsilon')!;
    const f1 = await writeCodexFork(s, epsilon.entryId, { home });
    assert.deepEqual(texts((await readCodexSession(f1.sessionRef, { home })).getPath()), ['alpha v2', 'r6', 'delta', 'r8']);
    const meta = JSON.parse((await readFile(f1.sessionRef, 'utf8')).split('\n')[0]!).payload;
    assert.equal(meta.history_base, undefined);
    assert.equal(meta.forked_from_id, THREAD);

    const deltaV2 = s.userPrompts().find((p) => p.text === 'delta v2')!;
    const f2 = await writeCodexFork(s, deltaV2.entryId, { home });
    assert.deepEqual(texts((await readCodexSession(f2.sessionRef, { home })).getPath()), ['alpha v2', 'r6']);

    const beta = s.userPrompts().find((p) => p.text === 'beta')!;
    const f3 = await writeCodexFork(s, beta.entryId, { home });
    assert.deepEqual(texts((await readCodexSession(f3.sessionRef, { home })).getPath()), ['alpha', 'r0']);
  });
});
