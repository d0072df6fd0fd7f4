// VS Code's hooks: our file in the workspace's .github/hooks, the handler, and VS Code's calls of another agent's hook
// file (Claude Code's, which VS Code also runs) recognised and filed as VS Code's.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { runAgentHook } from '../../../../src/cli/commands/hook';
import { FileCheckpointer } from '../../../../src/core/files/file-checkpointer';
import { agentById, hookHandlerFor } from '../../../../src/core/sources/registry';
import { readPromptRecords } from '../../../../src/core/sources/claude/prompt-records';
import { readVsPromptRecords, sha256Hex } from '../../../../src/core/sources/vscode-chat/prompt-records';
import { HooksSettingsError } from '../../../../src/core/sources/agent';
import { SESSION_ID } from './builder';

let dir: string;
let home: string;
let ws: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-vschat-hooks-'));
  home = join(dir, 'home');
  ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'A');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const vscode = () => agentById('vscode-chat')!;
const hooksFile = () => join(ws, '.github', 'hooks', 'agent-rewind.json');
const launcher = { command: '/opt/agent rewind/bin/agent-rewind' };
/** A hook input as VS Code 1.139's agent sends it. */
const vsInput = (event: string, extra: Record<string, unknown> = {}) => ({
  timestamp: new Date().toISOString(),
  hook_event_name: event,
  session_id: SESSION_ID,
  transcript_path: join(dir, 'ud', 'User', 'workspaceStorage', '3835ed9c', 'GitHub.copilot-chat', 'transcripts', `${SESSION_ID}.jsonl`),
  cwd: ws,
  ...extra,
});
const run = (agent: string, input: unknown) =>
  runAgentHook([agent], { stdin: Readable.from([Buffer.from(JSON.stringify(input))]), env: { AGENT_REWIND_HOME: home } });

async function snapshotsOf(sessionId: string): Promise<[string, string][]> {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await fc.listSnapshots(sessionId)).map((s) => [s.anchorId, s.kind]);
  } finally {
    await fc.dispose();
  }
}

test('install writes our handlers in .github/hooks/agent-rewind.json; again changes nothing; uninstall removes the file', async () => {
  const target = { scope: 'workspace' as const, workspace: ws };
  const first = await vscode().hooks!.install(target, launcher);
  assert.equal(first.file, hooksFile());
  assert.deepEqual((first.result as { added: string[] }).added, ['UserPromptSubmit', 'Stop']);
  const doc = JSON.parse(readFileSync(hooksFile(), 'utf8')) as { hooks: Record<string, { type: string; command: string }[]> };
  assert.deepEqual(Object.keys(doc.hooks), ['UserPromptSubmit', 'Stop']);
  assert.equal(doc.hooks.UserPromptSubmit![0]!.type, 'command');
  assert.equal(doc.hooks.UserPromptSubmit![0]!.command, "'/opt/agent rewind/bin/agent-rewind' hook vscode-chat");
  const bytes = readFileSync(hooksFile());
  const again = await vscode().hooks!.install(target, launcher);
  assert.deepEqual((again.result as { alreadyPresent: string[] }).alreadyPresent, ['UserPromptSubmit', 'Stop']);
  assert.deepEqual(readFileSync(hooksFile()), bytes);
  assert.deepEqual(await vscode().hooks!.installed(target), ['UserPromptSubmit', 'Stop']);
  const gone = await vscode().hooks!.uninstall(target);
  assert.deepEqual((gone.result as { removed: string[] }).removed, ['UserPromptSubmit', 'Stop']);
  assert.equal(existsSync(hooksFile()), false);
  assert.deepEqual(await vscode().hooks!.installed(target), []);
});

