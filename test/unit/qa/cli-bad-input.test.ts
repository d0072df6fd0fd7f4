// The CLI driven as a demanding user would: stray arguments, empty and hand-edited session files, odd --home values,
// text that could break a terminal. Every case must end with a clear message, the right exit code, and no lost bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesOf, cliHarness, fileListing, type CliHarness } from './cli-harness';

let h: CliHarness;
before(() => {
  h = cliHarness();
});
after(() => h.dispose());

/** A session with u1 a1 u2 a2 u3 a3 (ids fixed) in the default home; returns its file. */
function sixMessages(): { id: string; file: string } {
  const s = h.newSession();
  for (const n of [1, 2, 3]) {
    for (const role of ['user', 'assistant']) {
      const r = h.run(['append', s.id, '--role', role, '--text', `${role[0]}${n}`, '--id', `${role[0]}${n}`, '--no-snapshot', '--json']);
      assert.equal(r.code, 0, r.stderr);
    }
  }
  return s;
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n');
}

test('stray arguments are usage errors (exit 2, nothing on stdout, nothing written)', () => {
  const { id, file } = sixMessages();
  const before = bytesOf(file);
  const cases: string[][] = [
    ['new', 'My title'],
    ['sessions', 'extra'],
    ['branches', id, 'extra'],
    ['state', id, 'extra'],
    ['tree', id, 'extra'],
    ['context', id, 'extra'],
    ['rewind', id, 'u1', 'extra'],
    ['switch', id, 'main', 'extra'],
    ['checkpoint', id, 'c', 'extra'],
    ['restore', id, 'c', 'extra'],
  ];
  const sessionsBefore = fileListing(join(h.home, 'sessions'));
  for (const args of cases) {
    const r = h.run([...args, '--json']);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
    assert.match(r.stderr, /unexpected argument "(My title|extra)"/, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  assert.deepEqual(bytesOf(file), before);
  assert.deepEqual(fileListing(join(h.home, 'sessions')), sessionsBefore, '`new "My title"` must not create a session');
});

test('missing arguments are named in order: <session> before <messageId>', () => {
  const r = h.run(['rewind']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /missing <session>/);
  const s = h.newSession();
  const r2 = h.run(['rewind', s.id]);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /missing <messageId>/);
});

test('an empty file is refused by every session command and stays empty', () => {
  const empty = join(h.work, 'empty.jsonl');
  writeFileSync(empty, '');
  for (const args of [['tree'], ['context'], ['branches'], ['state'], ['append', '--role', 'user', '--text', 'x', '--no-snapshot'], ['checkpoint', '_', 'c']]) {
    const [cmd, ...rest] = args;
    const argv = cmd === 'checkpoint' ? ['checkpoint', empty, 'c'] : [cmd!, empty, ...rest];
    const r = h.run([...argv, '--json']);
    assert.equal(r.code, 1, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /empty\.jsonl is not a session file \(empty file\); it was not changed/);
    assert.equal(r.stdout, '');
    assert.equal(readFileSync(empty, 'utf8'), '', `${cmd} wrote to the empty file`);
  }
});

test('--home with an empty value is a usage error, not a silent fall-back to ~/.agent-rewind', () => {
  const r = h.run(['new', '--home', '', '--json'], { home: null });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--home needs a folder/);
  assert.equal(r.stdout, '');
  assert.equal(existsSync(join(h.dir, '.agent-rewind')), false);
});

test('no command at all: usage on stderr with exit 2; --help: usage on stdout with exit 0', () => {
  const none = h.run([], { home: null });
  assert.equal(none.code, 2);
  assert.equal(none.stdout, '');
  assert.match(none.stderr, /^usage: agent-rewind <command>/);
  const help = h.run(['--help'], { home: null });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: agent-rewind <command>/);
});

