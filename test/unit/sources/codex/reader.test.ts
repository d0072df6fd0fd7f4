// Reading rules of the Codex rollout reader, each on a small synthetic rollout.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deriveBranches } from '../../../../src/core/branches/derive';
import { contentText } from '../../../../src/core/transcript/transcript';
import type { AgentMessage, MessageEntry, SessionEntry } from '../../../../src/core/session/types';
import { readCodexSession } from '../../../../src/core/sources/codex';
import { Rollout } from './builder';

const msg = (e: SessionEntry | undefined) => (e as MessageEntry).message as AgentMessage;
const texts = (path: readonly SessionEntry[]) =>
  path.map((e) =>
    e.type === 'compaction' ? `[compaction] ${(e as { summary: string }).summary}` : `${msg(e).role}: ${contentText(msg(e).content, { toolCalls: true })}`,
  );

describe('Codex reader', () => {
  let dir: string;
  let home: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-reader-'));
    home = join(dir, 'codexhome');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const read = async (r: Rollout) => readCodexSession(r.write(home), { home });

  it('shows prompts and replies once: injected, developer and event_msg copies hidden', async () => {
    const r = new Rollout().turn('fix the parser').say('Fixed.').end();
    const s = await read(r);
    assert.deepEqual(texts(s.getPath()), ['user: fix the parser', 'assistant: Fixed.']);
    assert.equal(s.title, 'fix the parser');
    assert.equal(s.source, 'codex');
    assert.equal(s.cwd, '/work/proj');
    assert.deepEqual(s.getLoadReport().skipped, []);
  });

  it('pairs function calls and apply_patch custom calls with their outputs by call_id, with the changes shown', async () => {
    const r = new Rollout().turn('do it');
    let shellId = '';
    r.shell('rm a.txt', 'removed', (id) => (shellId = id));
    r.patch('*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch\n', { '/work/proj/b.txt': { type: 'add', content: 'hi\n' } });
    r.patch(
      '*** Begin Patch\n*** Update File: c.txt\n*** End Patch\n',
      { 'c.txt': { update: { unified_diff: '@@ -1 +1 @@\n-a\n+b', move_path: 'd.txt' } } },
      'patch_apply_end',
    );
    r.say('done').end();
    const s = await read(r);
    const path = s.getPath();
    const call = msg(path[1]).content as { type: string; id: string; name: string; arguments: unknown }[];
    assert.deepEqual(call[0], { type: 'toolCall', id: shellId, name: 'exec_command', arguments: { cmd: 'rm a.txt' } });
    assert.equal(msg(path[2]).role, 'toolResult');
    assert.equal(msg(path[2]).toolCallId, shellId);
    assert.equal(msg(path[2]).toolName, 'exec_command');
    assert.equal(msg(path[3]).content && (msg(path[3]).content as { name: string }[])[0]!.name, 'apply_patch');
    assert.match(contentText(msg(path[4]).content), /Success\.\n\nFiles changed:\nA \/work\/proj\/b\.txt/);
    assert.equal(msg(path[4]).toolName, 'apply_patch');
    assert.match(contentText(msg(path[6]).content), /R c\.txt → d\.txt\n@@ -1 \+1 @@/);
  });

  it('keys each prompt by its turn id (what the hooks get)', async () => {
    const r = new Rollout().turn('one', 'turn-a').say('1').end().turn('two', 'turn-b').say('2').end();
    const s = await read(r);
    const prompts = s.userPrompts();
    assert.deepEqual(
      prompts.map((p) => s.checkpointKeysOf(p.entryId)),
      [['turn-a'], ['turn-b']],
    );
    assert.deepEqual(s.checkpointKeysOf(s.getLeafId()!), []);
  });

  it('uses the newest compacted replacement_history as the base (what Codex sends)', async () => {
    const r = new Rollout().turn('old one').say('old reply').end().turn('old two').say('old reply 2').end();
    r.push('compacted', {
      message: 'SUMMARY',
      replacement_history: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old two' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'SUMMARY' }] },
      ],
    });
    r.turn('after compaction').say('ok').end();
    const s = await read(r);
    const ctx = s.buildSessionContext();
    assert.deepEqual(
      ctx.messages.map((m) => `${m.role}: ${contentText(m.content)}`.slice(0, 40)),
      [`compactionSummary: ${contentText(ctx.messages[0]!.content)}`.slice(0, 40), 'user: old two', 'user: after compaction', 'assistant: ok'],
    );
    assert.match(JSON.stringify(ctx.messages[0]), /SUMMARY/);
    // the full path still shows what came before, for the tree
    assert.equal(texts(s.getPath())[0], 'user: old one');
  });

  it('rebuilds a legacy compaction (summary only) from the recent prompts plus the summary, as Codex does', async () => {
    const r = new Rollout().turn('old one').say('old reply').end().turn('old two').say('old reply 2').end();
    r.push('compacted', { message: 'LEGACY SUMMARY' });
    r.turn('after').say('ok').end();
    const s = await read(r);
    const messages = s.buildSessionContext().messages;
    const ctx = messages.map((m) => `${m.role}: ${contentText(m.content)}`);
    assert.match(JSON.stringify(messages[0]), /LEGACY SUMMARY/);
    assert.deepEqual(ctx.slice(1), ['user: old one', 'user: old two', 'user: after', 'assistant: ok']);
    // the copies are history, not prompts of their own
    assert.deepEqual(
      s.userPrompts().map((p) => p.text),
      ['old one', 'old two', 'after'],
    );
  });

  it('turns a rollback into an abandoned branch off the last surviving turn; later turns continue the active one', async () => {
    const r = new Rollout().turn('one').say('r1').end().turn('two').say('r2').end().turn('three').say('r3').end();
    r.rollback(2).turn('two again').say('r2b').end();
    const s = await read(r);
    assert.deepEqual(texts(s.getPath()), ['user: one', 'assistant: r1', 'user: two again', 'assistant: r2b']);
    assert.deepEqual(texts(s.buildSessionContext().messages.map((m) => ({ type: 'message', message: m }) as unknown as SessionEntry)), [
      'user: one',
      'assistant: r1',
      'user: two again',
      'assistant: r2b',
    ]);
    const branches = deriveBranches(s.getEntries(), s.getLeafId(), { sessionId: s.sessionId, sessionCreatedAt: 0, warn: () => {} }).branches;
    assert.deepEqual(branches.map((b) => b.name).sort(), ['main', `tip-${branches.find((b) => !b.isActive)!.leafId}`].sort());
    const abandoned = branches.find((b) => !b.isActive)!;
    assert.deepEqual(texts(s.getPath(abandoned.leafId)), ['user: one', 'assistant: r1', 'user: two', 'assistant: r2', 'user: three', 'assistant: r3']);
  });

  it('ids stay the same when the file grows', async () => {
    const r = new Rollout().turn('one').say('r1').end();
    const file = r.write(home);
    const before1 = (await readCodexSession(file, { home })).getEntries().map((e) => e.id);
    r.turn('two').say('r2').end();
    await writeFile(file, r.toString());
    const after1 = (await readCodexSession(file, { home })).getEntries().map((e) => e.id);
    assert.deepEqual(after1.slice(0, before1.length), before1);
    assert.ok(after1.length > before1.length);
  });

  it('is lenient: bad lines reported, a torn last line ignored, unknown types and garbage payloads skipped', async () => {
    const r = new Rollout().turn('one');
    r.raw('{not json').raw('[1,2]').raw('"str"');
    r.push('world_state', { full: true })
      .push('something_new', { x: 1 })
      .push('response_item', null as unknown as Record<string, unknown>);
    r.push('response_item', { type: 'function_call_output', call_id: 'nobody', output: { content: { content: { content: 7 } } } });
    r.push('event_msg', { type: 'thread_rolled_back', num_turns: 'many' }).push('compacted', { message: 5, replacement_history: 'x' });
    r.say('still here');
    const file = r.write(home);
    await writeFile(file, (await readFile(file, 'utf8')) + '{"timestamp":"2026-11-23T11:00:00Z","type":"respo');
    const s = await readCodexSession(file, { home });
    assert.deepEqual(
      s.getLoadReport().skipped.map((x) => x.line),
      [8, 9, 10],
    );
    assert.ok(texts(s.getPath()).includes('assistant: still here'));
  });

  it('reads a deep rollout (many turns, deeply nested JSON) without recursion', async () => {
    const r = new Rollout();
    for (let i = 0; i < 3000; i++) r.turn(`p${i}`).say(`r${i}`).end();
    let nested: unknown = 'x';
    for (let i = 0; i < 2000; i++) nested = { content: nested };
    r.push('response_item', { type: 'function_call_output', call_id: 'deep', output: nested });
    const s = await read(r);
    assert.equal(s.getPath().length, 6001);
  });

  it('links a fork made by forked_from_id to its origin and marks the copied history inherited', async () => {
    const parentId = '01a20aad-1111-7000-8000-000000000001';
    const parent = new Rollout(parentId).turn('one', '01a20aad-0001-7000-8000-000000000001').say('r1').end();
    const parentFile = parent.write(home);
    const fork = new Rollout('01a20aae-2222-7000-8000-000000000002', '/work/proj', { forked_from_id: parentId });
    fork.turn('one', '01a20aad-0001-7000-8000-000000000001').say('r1').end().turn('fork prompt', '01a20aaf-0002-7000-8000-000000000002').say('f').end();
    const s = await read(fork);
    assert.equal(s.forkedFrom?.sessionId, parentId);
    assert.equal(s.forkedFrom?.sessionRef, parentFile);
    const path = s.getPath();
    assert.deepEqual(
      path.map((e) => s.isInherited(e.id)),
      [true, true, false, false],
    );
    assert.equal(s.forkedFrom?.entryId, path[1]!.id);
  });

  it('follows a rollout_reference to the parent, cut before its nth user message', async () => {
    const parentId = '01a20aad-3333-7000-8000-000000000003';
    const parent = new Rollout(parentId).turn('p one').say('r1').end().turn('p two').say('r2').end();
    const parentFile = parent.write(home);
    const child = new Rollout('01a20aae-4444-7000-8000-000000000004');
    child.push('rollout_reference', { rollout_path: parentFile, thread_id: parentId, nth_user_message: 1, max_depth: 3 });
    child.turn('child prompt').say('c').end();
    const s = await read(child);
    assert.deepEqual(texts(s.getPath()), ['user: p one', 'assistant: r1', 'user: child prompt', 'assistant: c']);
    assert.equal(s.forkedFrom?.sessionId, parentId);
    assert.deepEqual(
      s.getPath().map((e) => s.isInherited(e.id)),
      [true, true, false, false],
    );
  });

  it('a self-referencing rollout_reference stops (no loop)', async () => {
    const id = '01a20aae-5555-7000-8000-000000000005';
    const r = new Rollout(id);
    const file = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T10-00-00-${id}.jsonl`);
    r.push('rollout_reference', { rollout_path: file, thread_id: id, max_depth: 50 });
    r.turn('me').say('x').end();
    const s = await read(r);
    assert.ok(texts(s.getPath()).includes('user: me'));
  });

  it('takes the title from thread_name_updated', async () => {
    const r = new Rollout().turn('first').event({ type: 'thread_name_updated', thread_name: 'Parser work' }).say('x').end();
    assert.equal((await read(r)).title, 'Parser work');
  });
});
