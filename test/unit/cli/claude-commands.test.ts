// The CLI on Claude Code transcripts, as real processes: read commands accept a transcript path or a session id,
// writing commands are refused by name, rewind writes a fork and prints it, and the transcript's bytes never change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cliRunOf } from '../qa/cli-harness';
import { Transcript } from '../sources/claude/builder';
import { bundleCli } from '../files/helpers';

let dir: string;
let cli: string;
let ws: string;
let config: string;
let file: string;
const ids: Record<string, string> = {};
const SESSION = 'bbbbbbbb-1111-4222-8333-444444444444';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cli-claude-'));
  cli = join(dir, 'cli.cjs');
  bundleCli(cli);
  ws = join(dir, 'ws');
  config = join(dir, 'claude');
  mkdirSync(ws);
  const t = new Transcript(SESSION, ws);
  ids.p1 = t.user(null, 'first question', { promptId: 'p-1' });
  ids.a1 = t.text(ids.p1, 'msg_1', 'first answer');
  ids.p2 = t.user(ids.a1, 'second question', { promptId: 'p-2' });
  ids.a2 = t.text(ids.p2, 'msg_2', 'second answer');
  // a rewind made in Claude Code: the second question asked again from the first answer, later
  ids.p2b = t.user(ids.a1, 'second question, better', { promptId: 'p-3' });
  ids.a2b = t.text(ids.p2b, 'msg_3', 'better answer');
  file = t.write(config, '-ws');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = () => createHash('sha256').update(readFileSync(file)).digest('hex');

function run(args: string[]) {
  return cliRunOf(
    spawnSync(process.execPath, [cli, ...args], {
      cwd: ws,
      encoding: 'utf8',
      env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: config },
      input: '',
    }),
  );
}

test('sessions lists the Claude Code session of the folder; branches, context and tree read it by path or id', () => {
  const before = sha();
  const sessions = run(['sessions', '--json']);
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.deepEqual(
    sessions.json.map((s: { id: string; source: string }) => [s.id, s.source]),
    [[SESSION, 'claude']],
  );

  const branches = run(['branches', SESSION, '--json']);
  assert.equal(branches.code, 0, branches.stderr);
  assert.deepEqual(branches.json.map((b: { name: string; isActive: boolean }) => [b.name, b.isActive]).sort(), [
    ['main', true],
    [`tip-${ids.a2}`, false],
  ]);

  const context = run(['context', file, '--json']);
  assert.equal(context.code, 0, context.stderr);
  assert.deepEqual(
    context.json.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
  );
  assert.equal(context.json.messages[2].content, 'second question, better');

  const tree = run(['tree', SESSION.slice(0, 8)]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /second question, better/);
  assert.equal(sha(), before);
});

test('writing commands are refused by name and change nothing', () => {
  const before = sha();
  const state = run(['state', file]);
  assert.equal(state.code, 1);
  assert.match(state.stderr, /state does not apply to Claude Code sessions: session state and artifacts are agent-rewind's own records/);
  for (const args of [
    ['append', file, '--role', 'user', '--text', 'x'],
    ['switch', file, 'main'],
    ['checkpoint', file, 'good'],
  ]) {
    const r = run(args);
    assert.equal(r.code, 1, `${args[0]}: ${r.stdout}`);
    assert.match(r.stderr, /this is a Claude Code session, and agent-rewind never writes to Claude Code's files/, args[0]);
  }
  assert.equal(sha(), before);
});

test('rewind writes a fork beside it and prints its id and file; the first prompt cannot be forked', () => {
  const before = sha();
  const r = run(['rewind', file, ids.p2b!, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.json.sessionId, /^[0-9a-f-]{36}$/);
  assert.equal(dirname(r.json.sessionRef), dirname(file));
  assert.deepEqual(r.json.resumeCommand, ['claude', '--resume', r.json.sessionId]);
  assert.equal(r.json.promptText, 'second question, better');
  const forkContext = run(['context', r.json.sessionRef, '--json']);
  assert.deepEqual(
    forkContext.json.messages.map((m: { content: unknown }) => m.content),
    ['first question', [{ type: 'text', text: 'first answer' }]],
  );

  const first = run(['rewind', file, ids.p1!]);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /first prompt of the session/);
  assert.equal(sha(), before);
});

test('sessions has a header and no "?" for a count the listing does not know; a rewind-files that cannot be done names the message id the user gave, on stderr', () => {
  const sessions = run(['sessions']);
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.match(sessions.stdout, /^STARTED +AGENT +ENTRIES +ID +TITLE\n +SESSION\n/);
  assert.doesNotMatch(sessions.stdout, / \? /);
  // no hooks ran, so the prompt has no snapshot: the reason names ids.p1, never the prompt id or an internal key
  for (const args of [['--dry-run'], ['--dry-run', '--json'], []]) {
    const r = run(['rewind-files', file, ids.p1!, ...args]);
    assert.equal(r.code, 1, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^agent-rewind rewind-files: Message ${ids.p1} has no file snapshot`));
    assert.doesNotMatch(r.stderr, /entry:|p-1/);
  }
});
