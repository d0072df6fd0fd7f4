// The conversation half of a VS Code chat rewind goes through VS Code's own commands: the session's resource named as
// VS Code names it, the session opened first, then Restore Checkpoint given the request as its view model would be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chatSessionResource,
  editorChatTarget,
  OPEN_COMMAND,
  RESTORE_CHECKPOINT_COMMAND,
  runEditorChatAction,
  type ResourceParts,
} from '../../../../src/core/sources/vscode-chat/editor-chat';

const SESSION = '5d0f2d63-4f3c-4a55-9b7e-1c2d3e4f5a6b';
const target = { sessionId: SESSION, requestId: 'request_0002', requestText: 'STEP-TWO: tidy up' };

function recorder(commands: string[] = [OPEN_COMMAND, RESTORE_CHECKPOINT_COMMAND]) {
  const calls: { id: string; args: unknown[] }[] = [];
  return {
    calls,
    run: {
      uri: (p: ResourceParts) => `${p.scheme}://${p.authority}${p.path}`,
      commands: async () => commands,
      execute: async (id: string, ...args: unknown[]) => {
        calls.push({ id, args });
      },
    },
  };
}

test("the session's resource is VS Code's LocalChatSessionUri: vscode-chat-session://local/<base64url, unpadded>", () => {
  // what VS Code 1.139 computes: encodeBase64(VSBuffer.wrap(new TextEncoder().encode(id)), padded false, urlSafe true)
  assert.deepEqual(chatSessionResource(SESSION), {
    scheme: 'vscode-chat-session',
    authority: 'local',
    path: '/NWQwZjJkNjMtNGYzYy00YTU1LTliN2UtMWMyZDNlNGY1YTZi',
  });
  // a length that pads in plain base64, and bytes that differ in the URL-safe alphabet
  assert.equal(chatSessionResource('ab').path, '/YWI');
  assert.equal(chatSessionResource('\u00fb\u00ff').path, '/w7vDvw');
  assert.equal(chatSessionResource('??>').path, '/Pz8-');
});

test('open shows the session; restoreCheckpoint opens it, then runs Restore Checkpoint on the request', async () => {
  const open = recorder();
  await runEditorChatAction('open', target, open.run);
  assert.deepEqual(open.calls, [{ id: OPEN_COMMAND, args: [`vscode-chat-session://local/${Buffer.from(SESSION).toString('base64url')}`] }]);

  const restore = recorder();
  await runEditorChatAction('restoreCheckpoint', target, restore.run);
  const resource = `vscode-chat-session://local/${Buffer.from(SESSION).toString('base64url')}`;
  assert.deepEqual(restore.calls, [
    { id: OPEN_COMMAND, args: [resource] },
    {
      id: RESTORE_CHECKPOINT_COMMAND,
      // a request view model as VS Code's command reads it: `message` present, `id` the requestId, the text to put back
      args: [{ id: 'request_0002', message: 'STEP-TWO: tidy up', messageText: 'STEP-TWO: tidy up', attachedContext: [], sessionResource: resource }],
    },
  ]);
});

test('a VS Code without Restore Checkpoint gets a clear error and no command is run', async () => {
  const old = recorder([OPEN_COMMAND]);
  await assert.rejects(runEditorChatAction('restoreCheckpoint', target, old.run), /no Restore Checkpoint for chat requests/);
  assert.deepEqual(old.calls, []);
});

test('a request VS Code removed (an abandoned branch) or an unknown one offers nothing', () => {
  const req = { requestId: 'request_0001', text: 'first', timestamp: 1, removed: false };
  assert.deepEqual(editorChatTarget(SESSION, req), { sessionId: SESSION, requestId: 'request_0001', requestText: 'first' });
  assert.equal(editorChatTarget(SESSION, { ...req, removed: true }), undefined);
  assert.equal(editorChatTarget(SESSION, undefined), undefined);
});
