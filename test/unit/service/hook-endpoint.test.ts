// The checkpoint service's hook endpoint (HTTP on <home>/service/hook.sock): what it answers and refuses, and that an
// answered hook leaves exactly what the fresh-process hook (`agent-rewind hook claude|codex`) leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CheckpointService, readSecret } from '../../../src/core/service';
import { hookSocketPath, serviceDir } from '../../../src/core/service/paths';
import { MAX_HOOK_BODY_BYTES } from '../../../src/core/service/hook-endpoint';
import { cliCheckpointerOptions } from '../../../src/core/settings/settings-file';
import { FileCheckpointer } from '../../../src/core/files';
import { readPromptRecords } from '../../../src/core/sources/claude/prompt-records';
import { readVsPromptRecords } from '../../../src/core/sources/vscode-chat/prompt-records';
import { runAgentHook } from '../../../src/cli/commands/hook';
import { hookLogFile } from '../../../src/core/sources/claude/hook-log';
import { tempBase, writeTree } from '../files/helpers';

export async function hookSetup(prefix: string) {
  const base = await tempBase(prefix);
  chmodSync(base.dir, 0o755);
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  const other = join(base.dir, 'other');
  await writeTree(ws, { 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
  await writeTree(other, { 'c.txt': 'three\n' });
  // the settings the service and every hook read: this file, not the machine's VS Code settings
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.json'), '{}\n');
  const logs: string[] = [];
  const service = new CheckpointService({
    home,
    workspaces: [ws],
    checkpointer: (root) => cliCheckpointerOptions(home, root, () => {}),
    trace: true,
    log: (m) => logs.push(m),
  });
  await service.start();
  return { base, home, ws: realpathSync(ws), other: realpathSync(other), service, logs };
}

/** POSTs a body to the hook socket with a deadline (seconds since the epoch; 28 s from now unless given, null: none);
 *  resolves with the status code and the answer's code. */
function answer(
  home: string,
  path: string,
  body: Buffer | string,
  deadline: number | null = Math.floor(Date.now() / 1000) + 28,
): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(body) };
    if (deadline !== null) headers['x-agent-rewind-deadline'] = deadline;
    const req = request({ socketPath: hookSocketPath(home), path, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(text) as { code: string }).code }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const post = async (home: string, path: string, body: Buffer | string) => (await answer(home, path, body)).status;
const declined = async (home: string, path: string, body: string) => {
  const a = await answer(home, path, body);
  return `${a.status} ${a.code}`;
};

const promptInput = (ws: string, promptId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'sess-1', prompt_id: promptId, prompt: 'héllo', cwd: ws, transcript_path: '', ...extra });

async function snapshotsOf(ws: string, home: string, session = 'sess-1') {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await fc.listSnapshots(session)).map((s) => ({ anchorId: s.anchorId, kind: s.kind, root: s.root }));
  } finally {
    await fc.dispose();
  }
}

async function scratchRoot(ws: string, dir: string): Promise<string> {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(dir, `scratch-${Math.random().toString(36).slice(2)}`) });
  try {
    return (await fc.snapshot('x', 'x')).root;
  } finally {
    await fc.dispose();
  }
}

const hookLog = (home: string) => (existsSync(hookLogFile(home)) ? readFileSync(hookLogFile(home), 'utf8') : '');

