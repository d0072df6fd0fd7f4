// Reading never changes a file: opening, listing, showing the context or the tree of an old (v1/v2) pi session file
// leaves its bytes and mtime as they were (it used to be rewritten in place, invalid UTF-8 replaced by U+FFFD, with no
// backup). The file is upgraded only by a write, after a .bak of its exact bytes, and bytes we do not rewrite survive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';
import { cliHarness } from '../qa/cli-harness';

const V1 = resolve(__dirname, '../../../../shared/fixtures/pi/before-compaction.v1.jsonl');
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A small v1 file whose second message holds bytes that are not valid UTF-8, and an unreadable line. */
function v1WithInvalidUtf8(file: string): Buffer {
  const header = Buffer.from(JSON.stringify({ type: 'session', id: 'legacy-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/tmp' }) + '\n');
  const u = Buffer.from(JSON.stringify({ type: 'message', timestamp: '2025-01-01T00:00:01.000Z', message: { role: 'user', content: 'hello' } }) + '\n');
  const bad = Buffer.concat([
    Buffer.from('{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"caf'),
    Buffer.from([0xe9, 0xff, 0xc3]), // latin-1 é, an invalid byte, a cut sequence
    Buffer.from('"}]}}\n'),
  ]);
  const junk = Buffer.concat([Buffer.from('not json at all '), Buffer.from([0xfe, 0x01]), Buffer.from('\n')]);
  const bytes = Buffer.concat([header, u, bad, junk]);
  writeFileSync(file, bytes);
  return bytes;
}

function freeze(file: string): { sha: string; mtimeMs: number; size: number } {
  utimesSync(file, new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z'));
  const st = statSync(file);
  return { sha: sha(file), mtimeMs: st.mtimeMs, size: st.size };
}

test('opening an old pi file in process (entries, context, tree) leaves its bytes and mtime unchanged', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-readonly-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const make of [(f: string) => copyFileSync(V1, f), (f: string) => void v1WithInvalidUtf8(f)]) {
    const file = join(dir, `s-${Math.random().toString(36).slice(2)}.jsonl`);
    make(file);
    const before = freeze(file);
    const s = await SessionManager.open(file, { home: dir });
    assert.ok(s.getLoadReport().migratedFrom !== undefined);
    s.getEntries();
    s.buildSessionContext();
    s.getPath();
    s.getChildren(null);
    await s.close();
    const again = await SessionManager.open(file, { home: dir });
    assert.deepEqual(
      again.getEntries().map((e) => e.id),
      s.getEntries().map((e) => e.id),
      'ids are the same on every open',
    );
    await again.close();
    const st = statSync(file);
    assert.equal(sha(file), before.sha);
    assert.equal(st.mtimeMs, before.mtimeMs);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.bak')),
      [],
      'no backup either: nothing was written',
    );
  }
});

test('the CLI listing, showing the context, tree and branches of an old pi file leaves it byte for byte as it was', async (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const file = join(cli.dir, 'old.jsonl');
  copyFileSync(V1, file);
  const odd = join(cli.dir, 'odd.jsonl');
  v1WithInvalidUtf8(odd);
  for (const f of [file, odd]) {
    const before = freeze(f);
    for (const args of [
      ['context', f],
      ['tree', f],
      ['branches', f],
      ['context', f, '--json'],
    ]) {
      const r = cli.run(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    assert.equal(sha(f), before.sha, f);
    assert.equal(statSync(f).mtimeMs, before.mtimeMs, f);
  }
});

test('a write upgrades the old file: a .bak identical to the original, and bytes of lines not rewritten survive exactly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-readonly-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'odd.jsonl');
  const original = v1WithInvalidUtf8(file);
  const s = await SessionManager.open(file, { home: dir, deferUntilAssistant: false });
  const ids = s.getEntries().map((e) => e.id);
  const added = await s.transaction((m) => m.appendMessage({ role: 'user', content: 'after the upgrade' }));
  await s.close();
  const baks = readdirSync(dir).filter((f) => f.endsWith('.bak'));
  assert.equal(baks.length, 1);
  assert.ok(readFileSync(join(dir, baks[0]!)).equals(original), 'the backup holds the original bytes');
  const upgraded = readFileSync(file);
  assert.ok(upgraded.includes(Buffer.from([0xe9, 0xff, 0xc3])), 'the invalid UTF-8 bytes survive');
  assert.ok(upgraded.includes(Buffer.concat([Buffer.from('not json at all '), Buffer.from([0xfe, 0x01])])), 'the unreadable line survives');
  const header = JSON.parse(upgraded.subarray(0, upgraded.indexOf(0x0a)).toString('utf8'));
  assert.equal(header.version, 3);
  const reopened = await SessionManager.open(file, { home: dir });
  assert.equal(reopened.getLoadReport().migratedFrom, undefined);
  assert.deepEqual(
    reopened.getEntries().map((e) => e.id),
    [...ids, added],
    'the ids seen before the upgrade are the ids written',
  );
  assert.equal(reopened.getEntry(added)!.parentId, ids.at(-1));
  await reopened.close();

  // the real v1 fixture: append once, every original line is still there (with an id and a parentId in front)
  const big = join(dir, 'big.jsonl');
  copyFileSync(V1, big);
  const b = await SessionManager.open(big, { home: dir, deferUntilAssistant: false });
  await b.transaction((m) => m.appendMessage({ role: 'user', content: 'x' }));
  await b.close();
  const bak = readdirSync(dir).filter((f) => f.startsWith('big.jsonl') && f.endsWith('.bak'));
  assert.equal(bak.length, 1);
  assert.equal(sha(join(dir, bak[0]!)), sha(V1));
});
