import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';
import { MAX_PERSIST_CHARS, TRUNCATION_NOTICE } from '../../../src/core/session/persist-transform';
import { tempDir } from './helpers';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const assistant = { role: 'assistant', content: [{ type: 'text', text: 'ok' }], provider: 'p', model: 'm' };

test('strings over 500,000 characters are truncated on disk with the notice; lineCount is recomputed', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  const big = 'x\n'.repeat(300_000); // 600,000 chars, 300,000 lines
  s.appendMessage({ role: 'toolResult', content: [{ type: 'text', text: 'small' }], details: { content: big, lineCount: 300_000 } });
  await s.close();
  const stored = lines(s.sessionFile!)[1].message.details;
  assert.equal(stored.content.length, MAX_PERSIST_CHARS + 2 + TRUNCATION_NOTICE.length);
  assert.ok(stored.content.endsWith('\n\n' + TRUNCATION_NOTICE));
  assert.equal(stored.lineCount, stored.content.split('\n').length);
  assert.equal(stored.lineCount, 250_003);
  // memory keeps the full value
  assert.equal((s.getEntries()[0] as unknown as { message: { details: { content: string } } }).message.details.content.length, 600_000);
});

test('transient partialJson / jsonlEvents are dropped on disk', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  s.appendMessage({ ...assistant, content: [{ type: 'toolCall', id: 't', name: 'read', arguments: {}, partialJson: '{"pa' }], jsonlEvents: [1, 2] });
  await s.close();
  const raw = readFileSync(s.sessionFile!, 'utf8');
  assert.ok(!raw.includes('partialJson') && !raw.includes('jsonlEvents'));
  assert.deepEqual(lines(s.sessionFile!)[1].message.content[0], { type: 'toolCall', id: 't', name: 'read', arguments: {} });
});

test('large images go to the content-addressed blob store once and come back on load; small ones stay inline', async (t) => {
  const home = tempDir(t);
  const bytes = Buffer.alloc(3000, 7);
  const data = bytes.toString('base64');
  const hash = createHash('sha256').update(bytes).digest('hex');
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  s.appendMessage({
    role: 'user',
    content: [
      { type: 'text', text: 'look' },
      { type: 'image', data, mimeType: 'image/png' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ],
  });
  s.appendCustomMessageEntry('ext', [{ type: 'image', data, mimeType: 'image/png' }], true);
  await s.close();
  const onDisk = lines(s.sessionFile!);
  assert.equal(onDisk[1].message.content[1].data, `blob:sha256:${hash}`);
  assert.equal(onDisk[1].message.content[2].data, 'AAAA');
  assert.equal(onDisk[2].content[0].data, `blob:sha256:${hash}`);
  assert.deepEqual(readdirSync(join(home, 'blobs')), [hash]);
  assert.deepEqual(readFileSync(join(home, 'blobs', hash)), bytes);
  const r = await SessionManager.open(s.sessionFile!, { home });
  assert.deepEqual(r.getEntries(), s.getEntries());
  assert.equal(r.getLoadReport().missingBlobs, undefined);
});

test('a missing blob keeps its ref and is reported', async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  const ref = 'blob:sha256:' + 'a'.repeat(64);
  writeFileSync(
    file,
    JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: 't', cwd: '/' }) +
      '\n' +
      JSON.stringify({
        type: 'message',
        id: '00000001',
        parentId: null,
        timestamp: 't',
        message: { role: 'user', content: [{ type: 'image', data: ref, mimeType: 'image/png' }] },
      }) +
      '\n',
  );
  const s = await SessionManager.open(file, { home });
  assert.deepEqual(s.getLoadReport().missingBlobs, ['a'.repeat(64)]);
  assert.equal((s.getEntries()[0] as unknown as { message: { content: { data: string }[] } }).message.content[0]!.data, ref);
});

test('a title line before the header, unknown entry types and unknown fields survive a migration upgrade unchanged', async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  const title = '{"type":"title","title":"My   session" ,"padding":"    "}';
  const unknown = { type: 'future_entry', id: '00000003', parentId: '00000002', timestamp: 't', payload: { deep: [1, { x: null }] } };
  const hook = {
    type: 'message',
    id: '00000002',
    parentId: '00000001',
    timestamp: 't',
    message: { role: 'hookMessage', customType: 'h', content: 'c', extra: 1 },
  };
  const first = { type: 'message', id: '00000001', parentId: null, timestamp: 't', message: { role: 'user', content: 'u' }, unknownField: 'kept' };
  writeFileSync(
    file,
    [
      title,
      JSON.stringify({ type: 'session', version: 2, id: 'sid', timestamp: 't', cwd: '/c', extraHeader: true }),
      JSON.stringify(first),
      JSON.stringify(hook),
      JSON.stringify(unknown),
    ].join('\n') + '\n',
  );
  const s = await SessionManager.open(file, { home });
  assert.equal(s.getLoadReport().migratedFrom, 2);
  const before = readFileSync(file, 'utf8');
  await s.close();
  assert.equal(readFileSync(file, 'utf8'), before, 'reading does not upgrade the file');
  const w = await SessionManager.open(file, { home });
  w.appendCustomEntry('y');
  await w.close();
  const raw = readFileSync(file, 'utf8').split('\n');
  assert.equal(raw[0], title);
  assert.deepEqual(JSON.parse(raw[1]!), { type: 'session', version: 3, id: 'sid', timestamp: 't', cwd: '/c', extraHeader: true });
  assert.deepEqual(JSON.parse(raw[2]!), first);
  assert.deepEqual(JSON.parse(raw[3]!), { ...hook, message: { ...hook.message, role: 'custom' } });
  assert.deepEqual(JSON.parse(raw[4]!), unknown);
  // appends keep the title line too
  const again = await SessionManager.open(file, { home });
  assert.equal(again.sessionId, 'sid');
  again.appendCustomEntry('x');
  await again.close();
  assert.equal(readFileSync(file, 'utf8').split('\n')[0], title);
});

