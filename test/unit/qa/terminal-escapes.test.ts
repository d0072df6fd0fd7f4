// Text from session files and file names reaches a person's terminal only through the control-character filter:
// escape sequences (retitle, clear, recolor) and BEL in a title, a message, an entry id or a file name must not reach
// the terminal in branches, search, snapshot, rewind-files --dry-run, rewind-files and undo-rewind output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { cliHarness } from './cli-harness';

const ESC_TITLE = 'Title \u001b]0;pwned\u0007 \u001b[2J';
const ESC_ID = 'u\u001b[31m1\u0007';
const ESC_FILE = 'e\u001b]0;x\u0007.txt';

function assertClean(label: string, out: string): void {
  assert.doesNotMatch(out, /[\u001b\u0007\u009b]/, `${label} printed a raw control character: ${JSON.stringify(out)}`);
}

test('branches, search, snapshot, rewind-files (dry run and real) and undo-rewind print no raw ESC/BEL from session text or file names', async (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const ws = join(cli.dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, ESC_FILE), 'one\n');
  const dir = join(cli.home, 'sessions', '--escapes--');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '2025-01-01T00-00-00-000Z_esc.jsonl');
  const lines = [
    { type: 'session', version: 3, id: 'sess-esc', timestamp: '2025-01-01T00:00:00.000Z', cwd: ws, title: ESC_TITLE },
    {
      type: 'message',
      id: ESC_ID,
      parentId: null,
      timestamp: '2025-01-01T00:00:01.000Z',
      message: { role: 'user', content: 'find the \u001b[31mneedle\u0007 here \u001b]0;t\u0007' },
    },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');

  const snap = cli.run(['snapshot', file, '--anchor', ESC_ID]);
  assert.equal(snap.code, 0, snap.stderr);
  assertClean('snapshot', snap.stdout + snap.stderr);

  writeFileSync(join(ws, ESC_FILE), 'two\n');
  const dry = cli.run(['rewind-files', file, ESC_ID, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /e\uFFFD\]0;x\uFFFD\.txt/, 'the file is still named, with its controls shown as U+FFFD');
  assertClean('rewind-files --dry-run', dry.stdout + dry.stderr);

  const real = cli.run(['rewind-files', file, ESC_ID]);
  assert.equal(real.code, 0, real.stderr);
  assertClean('rewind-files', real.stdout + real.stderr);

  const undo = cli.run(['undo-rewind', file]);
  assert.equal(undo.code, 0, undo.stderr);
  assertClean('undo-rewind', undo.stdout + undo.stderr);

  const branches = cli.run(['branches', file]);
  assert.equal(branches.code, 0, branches.stderr);
  assertClean('branches', branches.stdout + branches.stderr);

  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dirname(cli.bundle), 'sql-wasm.wasm')); // the catalog's engine, as the build ships it
  const search = cli.run(['search', 'needle', '--all']);
  assert.equal(search.code, 0, search.stderr);
  assert.match(search.stdout, /needle/);
  assertClean('search', search.stdout + search.stderr);

  // --json keeps the exact text (JSON escapes the controls)
  const json = cli.run(['branches', file, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(JSON.stringify(json.json).includes('\\u001b'));
});

test('snapshot: a second user-message snapshot of the same anchor after the files changed exits 1 with a clear error; the same state is a no-op', async (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const ws = join(cli.dir, 'ws2');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'one\n');
  const { id } = cli.run(['new', '--cwd', ws, '--json']).json;
  assert.equal(cli.run(['append', id, '--role', 'user', '--text', 'hi', '--id', 'U', '--no-snapshot']).code, 0);
  assert.equal(cli.run(['snapshot', id, '--anchor', 'U']).code, 0);
  const same = cli.run(['snapshot', id, '--anchor', 'U']);
  assert.equal(same.code, 0, same.stderr);
  writeFileSync(join(ws, 'a.txt'), 'two\n');
  const again = cli.run(['snapshot', id, '--anchor', 'U']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /message U already has a file snapshot/);
  const back = cli.run(['rewind-files', id, 'U']);
  assert.equal(back.code, 0, back.stderr);
});
