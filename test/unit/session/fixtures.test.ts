// The real pi session files from the spec: every one loads, and their contexts are pinned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { SessionManager } from '../../../src/core/session/session-manager';
import { copyFixture, FIXTURE_NAMES, PI_FIXTURES, tempDir } from './helpers';

function withoutTransient<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === 'partialJson' || k === 'jsonlEvents' ? undefined : v)));
}

test('every fixture in the spec folder loads without skipped lines', async (t) => {
  const dir = tempDir(t);
  const names = readdirSync(PI_FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  assert.deepEqual(names, [...FIXTURE_NAMES].sort());
  for (const name of names) {
    const s = await SessionManager.open(copyFixture(dir, name), { home: dir });
    assert.deepEqual(s.getLoadReport().skipped, [], name);
    assert.ok(s.getEntries().length > 0, name);
    await s.close();
  }
});

test('simple-session: a linear conversation with a tool call, all six messages', async (t) => {
  const dir = tempDir(t);
  const s = await SessionManager.open(copyFixture(dir, 'simple-session.v3.jsonl'), { home: dir });
  const ctx = s.buildSessionContext();
  assert.deepEqual(
    ctx.messages.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'toolResult', 'assistant'],
  );
  assert.deepEqual(ctx.models, { default: 'openai/gpt-4' });
  assert.equal(ctx.thinkingLevel, 'off');
  assert.equal(ctx.mode, 'none');
  assert.equal(s.getLeafId(), '00000006');
  await s.close();
});

test('session-with-branch-summary: the root-level branch_summary starts the path, the abandoned branch is not in context', async (t) => {
  const dir = tempDir(t);
  const s = await SessionManager.open(copyFixture(dir, 'session-with-branch-summary.v3.jsonl'), { home: dir });
  assert.equal(s.getEntry('00000005')!.parentId, null);
  const ctx = s.buildSessionContext();
  assert.deepEqual(
    ctx.messages.map((m) => m.role),
    ['branchSummary', 'user', 'assistant'],
  );
  assert.deepEqual(
    { ...ctx.messages[0], summary: '' },
    { role: 'branchSummary', summary: '', fromId: '00000002', timestamp: Date.parse('2026-01-25T10:10:00.000Z') },
  );
  // the other branch is still there and reachable
  assert.deepEqual(
    s.buildSessionContext('00000004').messages.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
  );
  assert.deepEqual(
    s.getChildren(null).map((e) => e.id),
    ['00000001', '00000005'],
  );
  await s.close();
});

test('session-with-compaction: a v3 file with only firstKeptEntryIndex keeps entries from 00000003 and is not rewritten', async (t) => {
  const dir = tempDir(t);
  const file = copyFixture(dir, 'session-with-compaction.v3.jsonl');
  const before = readFileSync(file, 'utf8');
  const s = await SessionManager.open(file, { home: dir });
  const ctx = s.buildSessionContext();
  assert.deepEqual(
    ctx.messages.map((m) => m.role),
    ['compactionSummary', 'user', 'assistant', 'user', 'assistant'],
  );
  assert.equal(ctx.messages[0]!.tokensBefore, 70948);
  assert.equal(ctx.messages[1]!.content, 'Continue working');
  assert.deepEqual(ctx.models, { default: 'zai/glm-4.7' });
  assert.equal(s.getLoadReport().migratedFrom, undefined);
  await s.close();
  assert.equal(readFileSync(file, 'utf8'), before);
});

test('before-compaction v1: migrates to v3 in memory with ids and a linear chain; the first write upgrades the file atomically, and it reloads to the same context', async (t) => {
  const dir = tempDir(t);
  const file = copyFixture(dir, 'before-compaction.v1.jsonl');
  const originalText = readFileSync(file, 'utf8');
  const original = originalText
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const s = await SessionManager.open(file, { home: dir });
  assert.equal(s.getLoadReport().migratedFrom, 1);
  assert.equal(s.getLoadReport().backupFile, undefined);
  const entries = s.getEntries();
  assert.equal(entries.length, 1002);
  entries.forEach((e, i) => {
    assert.match(e.id, /^[0-9a-f]{8}$/);
    assert.equal(e.parentId, i === 0 ? null : entries[i - 1]!.id);
  });
  assert.equal(new Set(entries.map((e) => e.id)).size, 1002);
  // firstKeptEntryIndex counts the header as 0: index 293 is file line 293 (0-based), i.e. entries[292]
  const compactions = entries.filter((e) => e.type === 'compaction');
  assert.equal(compactions.length, 2);
  assert.equal(compactions[0]!.firstKeptEntryId, entries[292]!.id);
  assert.equal(compactions[1]!.firstKeptEntryId, entries[550]!.id);
  assert.equal('firstKeptEntryIndex' in compactions[0]!, false);
  assert.deepEqual(entries[292]!.timestamp, original[293].timestamp);

  const ctx = s.buildSessionContext();
  // the latest compaction wins: its summary, entries 551..627 and everything after it
  assert.equal(ctx.messages.length, 446);
  assert.equal(ctx.messages[0]!.role, 'compactionSummary');
  assert.equal(ctx.messages[0]!.tokensBefore, 185014);
  assert.deepEqual(ctx.messages[1], original[551].message);
  assert.equal(ctx.thinkingLevel, 'off');
  // v1 model_change carries provider + modelId
  assert.deepEqual(ctx.models, { default: 'anthropic/claude-opus-4-5' });
  await s.close();
  assert.equal(readFileSync(file, 'utf8'), originalText, 'reading did not change the file');
  // a write upgrades it (a custom entry: context building ignores it)
  const writer = await SessionManager.open(file, { home: dir });
  await writer.transaction((m) => m.appendCustomEntry('test/x'));
  await writer.close();

  const rewritten = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(rewritten[0].version, 3);
  assert.equal(rewritten[0].branchedFrom, original[0].branchedFrom); // unknown header fields survive
  assert.equal(rewritten.length, original.length + 1);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('.tmp')),
    [],
  );

  const again = await SessionManager.open(file, { home: dir });
  assert.equal(again.getLoadReport().migratedFrom, undefined);
  // identical, transient streaming fields (partialJson) included: the upgrade keeps the bytes of the old lines
  assert.deepEqual(again.getEntries().slice(0, -1), entries);
  assert.deepEqual(again.buildSessionContext(), ctx);
  assert.notDeepEqual(entries, withoutTransient(entries)); // the fixture does have some
  // a context for a leaf before the second compaction uses the first one
  const early = again.buildSessionContext(entries[400]!.id);
  assert.equal(early.messages[0]!.tokensBefore, 175004);
  assert.deepEqual(early.messages[1]!.content, original[293].message.content);
  await again.close();
});
