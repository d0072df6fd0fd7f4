// The file-checkpoint commands under the same rules as the others: stray arguments are usage errors, and a message
// that was saved is reported as saved even when the workspace snapshot after it failed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliHarness, type CliHarness } from './cli-harness';

let h: CliHarness;
before(() => {
  h = cliHarness();
});
after(() => h.dispose());

test('file commands refuse stray arguments (exit 2, usage on stderr, nothing on stdout)', () => {
  const s = h.newSession();
  const u = h.run(['append', s.id, '--role', 'user', '--text', 'hi', '--id', 'u1', '--workspace', h.work, '--json']);
  assert.equal(u.code, 0, u.stderr);
  const before = readFileSync(s.file);
  for (const args of [
    ['gc', 'extra'],
    ['snapshot', s.id, 'extra', '--anchor', 'u1'],
    ['rewind-files', s.id, 'u1', 'extra', '--dry-run'],
    ['undo-rewind', s.id, 'extra'],
  ]) {
    const r = h.run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /unexpected argument "extra"/);
    assert.equal(r.stdout, '');
  }
  assert.deepEqual(readFileSync(s.file), before);
});

test('append whose snapshot fails still prints the saved entry (with snapshotError) and exits 1', () => {
  const s = h.newSession();
  const notAFolder = join(h.dir, 'plain-file');
  writeFileSync(notAFolder, 'not a workspace');
  const r = h.run(['append', s.id, '--role', 'user', '--text', 'hello', '--id', 'u9', '--workspace', notAFolder, '--json']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.json?.id, 'u9', `stdout: ${r.stdout}`);
  assert.equal(typeof r.json?.snapshotError, 'string');
  assert.match(r.stderr, /u9 was appended, but the file snapshot failed/);
  // the message is in the session exactly once
  const ids = readFileSync(s.file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).id);
  assert.equal(ids.filter((id) => id === 'u9').length, 1);
});