test('the hook socket is 0600 in a 0700 folder, and goes away with the service', async () => {
  const { base, home, service } = await hookSetup('arw-hook-ep-');
  try {
    assert.equal(service.hookSocket, hookSocketPath(home));
    assert.ok(lstatSync(hookSocketPath(home)).isSocket());
    assert.equal(lstatSync(hookSocketPath(home)).mode & 0o777, 0o600);
    assert.equal(lstatSync(serviceDir(home)).mode & 0o777, 0o700);
    await service.stop();
    assert.equal(existsSync(hookSocketPath(home)), false);
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a wrong or missing secret is 401 and takes no snapshot; unknown paths are 404', async () => {
  const { base, home, ws, service } = await hookSetup('arw-hook-ep-');
  try {
    assert.equal(await post(home, '/hook/claude', `${'0'.repeat(64)}\n${ws}\n${promptInput(ws, 'p-1')}`), 401);
    assert.equal(await post(home, '/hook/claude', promptInput(ws, 'p-1')), 401);
    assert.equal(await post(home, '/hook/codex', ''), 401);
    assert.equal(await post(home, '/hook/other', `${readSecret(home)}\n\n{}`), 404);
    assert.deepEqual(await snapshotsOf(ws, home), []);
    assert.equal(hookLog(home), '');
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a folder the service does not serve, or not with the CLI hook options, is 409 with nothing written', async () => {
  const { base, home, ws, other, service } = await hookSetup('arw-hook-ep-');
  try {
    const secret = readSecret(home)!;
    assert.equal(await declined(home, '/hook/claude', `${secret}\n\n${promptInput(other, 'p-1')}`), '409 not-served');
    assert.equal(await declined(home, '/hook/claude', `${secret}\n${other}\n${promptInput(ws, 'p-1')}`), '409 not-served', 'CLAUDE_PROJECT_DIR wins over cwd');
    assert.equal(
      await declined(home, '/hook/codex', `${secret}\n\n${JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's', turn_id: 't', cwd: other })}`),
      '409 not-served',
    );
    // the settings file now says otherwise than when the service started: a fresh hook would snapshot differently
    writeFileSync(join(home, 'config.json'), JSON.stringify({ 'agentRewind.fileCheckpointing.exclude': ['**/*.log'] }));
    assert.equal(await declined(home, '/hook/claude', `${secret}\n${ws}\n${promptInput(ws, 'p-1')}`), '409 options-differ');
    assert.deepEqual(await snapshotsOf(ws, home), []);
    assert.deepEqual(readPromptRecords(home, 'sess-1'), []);
    assert.equal(hookLog(home), '', 'a declined hook is the fresh process’s to log');
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a body over the limit is 413; bad input is 400 and logged as the CLI hook logs it', async () => {
  const { base, home, ws, service } = await hookSetup('arw-hook-ep-');
  try {
    const secret = readSecret(home)!;
    assert.equal(await post(home, '/hook/claude', Buffer.alloc(MAX_HOOK_BODY_BYTES + 1, 0x20)), 413);
    assert.equal(await post(home, '/hook/claude', `${secret}\n${ws}\n{not json`), 400);
    assert.match(hookLog(home), /stdin is not JSON/);
    assert.equal(await post(home, '/hook/claude', `${secret}\n${ws}\n${JSON.stringify({ hook_event_name: 'UserPromptSubmit' })}`), 400);
    assert.match(hookLog(home), /invalid hook input: session_id/);
    assert.equal(await post(home, '/hook/claude', `${secret}\nno second line`), 400);
    assert.equal(await post(home, '/hook/codex', `${secret}\n\n{"hook_event_name":"Stop"}`), 400);
    assert.match(readFileSync(join(home, 'logs', 'codex-hooks.log'), 'utf8'), /not a Codex hook payload/);
    assert.deepEqual(await snapshotsOf(ws, home), []);
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('UserPromptSubmit and Stop through the endpoint: the snapshots a fresh process takes, the same prompt record', async () => {
  const { base, home, ws, service, logs } = await hookSetup('arw-hook-ep-');
  try {
    const secret = readSecret(home)!;
    await writeFile(join(ws, 'a.txt'), 'changed right before the prompt\n');
    assert.equal(await post(home, '/hook/claude', `${secret}\n${ws}\n${promptInput(ws, 'p-1')}`), 200);
    assert.ok(logs.some((l) => l.startsWith(`hook claude ${ws} ok `)));
    const atPrompt = await scratchRoot(ws, base.dir);
    await writeFile(join(ws, 'new.txt'), 'by the agent\n');
    const stop = JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1', prompt_id: 'p-1', cwd: ws, stop_hook_active: false });
    assert.equal(await post(home, '/hook/claude', `${secret}\n\n${stop}`), 200);
    const atEnd = await scratchRoot(ws, base.dir);
    assert.deepEqual(await snapshotsOf(ws, home), [
      { anchorId: 'p-1', kind: 'user-message', root: atPrompt },
      { anchorId: 'p-1:turn-end', kind: 'turn-end', root: atEnd },
    ]);
    // the fresh-process hook on the same input, in another home: the same record (but the time)
    const home2 = join(base.dir, 'home2');
    await runAgentHook(['claude'], { stdin: Readable.from([Buffer.from(promptInput(ws, 'p-1'))]), env: { AGENT_REWIND_HOME: home2, CLAUDE_PROJECT_DIR: ws } });
    const strip = ({ at, ...r }: { at: string }) => (assert.ok(at), r);
    assert.deepEqual(readPromptRecords(home, 'sess-1').map(strip), readPromptRecords(home2, 'sess-1').map(strip));
    assert.equal(readPromptRecords(home, 'sess-1').length, 1);
    assert.equal(hookLog(home), '');
    // Codex: the turn id is the anchor
    const codex = { hook_event_name: 'UserPromptSubmit', session_id: 'cx-1', turn_id: 'turn-7', cwd: ws, transcript_path: null };
    assert.equal(await post(home, '/hook/codex', `${secret}\n\n${JSON.stringify(codex)}`), 200);
    assert.deepEqual(
      (await snapshotsOf(ws, home, 'cx-1')).map((s) => [s.anchorId, s.kind, s.root]),
      [['turn-7', 'user-message', atEnd]],
    );
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test("VS Code's agent calling our Claude Code hook file through the endpoint is filed as VS Code's chat session", async () => {
  const { base, home, ws, service } = await hookSetup('arw-hook-ep-vs-');
  try {
    const secret = readSecret(home)!;
    const session = '3b1f0c2e-7d4a-4e8b-9c1d-2a3b4c5d6e7f';
    const input = {
      hook_event_name: 'UserPromptSubmit',
      session_id: session,
      prompt: 'create a.txt',
      cwd: ws,
      transcript_path: join(base.dir, 'ud', 'User', 'workspaceStorage', '3835ed9c', 'GitHub.copilot-chat', 'transcripts', `${session}.jsonl`),
    };
    assert.equal(await post(home, '/hook/claude', `${secret}\n${ws}\n${JSON.stringify(input)}`), 200);
    const [rec] = readVsPromptRecords(home, session);
    assert.match(rec!.anchorId, /^prompt-/);
    assert.deepEqual(readPromptRecords(home, session), []);
    assert.deepEqual(
      (await snapshotsOf(ws, home, session)).map((s) => [s.anchorId, s.kind]),
      [[rec!.anchorId, 'user-message']],
    );
  } finally {
    await service.stop();
    await base.cleanup();
  }
});
