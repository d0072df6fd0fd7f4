import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';
import { MemorySessionStorage } from '../../../src/core/session/storage';
import { sessionDirFor, sessionsRoot } from '../../../src/core/session/paths';
import { tempDir } from './helpers';

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

test('appends chain to the leaf; branch moves the leaf only; resetLeaf starts a new root', () => {
  const s = SessionManager.inMemory('/w');
  const u1 = s.appendMessage({ role: 'user', content: 'one' });
  const a1 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'two' }], provider: 'p', model: 'm' });
  assert.match(u1, /^[0-9a-f]{8}$/);
  assert.equal(s.getEntry(a1)!.parentId, u1);
  assert.equal(s.getLeafId(), a1);
  s.branch(u1);
  assert.equal(s.getEntries().length, 2);
  const a2 = s.appendMessage({ role: 'assistant', content: 'alt', provider: 'p', model: 'm' });
  assert.deepEqual(
    s.getChildren(u1).map((e) => e.id),
    [a1, a2],
  );
  assert.deepEqual(
    s.getPath().map((e) => e.id),
    [u1, a2],
  );
  s.resetLeaf();
  const root2 = s.appendMessage({ role: 'user', content: 'fresh' });
  assert.equal(s.getEntry(root2)!.parentId, null);
  assert.deepEqual(
    s.getChildren(null).map((e) => e.id),
    [u1, root2],
  );
  assert.throws(() => s.branch('nope'), /no entry nope/);
  assert.throws(() => s.appendMessage({ role: 'user', content: 'x' }, { id: u1 }), /already exists/);
  assert.equal(s.appendMessage({ role: 'user', content: 'x' }, { id: 'my-id' }), 'my-id');
});

test('branchWithSummary: fromId is the branch point, "root" (and parentId null) from the root', () => {
  const s = SessionManager.inMemory('/w');
  const u1 = s.appendMessage({ role: 'user', content: 'one' });
  s.appendMessage({ role: 'assistant', content: 'two', provider: 'p', model: 'm' });
  const b = s.branchWithSummary(u1, 'left the other path', { files: [] }, true);
  assert.deepEqual(
    { ...s.getEntry(b), timestamp: 0 },
    { type: 'branch_summary', id: b, parentId: u1, timestamp: 0, fromId: u1, summary: 'left the other path', details: { files: [] }, fromExtension: true },
  );
  const r = s.branchWithSummary(null, 'from root');
  assert.equal(s.getEntry(r)!.parentId, null);
  assert.equal((s.getEntry(r) as { fromId: string }).fromId, 'root');
  assert.deepEqual(
    s.buildSessionContext().messages.map((m) => m.role),
    ['branchSummary'],
  );
});

test('labels are set, replaced and cleared by label entries', () => {
  const s = SessionManager.inMemory();
  const u = s.appendMessage({ role: 'user', content: 'x' });
  s.appendLabelChange(u, 'first');
  s.appendLabelChange(u, 'second');
  assert.equal(s.getLabel(u), 'second');
  s.appendLabelChange(u, undefined);
  assert.equal(s.getLabel(u), undefined);
  assert.throws(() => s.appendLabelChange('missing', 'x'), /no entry missing/);
});

test('deferred persistence: nothing on disk before the first assistant message, then everything, then appends', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/proj/a', { home, title: 'T' });
  assert.equal(dirname(s.sessionFile!), sessionDirFor(sessionsRoot(home), '/proj/a'));
  assert.match(s.sessionFile!, /\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
  s.appendMessage({ role: 'user', content: 'q' });
  s.appendThinkingLevelChange('high');
  await s.flush();
  assert.equal(existsSync(s.sessionFile!), false);
  s.appendMessage({ role: 'assistant', content: 'a', provider: 'p', model: 'm' });
  s.appendModelChange('x/y', 'smol');
  await s.flush();
  const written = lines(s.sessionFile!);
  assert.deepEqual(
    written.map((l) => l.type),
    ['session', 'message', 'thinking_level_change', 'message', 'model_change'],
  );
  assert.equal(written[0]!.title, 'T');
  assert.equal(written[0]!.version, 3);
  s.appendCustomEntry('agent-rewind/test', { n: 1 });
  await s.close();
  assert.equal(lines(s.sessionFile!).length, 6);
  assert.throws(() => s.appendCustomEntry('x'), /closed/);
});

test('deferUntilAssistant false writes the header at once', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/proj/b', { home, deferUntilAssistant: false });
  await s.flush();
  assert.deepEqual(
    lines(s.sessionFile!).map((l) => l.type),
    ['session'],
  );
  s.appendMessage({ role: 'user', content: 'q' });
  await s.close();
  assert.equal(lines(s.sessionFile!).length, 2);
});

test('every append method round-trips through the file', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  const u = s.appendMessage({ role: 'user', content: 'q', extraField: { kept: true } });
  s.appendThinkingLevelChange('low');
  s.appendModelChange('a/b');
  s.appendCompaction('sum', u, 1234, { shortSummary: 'short', details: { readFiles: ['x'] } });
  s.appendCustomEntry('ext', { state: 1 });
  s.appendCustomMessageEntry('ext', 'injected', true, { d: 1 });
  s.appendLabelChange(u, 'here');
  s.appendTtsrInjection(['r1', 'r2']);
  s.appendSessionInit({ systemPrompt: 'sys', task: 'task', tools: ['read'] });
  s.appendModeChange('plan', { planFile: '/tmp/p.md' });
  s.appendSessionInfo('named');
  await s.close();
  const r = await SessionManager.open(s.sessionFile!, { home });
  assert.deepEqual(r.getEntries(), s.getEntries());
  assert.deepEqual(r.getLoadReport().skipped, []);
  assert.equal(r.getLeafId(), s.getLeafId());
  assert.equal(r.getLabel(u), 'here');
  assert.deepEqual(r.buildSessionContext(), s.buildSessionContext());
});

test('a latched persistence error is rethrown by every later operation', async () => {
  const storage = new MemorySessionStorage();
  const s = SessionManager.create('/p', { storage, home: '/h', deferUntilAssistant: false });
  await s.flush();
  storage.writeTextAtomic = async () => {
    throw new Error('disk full');
  };
  storage.openWriter = async () => {
    throw new Error('disk full');
  };
  s.appendMessage({ role: 'user', content: 'x' });
  await assert.rejects(s.flush(), /could not be written: disk full/);
  assert.throws(() => s.appendMessage({ role: 'user', content: 'y' }), /disk full/);
  await assert.rejects(
    s.transaction(() => 1),
    /disk full/,
  );
});
