// The CLI on Codex rollouts, as real processes: sessions lists the folder's rollout, branches shows a Codex rollback as
// a branch, context is what Codex would send, writing commands are refused by name, and rewind writes a fork rollout
// and prints it; the rollout's bytes never change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliRunOf } from '../qa/cli-harness';
import { Rollout } from '../sources/codex/builder';
import { bundleCli } from '../files/helpers';

const THREAD = '01a20aad-bbbb-7000-8000-000000000002';
let dir: string;
let cli: string;
let ws: string;
let codexHome: string;
let file: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cli-codex-'));
  cli = join(dir, 'cli.cjs');
  bundleCli(cli);
  ws = join(dir, 'ws');
  codexHome = join(dir, 'codexhome');
  mkdirSync(ws);
  const r = new Rollout(THREAD, ws).turn('first question', 't1').say('first answer').end();
  r.turn('second question', 't2').say('second answer').end();
  // a backtrack made in Codex: the second question dropped and asked again
  r.rollback(1).turn('second question, better', 't3').say('better answer').end();
  file = r.write(codexHome);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = () => createHash('sha256').update(readFileSync(file)).digest('hex');

function run(args: string[]) {
  return cliRunOf(
    spawnSync(process.execPath, [cli, ...args], {
      cwd: ws,
      encoding: 'utf8',
      env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: join(dir, 'home'), CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: join(dir, 'no-claude') },
      input: '',
    }),
  );
}

test('sessions lists the Codex session of the folder; branches, context and tree read it by path or id', () => {
  const before = sha();
  const sessions = run(['sessions', '--json']);
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.deepEqual(
    sessions.json.map((s: { id: string; source: string }) => [s.id, s.source]),
    [[THREAD, 'codex']],
  );

  const branches = run(['branches', THREAD, '--json']);
  assert.equal(branches.code, 0, branches.stderr);
  assert.deepEqual(branches.json.map((b: { name: string; isActive: boolean }) => b.isActive).sort(), [false, true]);
  assert.ok(branches.json.some((b: { name: string }) => b.name === 'main'));

  const context = run(['context', file, '--json']);
  assert.equal(context.code, 0, context.stderr);
  assert.deepEqual(
    context.json.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
  );
  assert.deepEqual(context.json.messages[2].content, [{ type: 'text', text: 'second question, better' }]);

  const tree = run(['tree', THREAD.slice(0, 13)]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /second question, better/);
  assert.equal(sha(), before);
});

test('writing commands are refused by name and change nothing', () => {
  const before = sha();
  for (const args of [
    ['append', file, '--role', 'user', '--text', 'x'],
    ['switch', file, 'main'],
    ['checkpoint', file, 'good'],
  ]) {
    const r = run(args);
    assert.equal(r.code, 1, `${args[0]}: ${r.stdout}`);
    assert.match(r.stderr, /this is a Codex session, and agent-rewind never writes to Codex's files/, args[0]);
  }
  assert.equal(sha(), before);
});

test('rewind writes a fork rollout and prints its id and file; the first prompt cannot be forked', () => {
  const before = sha();
  const p3 = findPrompt('second question, better');
  const r = run(['rewind', file, p3, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.json.sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  assert.ok(r.json.sessionRef.startsWith(join(codexHome, 'sessions')));
  assert.deepEqual(r.json.resumeCommand, ['codex', 'resume', r.json.sessionId]);
  assert.equal(r.json.promptText, 'second question, better');
  const forkContext = run(['context', r.json.sessionRef, '--json']);
  assert.deepEqual(
    forkContext.json.messages.map((m: { content: { text: string }[] }) => m.content[0]!.text),
    ['first question', 'first answer'],
  );

  const first = run(['rewind', file, findPrompt('first question')]);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /first prompt of the session/);
  assert.equal(sha(), before);
});

/** The entry id of a prompt (line numbers: the builder's lines are known, so read them back). */
function findPrompt(text: string): string {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const i = lines.findIndex((l) => l.includes('"response_item"') && l.includes(`"text":"${text}"`));
  assert.ok(i >= 0, text);
  return `l${i + 1}`;
}