test('an invalid header starts a new session at that path, after copying the old bytes to a backup', async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  const bad = 'this is not json\n{"type":"message","id":"00000001","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}\n';
  writeFileSync(file, bad);
  const s = await SessionManager.open(file, { home, deferUntilAssistant: false });
  const report = s.getLoadReport();
  assert.ok(report.backupFile && report.backupFile.startsWith(file + '.corrupt-') && report.backupFile.endsWith('.bak'));
  assert.equal(readFileSync(report.backupFile, 'utf8'), bad);
  assert.deepEqual(report.skipped, [{ line: 1, reason: report.skipped[0]!.reason }]);
  assert.equal(s.getEntries().length, 0);
  await s.close();
  assert.deepEqual(
    lines(file).map((l) => l.type),
    ['session'],
  );
  assert.equal(lines(file)[0].id, s.sessionId);
});

test("onInvalidHeader 'throw' refuses a file without a valid header and leaves it alone", async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  writeFileSync(file, '[1]\n{"type":"message","id":"x"}\n');
  await assert.rejects(SessionManager.open(file, { home, onInvalidHeader: 'throw' }), /is not a session file \(the first record is not a session header\)/);
  assert.equal(readFileSync(file, 'utf8'), '[1]\n{"type":"message","id":"x"}\n');
  assert.deepEqual(readdirSync(home), ['s.jsonl']);
});

test('an invalid header with deferred persistence leaves the old file in place until the first assistant message', async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  writeFileSync(file, '{"type":"message"}\n');
  const s = await SessionManager.open(file, { home });
  assert.ok(s.getLoadReport().backupFile);
  s.appendMessage({ role: 'user', content: 'q' });
  await s.flush();
  assert.equal(readFileSync(file, 'utf8'), '{"type":"message"}\n');
  s.appendMessage(assistant);
  await s.close();
  assert.deepEqual(
    lines(file).map((l) => l.type),
    ['session', 'message', 'message'],
  );
});

test('a missing file opens as a new empty session at that path', async (t) => {
  const home = tempDir(t);
  const file = join(home, 'sub', 'new.jsonl');
  const s = await SessionManager.open(file, { home, deferUntilAssistant: false });
  assert.equal(s.sessionFile, file);
  assert.equal(s.getEntries().length, 0);
  assert.equal(s.getLeafId(), null);
  await s.close();
  assert.ok(existsSync(file));
});

test('unparsable lines are skipped with 1-based line numbers and kept in the file; a torn last line is terminated before the next append', async (t) => {
  const home = tempDir(t);
  const s = SessionManager.create('/p', { home, deferUntilAssistant: false });
  const a = s.appendMessage({ role: 'user', content: 'a' });
  await s.close();
  appendFileSync(s.sessionFile!, '{"broken": \n[1,2]\n{"type":"message","id":"00000009","par');
  const r = await SessionManager.open(s.sessionFile!, { home });
  assert.deepEqual(
    r.getLoadReport().skipped.map((x) => x.line),
    [3, 4, 5],
  );
  assert.equal(r.getLoadReport().skipped[2]!.reason, 'incomplete last line');
  assert.equal(r.getLeafId(), a);
  const b = r.appendMessage({ role: 'user', content: 'b' });
  await r.close();
  const again = await SessionManager.open(s.sessionFile!, { home });
  assert.deepEqual(
    again.getEntries().map((e) => e.id),
    [a, b],
  );
  assert.deepEqual(
    again.getLoadReport().skipped.map((x) => x.line),
    [3, 4, 5],
  );
  assert.ok(readFileSync(s.sessionFile!, 'utf8').includes('{"broken": \n'));
});

test('entries without ids and duplicate ids in a v3 file are skipped and reported, not thrown', async (t) => {
  const home = tempDir(t);
  const file = join(home, 's.jsonl');
  const e = (id: string | undefined, parentId: string | null) =>
    JSON.stringify({ type: 'message', id, parentId, timestamp: 't', message: { role: 'user', content: id ?? '' } });
  writeFileSync(
    file,
    [
      JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: 't', cwd: '/' }),
      e('00000001', null),
      e(undefined, null),
      e('00000001', null),
      '{"type":42}',
      e('00000002', '00000001'),
    ].join('\n') + '\n',
  );
  const s = await SessionManager.open(file, { home });
  assert.deepEqual(s.getLoadReport().skipped, [
    { line: 3, reason: 'entry without an id' },
    { line: 4, reason: 'duplicate entry id 00000001' },
    { line: 5, reason: 'entry without a type' },
  ]);
  assert.deepEqual(
    s.getEntries().map((x) => x.id),
    ['00000001', '00000002'],
  );
});
