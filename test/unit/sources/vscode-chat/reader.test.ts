// A VS Code chat session read into the session model, listed for its workspace, and never written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readVsChatSession } from '../../../../src/core/sources/vscode-chat/reader';
import { VsChatSource } from '../../../../src/core/sources/vscode-chat/vscode-chat-source';
import { SessionSources } from '../../../../src/core/sources/session-sources';
import { appendVsPromptRecord, sha256Hex } from '../../../../src/core/sources/vscode-chat/prompt-records';
import type { AgentMessage, MessageEntry } from '../../../../src/core/session/types';
import { fileUri, initialState, lines, plantSession, request, SESSION_ID, T0 } from './builder';

function tmp(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-vschat-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Three requests as Copilot's agent writes them: markdown, a create_file call, a run_in_terminal call. */
function agentLog(ws: string): string {
  const r1 = request(1, 'create a.txt', {
    folder: ws,
    response: [
      { kind: 'mcpServersStarting' },
      { value: 'I will create it.', baseUri: fileUri(ws + '/') },
      {
        kind: 'toolInvocationSerialized',
        toolId: 'copilot_createFile',
        toolCallId: 'call_1_0',
        invocationMessage: { value: 'Creating a.txt' },
        pastTenseMessage: { value: 'Created a.txt' },
        isConfirmed: { type: 1 },
        isComplete: true,
        source: { type: 'internal', label: 'Built-In' },
      },
      { kind: 'textEditGroup', uri: fileUri(ws + '/a.txt'), edits: [[{ text: 'A', range: {} }]], done: true },
      { kind: 'undoStop', id: 'stop1' },
      { value: ' Done.' },
    ],
  });
  (r1 as { result?: unknown }).result = {
    metadata: {
      toolCallRounds: [
        { response: '', toolCalls: [{ name: 'create_file', arguments: JSON.stringify({ filePath: ws + '/a.txt', content: 'A' }), id: 'call_1_0__vscode-17' }] },
      ],
    },
  };
  const r2 = request(2, 'remove b.txt in the terminal', {
    response: [
      {
        kind: 'toolInvocationSerialized',
        toolId: 'run_in_terminal',
        toolCallId: 'call_2_0',
        invocationMessage: { value: 'Running rm b.txt' },
        isComplete: true,
        toolSpecificData: {
          kind: 'terminal',
          commandLine: { original: 'rm b.txt' },
          cwd: fileUri(ws),
          terminalCommandState: { exitCode: 0 },
          terminalCommandOutput: { text: '', lineCount: 0 },
        },
      },
      { kind: 'thinking', value: 'that went well' },
      { value: 'Removed.' },
    ],
  });
  return lines(
    { kind: 0, v: initialState() },
    { kind: 2, k: ['requests'], v: [r1] },
    { kind: 1, k: ['responderUsername'], v: 'GitHub Copilot' },
    { kind: 2, k: ['requests'], v: [r2] },
    { kind: 2, k: ['requests'], v: [request(3, 'rename c to d')] },
    // request 3 edited and sent again
    { kind: 2, k: ['requests'], v: [request(4, 'rename c.txt to d.txt')], i: 2 },
  );
}

test('requests become user messages keyed by requestId, responses assistant text and tool calls; a cut request is an abandoned branch', async (t) => {
  const dir = tmp(t);
  const ws = join(dir, 'proj');
  mkdirSync(ws);
  const file = plantSession(join(dir, 'ud'), 'w1', agentLog(ws));
  const before = { bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs };
  const s = await readVsChatSession(file, { home: join(dir, 'home') });
  assert.equal(s.sessionId, SESSION_ID);
  assert.equal(s.source, 'vscode-chat');
  assert.equal(s.title, 'create a.txt');
  assert.equal(s.cwd, ws, 'placed by the folder its links are relative to');
  assert.equal(s.createdAt, new Date(T0).toISOString());
  const path = s.getPath();
  const users = path.filter((e) => e.type === 'message' && (e as MessageEntry).message.role === 'user').map((e) => e.id);
  assert.deepEqual(users, ['request_0001', 'request_0002', 'request_0004']);
  const msgs = path.map((e) => (e as MessageEntry).message as AgentMessage);
  const texts = msgs.filter((m) => m.role === 'assistant').map((m) => JSON.stringify(m.content));
  assert.ok(texts.some((x) => x.includes('I will create it.')));
  const create = msgs.find((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'toolCall' && b.name === 'create_file'))!;
  assert.deepEqual((create.content as { arguments: unknown }[])[0]!.arguments, { filePath: ws + '/a.txt', content: 'A' });
  assert.equal(create.model, 'fakelm/fake-model');
  // the edit VS Code applied for that call is not shown twice
  assert.equal(msgs.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'toolCall' && b.name === 'edit')).length, 0);
  const terminal = msgs.find((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'toolCall' && b.name === 'run_in_terminal'))!;
  assert.deepEqual((terminal.content as { arguments: unknown }[])[0]!.arguments, { command: 'rm b.txt' });
  assert.ok(msgs.some((m) => m.role === 'toolResult' && m.toolCallId === 'call_2_0'));
  assert.ok(msgs.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'thinking')));
  // the abandoned request hangs off the same place as the one that replaced it
  const abandoned = s.getEntry('request_0003')!;
  assert.equal(abandoned.parentId, s.getEntry('request_0004')!.parentId);
  assert.equal(s.request('request_0003')!.removed, true);
  assert.deepEqual(s.modelAndMode, { model: 'fakelm/fake-model', mode: 'agent' });
  assert.deepEqual(s.checkpointKeysOf('request_0002'), ['request_0002']);
  assert.deepEqual(s.checkpointKeysOf('request_0002#0'), []);
  // reading never changes the file
  assert.deepEqual(readFileSync(file), before.bytes);
  assert.equal(statSync(file).mtimeMs, before.mtimeMs);
});