test("someone else's handler in our file is kept, by install and by uninstall; bad files and linked folders are refused", async () => {
  const target = { scope: 'workspace' as const, workspace: ws };
  mkdirSync(join(ws, '.github', 'hooks'), { recursive: true });
  const theirs = { type: 'command', command: 'echo theirs' };
  writeFileSync(hooksFile(), JSON.stringify({ hooks: { Stop: [theirs] } }));
  await vscode().hooks!.install(target, { command: '/usr/bin/agent-rewind' });
  let doc = JSON.parse(readFileSync(hooksFile(), 'utf8')) as { hooks: Record<string, unknown[]> };
  assert.deepEqual(doc.hooks.Stop![0], theirs);
  assert.equal(doc.hooks.Stop!.length, 2);
  // a new launcher path updates ours in place
  const moved = await vscode().hooks!.install(target, { command: '/usr/local/bin/agent-rewind' });
  assert.deepEqual((moved.result as { updated: string[] }).updated, ['UserPromptSubmit', 'Stop']);
  await vscode().hooks!.uninstall(target);
  doc = JSON.parse(readFileSync(hooksFile(), 'utf8')) as { hooks: Record<string, unknown[]> };
  assert.deepEqual(doc.hooks, { Stop: [theirs] });
  writeFileSync(hooksFile(), '{oops');
  await assert.rejects(vscode().hooks!.install(target, launcher), (e: Error) => e instanceof HooksSettingsError && /not valid JSON/.test(e.message));
  assert.equal(readFileSync(hooksFile(), 'utf8'), '{oops');
  await assert.rejects(vscode().hooks!.install({ scope: 'user' }, launcher), HooksSettingsError);
  const ws2 = join(dir, 'ws2');
  mkdirSync(ws2);
  mkdirSync(join(dir, 'elsewhere'));
  symlinkSync(join(dir, 'elsewhere'), join(ws2, '.github'));
  await assert.rejects(vscode().hooks!.install({ scope: 'workspace', workspace: ws2 }, launcher), /symbolic link/);
});

test('`hooks install vscode` (an alias) installs them from the CLI, in the folder given', () => {
  const root = join(__dirname, '../../../..');
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'src/cli/main.ts'),
      'hooks',
      'install',
      'vscode',
      '--cwd',
      ws,
      '--no-baseline',
      '--command',
      '/usr/bin/agent-rewind',
      '--home',
      home,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /VS Code chat hooks \(workspace\): added UserPromptSubmit, Stop/);
  const doc = JSON.parse(readFileSync(hooksFile(), 'utf8')) as { hooks: Record<string, { command: string }[]> };
  assert.equal(doc.hooks.Stop![0]!.command, '/usr/bin/agent-rewind hook vscode-chat');
});

test('UserPromptSubmit snapshots under an anchor of its own and records the prompt; Stop takes the turn-end one', async () => {
  assert.equal(await run('vscode-chat', vsInput('SessionStart', { source: 'new', model: 'fakelm/fake-model' })), 0);
  assert.equal(await run('vscode-chat', vsInput('UserPromptSubmit', { prompt: 'create a.txt' })), 0);
  writeFileSync(join(ws, 'b.txt'), 'B');
  assert.equal(await run('vscode-chat', vsInput('Stop', { stop_hook_active: false })), 0);
  const [rec] = readVsPromptRecords(home, SESSION_ID);
  assert.match(rec!.anchorId, /^prompt-/);
  assert.equal(rec!.promptSha256, sha256Hex('create a.txt'));
  assert.deepEqual(await snapshotsOf(SESSION_ID), [
    [rec!.anchorId, 'user-message'],
    [`${rec!.anchorId}:turn-end`, 'turn-end'],
  ]);
  assert.equal(existsSync(join(home, 'logs', 'vscode-chat-hooks.log')), false);
  // bad input: logged, nothing snapshotted
  await run('vscode-chat', vsInput('UserPromptSubmit', { session_id: '../escape', prompt: 'x' }));
  await run('vscode-chat', vsInput('UserPromptSubmit', { cwd: join(dir, 'missing'), prompt: 'x' }));
  const log = readFileSync(join(home, 'logs', 'vscode-chat-hooks.log'), 'utf8');
  assert.match(log, /not a usable id/);
  assert.match(log, /no workspace/);
  assert.equal(readVsPromptRecords(home, SESSION_ID).length, 1);
});

test("VS Code's calls of Claude Code's hook file are VS Code's: recognised by its transcript, filed under the chat session", async () => {
  const claude = agentById('claude')!.hooks!;
  assert.equal(hookHandlerFor(claude, JSON.stringify(vsInput('UserPromptSubmit'))), vscode().hooks);
  const claudeInput = {
    hook_event_name: 'UserPromptSubmit',
    session_id: 's-1',
    prompt: 'p',
    cwd: ws,
    transcript_path: join(dir, '.claude', 'projects', 'x', 's-1.jsonl'),
  };
  assert.equal(hookHandlerFor(claude, JSON.stringify(claudeInput)), claude);
  assert.equal(hookHandlerFor(claude, 'not json'), claude);
  assert.equal(await run('claude', vsInput('UserPromptSubmit', { prompt: 'through the claude file' })), 0);
  assert.equal(readVsPromptRecords(home, SESSION_ID).length, 1);
  assert.deepEqual(readPromptRecords(home, SESSION_ID), []);
  assert.equal((await snapshotsOf(SESSION_ID)).length, 1);
});