test('a corrupt line in the middle: the orphaned rest is marked in the tree and warned about; append keeps every byte', () => {
  const { file } = sixMessages();
  const l = lines(file);
  l[3] = '{"type":"message", garbage'; // u2 (line 4) is gone; a2's parent is missing now
  writeFileSync(file, l.join('\n'));
  const before = bytesOf(file);

  const tree = h.run(['tree', file]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /a2 assistant \(parent u2 missing\): a2/);
  assert.match(tree.stderr, /:4: skipped \(invalid JSON/);

  const ctx = h.run(['context', file, '--json']);
  assert.equal(ctx.code, 0);
  assert.match(ctx.stderr, /entry a2 names a parent u2 that is not in the file; the path to it starts there/);
  assert.deepEqual(
    ctx.json.messages.map((m: any) => m.role),
    ['assistant', 'user', 'assistant'],
  );

  const app = h.run(['append', file, '--role', 'user', '--text', 'next', '--no-snapshot', '--json']);
  assert.equal(app.code, 0, app.stderr);
  assert.equal(app.json.parentId, 'a3');
  assert.deepEqual(bytesOf(file).subarray(0, before.length), before, 'append must only add bytes');
});

test('a hand-made parent cycle: tree still shows every entry instead of "(empty session)"', () => {
  const { file } = sixMessages();
  const l = lines(file);
  const first = JSON.parse(l[1]!);
  first.parentId = 'a3'; // u1 → a3 → … → u1
  l[1] = JSON.stringify(first);
  writeFileSync(file, l.join('\n'));
  const tree = h.run(['tree', file]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.doesNotMatch(tree.stdout, /empty session/);
  for (const id of ['u1', 'a1', 'u2', 'a2', 'u3', 'a3']) assert.match(tree.stdout, new RegExp(`\\b${id}\\b`), id);
  assert.match(tree.stdout, /parent cycle/);
});

test('tree previews never cut a character in half', () => {
  const { id } = h.newSession();
  const text = 'a'.repeat(78) + '😀😀😀';
  assert.equal(h.run(['append', id, '--role', 'user', '--text', text, '--no-snapshot']).code, 0);
  const json = h.run(['tree', id, '--json']);
  const preview: string = json.json.entries[0].preview;
  const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  assert.doesNotMatch(preview, loneSurrogate, JSON.stringify(preview));
  assert.ok(preview.endsWith('…'));
  const human = h.run(['tree', id]);
  assert.doesNotMatch(human.stdout, /\uFFFD/);
});

test('control characters from a session file never reach the terminal raw (titles, previews, names)', () => {
  const { id, file } = h.newSession('title \u001b]0;pwned\u0007 \u001b[2J');
  assert.equal(h.run(['append', id, '--role', 'user', '--text', 'red \u001b[31mtext\u001b[0m \u202eevil', '--id', 'u1', '--no-snapshot']).code, 0);
  const ESC_OR_BIDI = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  for (const args of [['tree', id], ['sessions'], ['branches', id], ['state', id], ['context', id]]) {
    const r = h.run(args);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, ESC_OR_BIDI, args.join(' '));
  }
  // without --json, context prints indented JSON: still valid JSON, and the same text once parsed
  assert.equal(JSON.parse(h.run(['context', id]).stdout).messages[0].content, 'red \u001b[31mtext\u001b[0m \u202eevil');
  // --json keeps the exact text (JSON escapes it)
  const json = h.run(['tree', id, '--json']);
  assert.equal(json.json.entries[0].preview, 'red \u001b[31mtext\u001b[0m \u202eevil');
  assert.ok(readFileSync(file, 'utf8').includes('\\u001b]0;pwned'));
});

test('checkpoint names with control characters are refused and nothing is written', () => {
  const { id, file } = sixMessages();
  const before = bytesOf(file);
  const r = h.run(['checkpoint', id, 'bad\u001b[31mname', '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Checkpoint name cannot contain control characters/);
  assert.deepEqual(bytesOf(file), before);
});

test('a session file saved by an editor with a UTF-8 byte-order mark still opens, is listed, and is appended to', () => {
  const { id, file } = sixMessages();
  const plain = readFileSync(file);
  const bom = join(h.work, 'bom.jsonl');
  writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]));
  const tree = h.run(['tree', bom, '--json']);
  assert.equal(tree.code, 0, tree.stderr);
  assert.equal(tree.json.sessionId, id);
  assert.equal(tree.json.entries.length, 6);
  const app = h.run(['append', bom, '--role', 'user', '--text', 'after bom', '--no-snapshot', '--json']);
  assert.equal(app.code, 0, app.stderr);
  assert.equal(app.json.parentId, 'a3');
  assert.deepEqual(readFileSync(bom).subarray(0, plain.length + 3), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]));
  // and `sessions` reads its header through the mark too
  writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]));
  const listed = h.run(['sessions', '--json']).json.find((s: any) => s.file === file);
  assert.equal(listed.id, id);
  assert.equal(listed.problem, undefined);
});

