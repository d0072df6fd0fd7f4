// The CLI on OpenCode sessions (rows of opencode.db), as real processes: the plugin's hook snapshots two prompts,
// `sessions` lists the session by its ref, `context` reads it by id or by ref, `rewind-files` (by id: the engine then
// holds a ref that is no file) gives back the workspace of the 2nd prompt and `undo-rewind` the later one; the
// database's bytes never change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliRunOf } from '../qa/cli-harness';
import { assistantMessage, ocId, userMessage, writeDb, type TestSession } from '../sources/opencode/builder';
import { bundleCli } from '../files/helpers';

let dir: string;
let cli: string;
let ws: string;
let dataDir: string;
let session: TestSession;

function run(args: string[], input = '') {
  return cliRunOf(
    spawnSync(process.execPath, [cli, ...args], {
      cwd: ws,
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: dir,
        AGENT_REWIND_HOME: join(dir, 'home'),
        XDG_DATA_HOME: join(dir, 'data'),
        CODEX_HOME: join(dir, 'no-codex'),
        CLAUDE_CONFIG_DIR: join(dir, 'no-claude'),
        AGENT_REWIND_SERVICE: 'off',
      },
      input,
    }),
  );
}

const db = () => join(dataDir, 'opencode.db');
const sha = () => createHash('sha256').update(readFileSync(db())).digest('hex');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cli-opencode-'));
  cli = join(dir, 'cli.cjs');
  bundleCli(cli);
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dir, 'sql-wasm.wasm'));
  ws = join(dir, 'ws');
  dataDir = join(dir, 'data', 'opencode');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'one\n');
  // ids sort in creation order, as OpenCode's do
  const u1 = userMessage('first prompt');
  const a1 = assistantMessage(u1.id, [{ type: 'text', text: 'first answer' }]);
  const u2 = userMessage('second prompt');
  const a2 = assistantMessage(u2.id, [{ type: 'text', text: 'second answer' }]);
  session = { id: ocId('ses'), directory: ws, title: 'cli session', messages: [u1, a1, u2, a2] };
  const hook = (messageId: string) =>
    assert.equal(
      run(['hook', 'opencode'], JSON.stringify({ hook_event_name: 'chat.message', session_id: session.id, message_id: messageId, cwd: ws })).code,
      0,
    );
  hook(u1.id);
  writeFileSync(join(ws, 'a.txt'), 'two\n');
  writeFileSync(join(ws, 'b.txt'), 'made by prompt 1\n');
  hook(u2.id);
  writeFileSync(join(ws, 'a.txt'), 'three\n');
  rmSync(join(ws, 'b.txt'));
  await writeDb(dataDir, [session]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('sessions, context, rewind-files and undo-rewind on an OpenCode session named by id or by its ref', () => {
  const before = sha();
  const ref = `${db()}#${session.id}`;
  const sessions = run(['sessions', '--json']);
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.deepEqual(
    sessions.json.map((s: { id: string; source: string; ref: string; file: string }) => [s.id, s.source, s.ref, s.file]),
    [[session.id, 'opencode', ref, db()]],
  );
  for (const name of [session.id, ref]) {
    const context = run(['context', name, '--json']);
    assert.equal(context.code, 0, context.stderr);
    assert.deepEqual(
      context.json.messages.map((m: { role: string; content: { text: string }[] }) => `${m.role}: ${m.content[0]!.text}`),
      ['user: first prompt', 'assistant: first answer', 'user: second prompt', 'assistant: second answer'],
    );
  }
  const rewound = run(['rewind-files', session.id, session.messages[2]!.id, '--json']);
  assert.equal(rewound.code, 0, rewound.stderr);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'two\n');
  assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'made by prompt 1\n');
  const undone = run(['undo-rewind', ref, '--json']);
  assert.equal(undone.code, 0, undone.stderr);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'three\n');
  assert.equal(sha(), before, "OpenCode's database is never written");
});
