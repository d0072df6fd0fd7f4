import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeConfigDirs, discoverClaudeSessions, isClaudeTranscriptFile, looksLikeClaudeTranscript } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

test('claudeConfigDirs: CLAUDE_CONFIG_DIR (comma-separated) wins; else the default folders that exist', (ctx) => {
  const home = tempConfigDir(ctx);
  assert.deepEqual(claudeConfigDirs({ CLAUDE_CONFIG_DIR: '/a, ~/b,,/a' }, home), ['/a', join(home, 'b')]);
  assert.deepEqual(claudeConfigDirs({}, home), []);
  mkdirSync(join(home, '.config', 'claude'), { recursive: true });
  assert.deepEqual(claudeConfigDirs({}, home), [join(home, '.config', 'claude')]);
  mkdirSync(join(home, '.claude'));
  assert.deepEqual(claudeConfigDirs({}, home), [join(home, '.claude'), join(home, '.config', 'claude')]);
});

test('discovery: by the cwd in the lines (not the folder name), titles from the tail, agents and subagent files left out', async (ctx) => {
  const dir = tempConfigDir(ctx);
  const mine = new Transcript('11111111-2222-4333-8444-555555555555', '/work/my-repo/pkg');
  mine.raw({ type: 'queue-operation', operation: 'dequeue', sessionId: mine.sessionId, timestamp: mine.tick() });
  const c = mine.user(null, '<command-name>/init</command-name>');
  let p = mine.user(c, 'first real\nprompt');
  for (let i = 0; i < 400; i++) p = mine.text(p, `m${i}`, 'x'.repeat(500)); // > 128 KiB: the title is only in the tail
  mine.raw({ type: 'custom-title', customTitle: 'My title', sessionId: mine.sessionId });
  // same encoded folder, different cwd (my_repo vs my-repo): must not be attributed to /work/my-repo
  const other = new Transcript('22222222-2222-4333-8444-555555555555', '/work/my_repo');
  other.user(null, 'other');
  const outside = new Transcript('33333333-2222-4333-8444-555555555555', '/work/my-repo-2');
  outside.user(null, 'sibling folder');
  const untitled = new Transcript('44444444-2222-4333-8444-555555555555', '/work/my-repo');
  untitled.user(null, 'plain prompt');
  for (const t of [mine, other, outside, untitled]) t.write(dir, '-work-my-repo');
  const proj = join(dir, 'projects', '-work-my-repo');
  writeFileSync(
    join(proj, 'agent-abc.jsonl'),
    new Transcript(mine.sessionId, '/work/my-repo').toString() +
      JSON.stringify({ type: 'user', uuid: 'x', sessionId: mine.sessionId, cwd: '/work/my-repo', message: { role: 'user', content: 'agent' } }) +
      '\n',
  );
  mkdirSync(join(proj, mine.sessionId, 'subagents'), { recursive: true });
  writeFileSync(join(proj, mine.sessionId, 'subagents', 'agent-def.jsonl'), '{}\n');
  const list = await discoverClaudeSessions({ workspaceRoots: ['/work/my-repo/'], configDirs: [dir, join(dir, 'missing')] });
  assert.deepEqual(list.map((l) => [l.sessionId, l.title, l.cwd]).sort(), [
    ['11111111-2222-4333-8444-555555555555', 'My title', '/work/my-repo/pkg'],
    ['44444444-2222-4333-8444-555555555555', 'plain prompt', '/work/my-repo'],
  ]);
  const m = list.find((l) => l.sessionId.startsWith('1111'))!;
  assert.equal(m.sessionRef, join(proj, `${mine.sessionId}.jsonl`));
  assert.equal(m.createdAt, '2026-01-01T00:00:01.000Z');
  assert.ok(m.modifiedMs > 0);
  assert.equal((await discoverClaudeSessions({ workspaceRoots: [], configDirs: [dir] })).length, 4);
});

test('recognising a transcript given as a path: Claude lines yes, pi/agent-rewind files no', async (ctx) => {
  const sid = '11111111-2222-4333-8444-555555555555';
  assert.equal(looksLikeClaudeTranscript([JSON.stringify({ type: 'queue-operation', operation: 'enqueue', sessionId: sid, timestamp: 't' })]), true);
  assert.equal(looksLikeClaudeTranscript([JSON.stringify({ type: 'summary', summary: 's', leafUuid: 'u' })]), true);
  assert.equal(looksLikeClaudeTranscript([JSON.stringify({ type: 'session', version: 3, id: 'x', cwd: '/', timestamp: 't' })]), false);
  assert.equal(looksLikeClaudeTranscript(['not json', JSON.stringify({ type: 'user', uuid: 'u', sessionId: sid })]), true);
  assert.equal(looksLikeClaudeTranscript([JSON.stringify({ hello: 1 })]), false);
  // a fork written by 2.1.330 starts with bookkeeping lines
  assert.equal(looksLikeClaudeTranscript([JSON.stringify({ type: 'mode', mode: 'normal', sessionId: sid })]), true);
  const dir = tempConfigDir(ctx);
  const t = new Transcript();
  t.user(null, 'hi');
  assert.equal(await isClaudeTranscriptFile(t.write(dir)), true);
  const pi = join(dir, 'pi.jsonl');
  writeFileSync(pi, JSON.stringify({ type: 'session', version: 3, id: 'x', cwd: '/', timestamp: 't' }) + '\n');
  assert.equal(await isClaudeTranscriptFile(pi), false);
  assert.equal(await isClaudeTranscriptFile(join(dir, 'missing.jsonl')), false);
});
