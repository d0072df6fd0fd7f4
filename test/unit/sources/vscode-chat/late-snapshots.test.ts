// Without our hooks, a VS Code chat request gets its snapshot when it appears in the log: once, under its request id,
// only while it is recent, never when our hooks are installed; the preview says how late it was taken.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runAgentHook } from '../../../../src/cli/commands/hook';
import { RewindEngine } from '../../../../src/core/engine/engine';
import { FileCheckpointer } from '../../../../src/core/files/file-checkpointer';
import { parseSettings } from '../../../../src/core/settings/settings';
import { readLateSnapshotRecords } from '../../../../src/core/sources/vscode-chat/late-snapshots';
import { VsChatSource } from '../../../../src/core/sources/vscode-chat/vscode-chat-source';
import { SessionSources } from '../../../../src/core/sources/session-sources';
import { agentById } from '../../../../src/core/sources/registry';
import { initialState, lines, plantSession, request, SESSION_ID } from './builder';

let dir: string;
let home: string;
let ws: string;
let ud: string;
let engine: RewindEngine;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-vschat-late-'));
  home = join(dir, 'home');
  ws = join(dir, 'ws');
  ud = join(dir, 'ud');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'before the request');
  engine = new RewindEngine({
    settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
    workspaceRoots: [ws],
    warn: () => {},
    foreignSources: () => [new VsChatSource({ home, env: { AGENT_REWIND_VSCODE_USER_DATA: ud }, userHome: join(dir, 'nohome') })],
  });
});
afterEach(async () => {
  await engine.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A session log with one request sent `agoMs` ago, in the workspace. */
function logWith(agoMs: number): string {
  return plantSession(ud, 'w1', lines({ kind: 0, v: initialState({ requests: [request(1, 'first', { folder: ws, at: Date.now() - agoMs })] }) }));
}

async function snapshotAnchors(): Promise<string[]> {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await fc.listSnapshots(SESSION_ID)).filter((r) => r.kind === 'user-message').map((r) => r.anchorId);
  } finally {
    await fc.dispose();
  }
}

test('a new request gets one snapshot under its request id, not twice; the next request its own; the preview says how late', async () => {
  const log = logWith(3_000);
  const first = await engine.snapshotNewPrompts(log);
  assert.deepEqual(
    first.taken.map((t) => t.entryId),
    ['request_0001'],
  );
  assert.ok(first.taken[0]!.lagMs >= 3_000 && first.taken[0]!.lagMs < 60_000, `lag ${first.taken[0]!.lagMs}`);
  // the log changes again (VS Code writes the response): the request keeps its one snapshot
  appendFileSync(log, lines({ kind: 1, k: ['requests', 0, 'result'], v: { timings: { totalElapsed: 1 } } }));
  assert.deepEqual(await engine.snapshotNewPrompts(log), { taken: [], skipped: [] });
  assert.deepEqual(await snapshotAnchors(), ['request_0001']);

  // the agent changes a file after the snapshot; a second request appears
  writeFileSync(join(ws, 'a.txt'), 'changed by the agent');
  appendFileSync(log, lines({ kind: 2, k: ['requests'], v: [request(2, 'second', { folder: ws, at: Date.now() - 1_000 })] }));
  const second = await engine.snapshotNewPrompts(log);
  assert.deepEqual(
    second.taken.map((t) => t.entryId),
    ['request_0002'],
  );
  assert.deepEqual((await snapshotAnchors()).sort(), ['request_0001', 'request_0002']);
  const late = readLateSnapshotRecords(home, SESSION_ID);
  assert.deepEqual([...late.keys()], ['request_0001', 'request_0002']);

  // the preview of the first request finds the snapshot under its request id and says it was taken late
  const preview = await engine.previewRewind(log, 'request_0001');
  assert.ok(preview.files.ok, JSON.stringify(preview.files));
  assert.deepEqual(preview.files.filesChanged, ['a.txt']);
  const seconds = ((late.get('request_0001')!.takenAtMs - late.get('request_0001')!.requestAtMs) / 1000).toFixed(1);
  assert.match(preview.files.note ?? '', new RegExp(`taken ${seconds.replace('.', '\\.')} s after the request was sent`));
  assert.match(preview.files.note ?? '', /changes the agent made in those seconds are in it/);
  await engine.rewindFiles(log, 'request_0001');
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'before the request');
});

test("the preview offers VS Code's own commands for the conversation, on the request it previews", async () => {
  const log = logWith(3_000);
  await engine.snapshotNewPrompts(log);
  const preview = await engine.previewRewind(log, 'request_0001');
  assert.deepEqual(preview.editorChat, { agent: 'VS Code chat', sessionId: SESSION_ID, requestId: 'request_0001' });
  assert.ok(!preview.conversation.ok && /Restore Checkpoint/.test(preview.conversation.error), JSON.stringify(preview.conversation));
  assert.deepEqual(await engine.editorChatTarget(log, 'request_0001'), { sessionId: SESSION_ID, requestId: 'request_0001', requestText: 'first' });
  assert.equal(await engine.editorChatTarget(log, 'request_9999'), undefined);
});

