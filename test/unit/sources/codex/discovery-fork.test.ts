// Finding a workspace's rollouts cheaply, and the fork writer (never touching the original).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { discoverCodexSessions, readCodexSession, uuidV7, writeCodexFork } from '../../../../src/core/sources/codex';
import { CodexSource } from '../../../../src/core/sources/codex/codex-source';
import { uuidV7Ms } from '../../../../src/core/sources/codex/lines';
import { Rollout } from './builder';

const sha = async (f: string) =>
  createHash('sha256')
    .update(await readFile(f))
    .digest('hex');

describe('Codex discovery', () => {
  let dir: string;
  let home: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-disc-'));
    home = join(dir, 'codexhome');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('lists dated, archived and legacy flat rollouts by cwd (inside the folder too), titled', async () => {
    new Rollout('01a20aad-0000-7000-8000-00000000000a', '/w/proj').turn('dated prompt').say('x').end().write(home);
    new Rollout('01a20aad-0000-7000-8000-00000000000b', '/w/proj/sub').turn('in a subfolder').end().write(home, '2026/10/01');
    new Rollout('01a20aad-0000-7000-8000-00000000000c', '/w/projector').turn('other folder').end().write(home);
    const archived = new Rollout('01a20aad-0000-7000-8000-00000000000d', '/w/proj').turn('archived one').end();
    await mkdir(join(home, 'archived_sessions'), { recursive: true });
    await writeFile(join(home, 'archived_sessions', `rollout-2026-01-01T00-00-00-${archived.threadId}.jsonl`), archived.toString());
    const flat = new Rollout('01a20aad-0000-7000-8000-00000000000e', '/w/proj').turn('legacy flat').end();
    await writeFile(join(home, 'sessions', `rollout-${flat.threadId}.jsonl`), flat.toString());
    await writeFile(
      join(home, 'session_index.jsonl'),
      `{"id":"${archived.threadId}","thread_name":"old name"}\n{"id":"${archived.threadId}","thread_name":"Renamed"}\ngarbage\n`,
    );
    await writeFile(join(home, 'sessions', 'rollout-garbage.jsonl'), '\u0000\u0001 not json\n');
    const found = await discoverCodexSessions({ workspaceRoots: ['/w/proj'], home });
    assert.deepEqual(found.map((f) => f.title).sort(), ['Renamed', 'dated prompt', 'in a subfolder', 'legacy flat']);
    assert.ok(found.every((f) => f.cwd.startsWith('/w/proj')));
  });

  it('finds the cwd of a session_meta line longer than the listing prefix', async () => {
    const r = new Rollout('01a20aad-0000-7000-8000-0000000000ff', '/w/big', { base_instructions: 'x'.repeat(300_000) }).turn('big meta').end();
    r.write(home);
    const found = await discoverCodexSessions({ workspaceRoots: ['/w/big'], home });
    assert.equal(found.length, 1);
    assert.equal(found[0]!.sessionId, r.threadId);
  });

  it('the adapter finds a session by id or prefix and owns rollouts', async () => {
    const src = new CodexSource({ home });
    const files = await src.findById('01a20aad-0000-7000-8000-00000000000a');
    assert.equal(files.length, 1);
    assert.equal((await src.findById('01a20aad-0000-7000-8000-00000000000')).length >= 4, true);
    assert.ok(src.owns(files[0]!, undefined));
    assert.ok(src.owns('/elsewhere/x.jsonl', JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'x' } })));
    assert.ok(!src.owns('/elsewhere/x.jsonl', JSON.stringify({ type: 'session', id: 'x' })));
    // the first line as readFirstLine gives it: cut short, with 0.169's ordinal
    assert.ok(
      src.owns(
        '/elsewhere/x.jsonl',
        '{"timestamp":"2026-11-23T23:25:16.683Z","ordinal":0,"type":"session_meta","payload":{"account_scoped":true,"base_instructions":"You are',
      ),
    );
    assert.equal(
      (await src.list({ settings: {} as never, workspaceRoots: ['/w/proj'], warn: () => {} })).every((l) => l.source === 'codex'),
      true,
    );
  });
});

