// The files VS Code's edit tools wrote per request (SourceAdapter.filesWrittenByTurn), from its own records: the log's
// edit groups, code blocks written into files and file-tool calls, and the editing state's operations, baselines and
// tracked entries (1.139's layout and 1.100's linear history). A terminal command's files and read_file are not there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VsChatSource } from '../../../../src/core/sources/vscode-chat/vscode-chat-source';
import { fileUri, initialState, lines, plantSession, request, SESSION_ID } from './builder';

function tmp(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-vs-written-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function writtenBy(dir: string, log: string, state: unknown): Promise<Record<string, string[]>> {
  const file = plantSession(join(dir, 'ud'), 'w1', log, { workspaceJson: '/ws' });
  if (state !== undefined) {
    const editing = join(dir, 'ud', 'User', 'workspaceStorage', 'w1', 'chatEditingSessions', SESSION_ID);
    mkdirSync(editing, { recursive: true });
    writeFileSync(join(editing, 'state.json'), typeof state === 'string' ? state : JSON.stringify(state));
  }
  const source = new VsChatSource({ home: join(dir, 'home'), env: {}, userHome: join(dir, 'nohome') });
  const written = await source.filesWrittenByTurn(await source.open(file));
  return Object.fromEntries([...written].map(([k, v]) => [k, [...v].sort()]));
}

const toolCalls = (...calls: { name: string; arguments: unknown }[]) => ({
  metadata: { toolCallRounds: [{ toolCalls: calls.map((c, i) => ({ id: `call_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) })) }] },
});

test("the log's edit groups, file-writing code blocks and file-tool calls name each request's files; reads and terminals do not", async (t) => {
  const dir = tmp(t);
  const r1 = {
    ...request(1, 'edit', {
      response: [
        { kind: 'textEditGroup', uri: fileUri('/ws/a.txt'), edits: [[]], done: true },
        { kind: 'codeblockUri', uri: fileUri('/ws/b.txt'), isEdit: true },
        { kind: 'codeblockUri', uri: fileUri('/ws/shown-only.txt') },
      ],
    }),
    result: toolCalls(
      { name: 'create_file', arguments: { filePath: '/ws/c.txt', content: 'c' } },
      { name: 'read_file', arguments: { filePath: '/ws/read.txt' } },
      { name: 'run_in_terminal', arguments: { command: 'touch /ws/t.txt' } },
      { name: 'multi_replace_string_in_file', arguments: { replacements: [{ filePath: '/ws/d.txt' }, { filePath: 'relative.txt' }] } },
    ),
  };
  const r2 = request(2, 'just talk');
  const log = lines({ kind: 0, v: initialState() }, { kind: 2, k: ['requests'], v: [r1, r2] });
  assert.deepEqual(await writtenBy(dir, log, undefined), { request_0001: ['/ws/a.txt', '/ws/b.txt', '/ws/c.txt', '/ws/d.txt'] });
});

test("the editing state's operations, baselines and tracked entries name their requests' files (a request not in the session claims nothing)", async (t) => {
  const dir = tmp(t);
  const log = lines({ kind: 0, v: initialState() }, { kind: 2, k: ['requests'], v: [request(1, 'one'), request(2, 'two')] });
  const state = {
    version: 2,
    timeline: {
      operations: [
        { type: 'create', uri: fileUri('/ws/sub/new.txt'), requestId: 'request_0002', epoch: 2, initialContent: 'new\n' },
        { type: 'textEdit', uri: fileUri('/ws/a.txt'), requestId: 'request_0001', epoch: 1, edits: [] },
        { type: 'create', uri: fileUri('/ws/ghost.txt'), requestId: 'request_gone', epoch: 1, initialContent: '' },
      ],
      fileBaselines: [[`file:///ws/b.txt::request_0001`, { uri: fileUri('/ws/b.txt'), requestId: 'request_0001', content: '', epoch: 1 }]],
    },
    recentSnapshot: { entries: [{ resource: 'file:///ws/c.txt', telemetryInfo: { requestId: 'request_0002' } }] },
  };
  assert.deepEqual(await writtenBy(dir, log, state), { request_0001: ['/ws/a.txt', '/ws/b.txt'], request_0002: ['/ws/c.txt', '/ws/sub/new.txt'] });
});

test("1.100's editing state (a linear history of stops) names its requests' files; a state that is not JSON names none", async (t) => {
  const log = lines({ kind: 0, v: initialState() }, { kind: 2, k: ['requests'], v: [request(1, 'one')] });
  const old = {
    version: 2,
    linearHistory: [{ requestId: 'request_0001', stops: [{ entries: [{ resource: 'file:///ws/x.txt' }] }], postEdit: [{ resource: 'file:///ws/y.txt' }] }],
  };
  assert.deepEqual(await writtenBy(tmp(t), log, old), { request_0001: ['/ws/x.txt', '/ws/y.txt'] });
  assert.deepEqual(await writtenBy(tmp(t), log, '{"version":2, "timeline": {'), {});
});