test('a request seen long after it was sent gets none (the workspace is no longer what it was sent in)', async () => {
  const log = logWith(10 * 60_000);
  const r = await engine.snapshotNewPrompts(log);
  assert.deepEqual(r.taken, []);
  assert.deepEqual(
    r.skipped.map((s) => s.entryId),
    ['request_0001'],
  );
  assert.deepEqual(await snapshotAnchors(), []);
  assert.equal(readLateSnapshotRecords(home, SESSION_ID).size, 0);
  const preview = await engine.previewRewind(log, 'request_0001');
  assert.doesNotMatch(JSON.stringify(preview.files), /after the request was sent/);
});

test('with our hooks installed in the workspace, none: the hooks take the snapshots', async () => {
  await agentById('vscode-chat')!.hooks!.install({ scope: 'workspace', workspace: ws }, { command: '/usr/bin/agent-rewind' });
  const log = logWith(2_000);
  assert.deepEqual(await engine.snapshotNewPrompts(log), { taken: [], skipped: [] });
  assert.deepEqual(await snapshotAnchors(), []);
});

test('two log changes at once snapshot the request once', async () => {
  const log = logWith(1_000);
  const both = await Promise.all([engine.snapshotNewPrompts(log), engine.snapshotNewPrompts(log)]);
  assert.equal(both.flatMap((r) => r.taken).length, 1);
  assert.deepEqual(await snapshotAnchors(), ['request_0001']);
  assert.equal(
    readFileSync(join(home, 'vscode-chat', 'late', `${SESSION_ID}.jsonl`), 'utf8')
      .trim()
      .split('\n').length,
    1,
  );
});

test('only the newest request: an older one without a snapshot is left alone', async () => {
  const log = plantSession(
    ud,
    'w1',
    lines({
      kind: 0,
      v: initialState({
        requests: [request(1, 'first', { folder: ws, at: Date.now() - 4_000 }), request(2, 'second', { folder: ws, at: Date.now() - 1_000 })],
      }),
    }),
  );
  const r = await engine.snapshotNewPrompts(log);
  assert.deepEqual(
    r.taken.map((t) => t.entryId),
    ['request_0002'],
  );
  assert.deepEqual(await snapshotAnchors(), ['request_0002']);
});

test("a request a hook already snapshotted (VS Code ran another agent's hook file) gets no second one", async () => {
  const at = Date.now() - 2_000;
  // VS Code's call, recognised by its transcript path under the window's storage folder
  const transcript = join(ud, 'User', 'workspaceStorage', 'w1', 'GitHub.copilot-chat', 'transcripts', `${SESSION_ID}.jsonl`);
  const input = { hook_event_name: 'UserPromptSubmit', session_id: SESSION_ID, transcript_path: transcript, cwd: ws, prompt: 'first' };
  const hooked = await runAgentHook(['claude'], { stdin: Readable.from([Buffer.from(JSON.stringify(input))]), env: { AGENT_REWIND_HOME: home } });
  assert.equal(hooked, 0);
  const [hookAnchor] = await snapshotAnchors();
  assert.match(hookAnchor ?? '', /^prompt-/);
  const log = plantSession(ud, 'w1', lines({ kind: 0, v: initialState({ requests: [request(1, 'first', { folder: ws, at })] }) }));
  assert.deepEqual(await engine.snapshotNewPrompts(log), { taken: [], skipped: [] });
  assert.deepEqual(await snapshotAnchors(), [hookAnchor]);
});

test("the window's own storage folder is watched before VS Code makes its chatSessions folder (the workspace's first chat)", async () => {
  // VS Code creates chatSessions/ at the first request; the extension, active before, watches the folders it got then
  const storage = join(ud, 'User', 'workspaceStorage', 'fresh');
  mkdirSync(storage, { recursive: true });
  const source = new VsChatSource({ home, editorStorage: storage, env: { AGENT_REWIND_VSCODE_USER_DATA: ud }, userHome: join(dir, 'nohome') });
  assert.deepEqual(
    source.watchFolders().map((w) => w.path),
    [storage],
  );
  const log = join(storage, 'chatSessions', `${SESSION_ID}.jsonl`);
  mkdirSync(join(storage, 'chatSessions'));
  writeFileSync(log, lines({ kind: 0, v: initialState({ requests: [request(1, 'first', { folder: ws, at: Date.now() - 1_000 })] }) }));
  const ctx = { settings: {} as never, workspaceRoots: [ws], warn: () => {} };
  assert.deepEqual(await new SessionSources([source]).refsOfChange(log, ctx), [log]);
  // another window's folder without chat sessions is not watched (there are many)
  mkdirSync(join(ud, 'User', 'workspaceStorage', 'other-window'), { recursive: true });
  assert.deepEqual(
    source.watchFolders().map((w) => w.path),
    [storage],
  );
});