test('restore of a checkpoint whose message line was deleted by hand says so, and writes nothing', () => {
  const { id, file } = sixMessages();
  assert.equal(h.run(['checkpoint', id, 'c1']).code, 0);
  writeFileSync(
    file,
    lines(file)
      .filter((l) => !l.includes('"id":"a3"'))
      .join('\n'),
  );
  const before = bytesOf(file);
  const r = h.run(['restore', id, 'c1', '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Checkpoint "c1" points at message "a3", which is no longer in this session/);
  assert.equal(r.stdout, '');
  assert.deepEqual(bytesOf(file), before);
});

test('a stale lock path that is not a lock folder: a clear error naming it, the session untouched', () => {
  const { id, file } = sixMessages();
  const lockPath = `${file}.lock`;
  writeFileSync(lockPath, 'not a folder');
  const old = new Date(Date.now() - 3600_000);
  utimesSync(lockPath, old, old);
  const before = bytesOf(file);
  const r = h.run(['append', id, '--role', 'user', '--text', 'x', '--no-snapshot', '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /could not lock .*\.jsonl/);
  assert.ok(r.stderr.includes(lockPath), r.stderr);
  assert.equal(r.stdout, '');
  assert.deepEqual(bytesOf(file), before);
  assert.equal(readFileSync(lockPath, 'utf8'), 'not a folder');
});

test('an unreadable sessions folder of another tool (~/.omp here, a symlink loop) does not hide the others', () => {
  const { id } = h.newSession('ours');
  const omp = join(h.dir, '.omp', 'agent');
  mkdirSync(omp, { recursive: true });
  symlinkSync(join(omp, 'sessions'), join(omp, 'sessions')); // readdir → ELOOP, even for root
  for (const args of [['sessions'], ['sessions', '--all']]) {
    const r = h.run([...args, '--json']);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(
      r.json.some((s: any) => s.id === id),
      args.join(' '),
    );
    assert.match(r.stderr, /warning: could not read .*\.omp.*ELOOP/);
  }
});

test('a v3 file whose header lost its version (a hand edit) keeps its branches through the v1 upgrade, with a backup; reading alone changes nothing', () => {
  const { id, file } = sixMessages();
  assert.equal(h.run(['rewind', id, 'u2']).code, 0);
  assert.equal(h.run(['append', id, '--role', 'assistant', '--text', 'other a2', '--id', 'b2', '--no-snapshot']).code, 0);
  const l = lines(file);
  const header = JSON.parse(l[0]!);
  delete header.version;
  l[0] = JSON.stringify(header);
  writeFileSync(file, l.join('\n'));
  const original = readFileSync(file, 'utf8');
  const parentsBefore = new Map(
    l
      .filter((x) => x.trim())
      .slice(1)
      .map((x) => JSON.parse(x))
      .map((e) => [e.id, e.parentId]),
  );

  const r = h.run(['tree', id, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /is in format v1; it is read as v3/);
  assert.equal(readFileSync(file, 'utf8'), original, 'reading did not change the file');
  assert.deepEqual(new Map(r.json.entries.map((e: any) => [e.id, e.parentId])), parentsBefore, 'no parent link changed');
  const w = h.run(['append', id, '--role', 'user', '--text', 'after', '--no-snapshot']);
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stderr, /upgraded from format v1 to v3/);
  const backup = /the previous bytes were saved to (\S+)/.exec(w.stderr)?.[1];
  assert.ok(backup, `a backup is named: ${w.stderr}`);
  assert.equal(readFileSync(backup, 'utf8'), original);
  assert.equal(JSON.parse(lines(file)[0]!).version, 3);
  const after = h.run(['tree', id, '--json']);
  for (const [eid, parent] of parentsBefore) assert.equal(after.json.entries.find((e: any) => e.id === eid)?.parentId, parent);
});

test('an ambiguous id prefix names a few candidates and how many more, not every session in the home', () => {
  for (let i = 0; i < 14; i++) h.newSession();
  const r = h.run(['tree', '0', '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /session id "0" is ambiguous \(\d+ sessions\)/);
  assert.ok(r.stderr.split('\n').filter((l) => l.endsWith('.jsonl')).length <= 10, r.stderr);
  assert.match(r.stderr, /…and \d+ more; type more of the id/);
});

test('a header without a string id is named as such, and the file is left alone', () => {
  const { file } = sixMessages();
  const l = lines(file);
  const header = JSON.parse(l[0]!);
  header.id = 42;
  l[0] = JSON.stringify(header);
  writeFileSync(file, l.join('\n'));
  const before = bytesOf(file);
  const r = h.run(['tree', file, '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /is not a session file \(the session header has no string id\); it was not changed/);
  assert.deepEqual(bytesOf(file), before);
});

test('text too long for a command line goes through --text-file (a file, or - for standard input), unchanged', () => {
  const { id } = h.newSession();
  const text = 'long answer 😀 é\n'.repeat(20_000); // ~340,000 characters: over Linux's 128 KiB limit for one argument
  const viaStdin = h.run(['append', id, '--role', 'assistant', '--text-file', '-', '--no-snapshot', '--json'], { input: text });
  assert.equal(viaStdin.code, 0, viaStdin.stderr);
  const file = join(h.work, 'answer.txt');
  writeFileSync(file, 'from a file ✓');
  const viaFile = h.run(['append', id, '--role', 'user', '--text-file', 'answer.txt', '--no-snapshot', '--json']);
  assert.equal(viaFile.code, 0, viaFile.stderr);
  const ctx = h.run(['context', id, '--json']);
  assert.equal(ctx.json.messages[0].content[0].text, text);
  assert.equal(ctx.json.messages[1].content, 'from a file ✓');

  const both = h.run(['append', id, '--role', 'user', '--text', 'x', '--text-file', '-', '--json']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--text and --text-file do not go together/);
  const missing = h.run(['append', id, '--role', 'user', '--text-file', 'nope.txt', '--json']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read --text-file .*nope\.txt/);
  assert.equal(h.run(['context', id, '--json']).json.messages.length, 2, 'nothing appended by the failed calls');
});