test('a custom title wins; workspace.json places the session; an old .json session reads too', async (t) => {
  const dir = tmp(t);
  const ws = join(dir, 'proj');
  mkdirSync(ws);
  const log = lines({ kind: 0, v: initialState({ requests: [request(1, 'hello')] }) }, { kind: 1, k: ['customTitle'], v: 'My chat' });
  const file = plantSession(join(dir, 'ud'), 'w1', log, { workspaceJson: ws });
  const s = await readVsChatSession(file, { home: join(dir, 'home') });
  assert.equal(s.title, 'My chat');
  assert.equal(s.cwd, ws);
  const old = plantSession(join(dir, 'ud'), 'w2', JSON.stringify(initialState({ requests: [request(1, 'from 1.100', { folder: ws })] })), {
    ext: '.json',
    sessionId: 'old-session',
  });
  const o = await readVsChatSession(old, { home: join(dir, 'home') });
  assert.equal(o.title, 'from 1.100');
  assert.equal(o.cwd, ws);
  await assert.rejects(readVsChatSession(join(dir, 'missing.jsonl'), { home: dir }), /Cannot read the VS Code chat session/);
});

test('hook prompt records are tied to the requests they were taken for, by text and time', async (t) => {
  const dir = tmp(t);
  const ws = join(dir, 'proj');
  mkdirSync(ws);
  const home = join(dir, 'home');
  const file = plantSession(join(dir, 'ud'), 'w1', agentLog(ws));
  const rec = (anchorId: string, text: string, atMs: number) =>
    appendVsPromptRecord(home, SESSION_ID, { v: 1, anchorId, promptSha256: sha256Hex(text), atMs, cwd: ws, workspaceRoot: ws });
  rec('prompt-a', 'create a.txt', T0 + 60_000 + 2_000);
  rec('prompt-b', 'remove b.txt in the terminal', T0 + 120_000 + 1_500);
  // the request sent again: its hook saw its own text
  rec('prompt-d', 'rename c.txt to d.txt', T0 + 240_000 + 2_500);
  // a hook whose request is not in the log yet ties to nothing (not to the request before it)
  rec('prompt-later', 'something new', T0 + 600_000);
  const s = await readVsChatSession(file, { home });
  assert.deepEqual(s.checkpointKeysOf('request_0001'), ['prompt-a', 'request_0001']);
  assert.deepEqual(s.checkpointKeysOf('request_0002'), ['prompt-b', 'request_0002']);
  assert.deepEqual(s.checkpointKeysOf('request_0004'), ['prompt-d', 'request_0004']);
  assert.deepEqual(s.checkpointKeysOf('request_0003'), ['request_0003']);
});