describe('Codex fork writer', () => {
  let dir: string;
  let home: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-fork-'));
    home = join(dir, 'codexhome');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('makes UUIDv7 ids', () => {
    const id = uuidV7(Date.parse('2026-11-23T23:11:36.696Z'));
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(uuidV7Ms(id), Date.parse('2026-11-23T23:11:36.696Z'));
  });

  it("writes a new rollout in today's folder, history up to just before the prompt, the original unchanged", async () => {
    const r = new Rollout().turn('one', 't1').say('r1').end().turn('two', 't2').say('r2').end().turn('three', 't3').say('r3').end();
    const file = r.write(home);
    const hash = await sha(file);
    const s = await readCodexSession(file, { home });
    const p2 = s.userPrompts()[1]!;
    const now = new Date('2026-12-01T08:09:10.000Z');
    const fork = await writeCodexFork(s, p2.entryId, { home, now });
    assert.equal(await sha(file), hash);
    assert.equal(dirname(fork.sessionRef), join(home, 'sessions', '2026', '12', '01'));
    assert.equal(basename(fork.sessionRef), `rollout-2026-12-01T08-09-10-${fork.sessionId}.jsonl`);
    assert.equal(uuidV7Ms(fork.sessionId), now.getTime());
    const lines = (await readFile(fork.sessionRef, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].type, 'session_meta');
    assert.equal(lines[0].payload.id, fork.sessionId);
    assert.equal(lines[0].payload.forked_from_id, r.threadId);
    assert.ok(!lines.some((l) => l.payload?.turn_id === 't2'), "nothing of the prompt's turn is copied");
    const f = await readCodexSession(fork.sessionRef, { home });
    assert.deepEqual(
      f.getPath().map((e) => (e as { message: { content: { text: string }[] } }).message.content[0]!.text),
      ['one', 'r1'],
    );
    assert.equal(f.forkedFrom?.sessionId, r.threadId);
    assert.equal(f.forkedFrom?.sessionRef, file);
    // Named as the fork it is (its first prompt is its origin's), in the listing too, linked to its origin.
    assert.equal(f.title, 'Fork: one');
    const listed = (await new CodexSource({ home }).list({ workspaceRoots: [r.cwd] } as unknown as Parameters<CodexSource['list']>[0])).find(
      (l) => l.sessionId === fork.sessionId,
    );
    assert.equal(listed?.title, 'Fork: one');
    assert.deepEqual(listed?.fork, { originSessionId: r.threadId });
    assert.ok(f.getPath().every((e) => f.isInherited(e.id)));
    // nothing else left behind (no temp files)
    assert.deepEqual(
      (await readdir(dirname(fork.sessionRef))).filter((n) => n.startsWith('.')),
      [],
    );
  });

  it('refuses the first prompt and non-prompts, and never replaces an existing file', async () => {
    const r = new Rollout('01a20aad-0000-7000-8000-0000000000f1').turn('one', 't1').say('r1').end().turn('two', 't2').end();
    const file = r.write(home);
    const s = await readCodexSession(file, { home });
    await assert.rejects(writeCodexFork(s, s.userPrompts()[0]!.entryId, { home }), /first prompt/);
    await assert.rejects(writeCodexFork(s, s.getPath()[1]!.id, { home }), /not a user prompt/);
    await assert.rejects(
      writeCodexFork(s, s.userPrompts()[1]!.entryId, { home, sessionId: r.threadId, now: new Date('2026-11-23T10:00:00Z') }),
      /already exists/,
    );
  });

  it('forks a prompt of an abandoned (rolled back) branch with the history Codex had then', async () => {
    const r = new Rollout('01a20aad-0000-7000-8000-0000000000f2')
      .turn('one', 't1')
      .say('r1')
      .end()
      .turn('two', 't2')
      .say('r2')
      .end()
      .turn('three', 't3')
      .say('r3')
      .end();
    r.rollback(2).turn('two again', 't4').say('r2b').end();
    const file = r.write(home);
    const s = await readCodexSession(file, { home });
    const three = s.userPrompts().find((p) => p.text === 'three')!;
    const fork = await writeCodexFork(s, three.entryId, { home });
    const f = await readCodexSession(fork.sessionRef, { home });
    assert.deepEqual(
      f.buildSessionContext().messages.map((m) => (m.content as { text: string }[])[0]!.text),
      ['one', 'r1', 'two', 'r2'],
    );
  });
});