test('the source lists the sessions of the open folder only, from every user-data folder, and skips empty ones', async (t) => {
  const dir = tmp(t);
  const ws = join(dir, 'proj');
  const other = join(dir, 'other');
  mkdirSync(ws);
  mkdirSync(other);
  const ud = join(dir, 'ud');
  const mine = plantSession(ud, 'w1', agentLog(ws));
  plantSession(ud, 'w2', lines({ kind: 0, v: initialState({ requests: [request(1, 'elsewhere', { folder: other })] }) }), { sessionId: 'other-session' });
  plantSession(ud, 'w1', lines({ kind: 0, v: initialState() }), { sessionId: 'empty-session' });
  const source = new VsChatSource({ home: join(dir, 'home'), env: { AGENT_REWIND_VSCODE_USER_DATA: ud }, userHome: join(dir, 'nohome') });
  const listed = await source.list({ settings: {} as never, workspaceRoots: [ws], warn: () => {} });
  assert.deepEqual(
    listed.map((l) => [l.sessionRef, l.sessionId, l.title, l.source, l.cwd, l.detail]),
    [[mine, SESSION_ID, 'create a.txt', 'vscode-chat', ws, 'fake-model · agent']],
  );
  assert.ok(source.owns(mine));
  assert.deepEqual(await source.findById(SESSION_ID.slice(0, 8)), [mine]);
  // the change signal: the log and its editing state, both mapped to the session, both in its stamp
  const storage = join(ud, 'User', 'workspaceStorage', 'w1');
  assert.deepEqual(
    source
      .watchFolders()
      .map((w) => w.path)
      .sort(),
    [storage, join(ud, 'User', 'workspaceStorage', 'w2')],
  );
  const editing = join(storage, 'chatEditingSessions', SESSION_ID);
  mkdirSync(editing, { recursive: true });
  writeFileSync(join(editing, 'state.json'), '{"version":2}');
  const changes = new SessionSources([source]);
  const ctx = { settings: {} as never, workspaceRoots: [ws], warn: () => {} };
  assert.deepEqual(await changes.refsOfChange(join(editing, 'state.json'), ctx), [mine]);
  assert.deepEqual(await changes.refsOfChange(mine, ctx), [mine]);
  assert.deepEqual(await changes.refsOfChange(join(storage, 'chatEditingSessions', 'nobody', 'state.json'), ctx), []);
  const stamp = await source.stamp(mine);
  writeFileSync(join(editing, 'state.json'), '{"version":2,"timeline":{}}');
  assert.notEqual(await source.stamp(mine), stamp, 'a change of the editing state changes the stamp');
  assert.equal(await source.stamp(join(storage, 'chatSessions', 'gone.jsonl')), undefined);
  const view = await source.open(mine);
  assert.equal(view.cwd, ws);
  // a hook recorded after the view was read is tied at the next open, though the log did not change
  appendVsPromptRecord(join(dir, 'home'), SESSION_ID, {
    v: 1,
    anchorId: 'prompt-late',
    promptSha256: sha256Hex('create a.txt'),
    atMs: T0 + 61_000,
    cwd: ws,
    workspaceRoot: ws,
  });
  assert.deepEqual((await source.open(mine)).checkpointKeysOf('request_0001'), ['prompt-late', 'request_0001']);
  assert.match(source.forkNote().error, /Restore Checkpoint/);
  await assert.rejects(
    source.rewindConversation(view, 'request_0001', () => {}),
    /rewound in VS Code itself/,
  );
});

test("the extension's own window storage folder places its sessions in the window's folder", async (t) => {
  const dir = tmp(t);
  const ws = join(dir, 'proj');
  mkdirSync(ws);
  // no workspace.json, no links: nothing in the session says where it worked
  const file = plantSession(join(dir, 'ud'), 'w9', lines({ kind: 0, v: initialState({ requests: [request(1, 'hi', { response: [{ value: 'hello' }] })] }) }));
  const storage = join(dir, 'ud', 'User', 'workspaceStorage', 'w9');
  const blind = new VsChatSource({ home: dir, env: {}, userHome: join(dir, 'nohome') });
  assert.deepEqual(await blind.list({ settings: {} as never, workspaceRoots: [ws], warn: () => {} }), []);
  const source = new VsChatSource({ home: dir, editorStorage: storage, env: {}, userHome: join(dir, 'nohome') });
  const listed = await source.list({ settings: {} as never, workspaceRoots: [ws], warn: () => {} });
  assert.deepEqual(
    listed.map((l) => [l.sessionRef, l.cwd]),
    [[file, ws]],
  );
  writeFileSync(join(dir, 'unrelated.jsonl'), '');
  assert.equal(source.owns(join(dir, 'unrelated.jsonl')), false);
});
