// VS Code may write a file its create_file tool made after its Stop hook ran: the turn-end snapshot lacks it, and on
// the folder's timeline it appears outside every turn, which read as the user's, so a default `rewind-files` kept it
// (seen in CI with real VS Code). VS Code's own records name the request whose tool wrote it (its editing state's
// operations and its log's edit groups): the CLI's dry run now says it is this session's, the default rewind removes
// it (and so does its redo), and the user's own edit made in the same moments (a file no tool wrote) is still kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileUri, initialState, lines, plantSession, request, SESSION_ID } from '../sources/vscode-chat/builder';
import { vscodeChatCli, type VsCodeChatCli } from './vscode-chat-cli';

let chat: VsCodeChatCli;
let ws: string;
let ud: string;
let run: VsCodeChatCli['run'];

before(() => {
  chat = vscodeChatCli('ar-cli-vslate-');
  ({ ws, ud, run } = chat);
});
after(() => chat.dispose());

function hook(event: string, extra: Record<string, unknown> = {}): void {
  const input = { timestamp: new Date().toISOString(), hook_event_name: event, session_id: SESSION_ID, cwd: ws, ...extra };
  const r = run(['hook', 'vscode-chat'], JSON.stringify(input));
  assert.equal(r.code, 0, r.stderr);
}

const read = (rel: string) => (existsSync(join(ws, rel)) ? readFileSync(join(ws, rel), 'utf8') : undefined);

test("a file VS Code's create_file wrote after the Stop hook is the request's: the default rewind removes it and keeps the user's edit", () => {
  writeFileSync(join(ws, 'keep.txt'), 'keep\n');
  writeFileSync(join(ws, 'notes.txt'), 'my notes\n');
  const prompts = ['edit keep.txt', 'create sub/new.txt', 'one more'];
  const stamps: number[] = [];

  stamps.push(Date.now() - 500);
  hook('UserPromptSubmit', { prompt: prompts[0] });
  writeFileSync(join(ws, 'keep.txt'), 'keep, edited by the tool\n');
  hook('Stop', { stop_hook_active: false });

  stamps.push(Date.now() - 500);
  hook('UserPromptSubmit', { prompt: prompts[1] });
  hook('Stop', { stop_hook_active: false });
  // after the Stop hook: VS Code writes the file its tool made, and the user edits notes.txt by hand meanwhile
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'sub', 'new.txt'), 'new\n');
  writeFileSync(join(ws, 'notes.txt'), 'my notes, edited by hand\n');

  stamps.push(Date.now() - 500);
  hook('UserPromptSubmit', { prompt: prompts[2] });
  hook('Stop', { stop_hook_active: false });

  // VS Code's log (the first request's edit group names keep.txt) and its editing state (the second request's create)
  const newUri = fileUri(join(ws, 'sub', 'new.txt'));
  const log = lines(
    { kind: 0, v: initialState({ creationDate: stamps[0]! - 1000 }) },
    {
      kind: 2,
      k: ['requests'],
      v: [request(1, prompts[0]!, { at: stamps[0]!, response: [{ kind: 'textEditGroup', uri: fileUri(join(ws, 'keep.txt')), edits: [[]], done: true }] })],
    },
    { kind: 2, k: ['requests'], v: [request(2, prompts[1]!, { at: stamps[1]! })] },
    { kind: 2, k: ['requests'], v: [request(3, prompts[2]!, { at: stamps[2]! })] },
  );
  plantSession(ud, 'w1', log, { workspaceJson: ws });
  const editing = join(ud, 'User', 'workspaceStorage', 'w1', 'chatEditingSessions', SESSION_ID);
  mkdirSync(editing, { recursive: true });
  const state = {
    version: 2,
    initialFileContents: [],
    timeline: {
      checkpoints: [],
      currentEpoch: 3,
      fileBaselines: [],
      operations: [{ type: 'create', uri: newUri, requestId: 'request_0002', epoch: 2, initialContent: 'new\n' }],
      epochCounter: 3,
    },
    recentSnapshot: { entries: [] },
  };
  writeFileSync(join(editing, 'state.json'), JSON.stringify(state));

  const dry = run(['rewind-files', SESSION_ID, 'request_0002', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(
    dry.json.files.map((f: { path: string; changedBy: string; kept: boolean }) => [f.path, f.changedBy, f.kept]),
    [
      ['notes.txt', 'user', true],
      ['sub/new.txt', 'this-session', false],
    ],
  );

  // history and blame name the same author as the rewind: the request for its late file, the user for the hand edit
  const owner = (o: { by: string; sessionId?: string; messageId?: string }) => (o.by === 'turn' ? `${o.sessionId}/${o.messageId}` : o.by);
  const history = (rel: string) => {
    const r = run(['history', join(ws, rel), '--json']);
    assert.equal(r.code, 0, r.stderr);
    return r.json.entries.map((e: { owner: { by: string }; status: string }) => [owner(e.owner), e.status]);
  };
  const blame = (rel: string) => {
    const r = run(['blame', join(ws, rel), '--json']);
    assert.equal(r.code, 0, r.stderr);
    return r.json.lines.map((l: { owner: { by: string }; text: string }) => [l.text, owner(l.owner)]);
  };
  assert.deepEqual(history('sub/new.txt'), [[`${SESSION_ID}/request_0002`, 'added']]);
  assert.deepEqual(blame('sub/new.txt'), [['new', `${SESSION_ID}/request_0002`]]);
  assert.deepEqual(history('notes.txt'), [['user', 'modified']]);
  assert.deepEqual(blame('notes.txt'), [['my notes, edited by hand', 'user']]);

  const real = run(['rewind-files', SESSION_ID, 'request_0002', '--json']);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(read('sub/new.txt'), undefined, "the request's own file is taken back");
  assert.equal(read('notes.txt'), 'my notes, edited by hand\n', "the user's edit is kept");
  assert.equal(read('keep.txt'), 'keep, edited by the tool\n');

  const undo = run(['undo-rewind', SESSION_ID, '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read('sub/new.txt'), 'new\n');

  // a redo attributes as the rewind did
  const redo = run(['redo-rewind', SESSION_ID, '--json']);
  assert.equal(redo.code, 0, redo.stderr);
  assert.equal(read('sub/new.txt'), undefined);
  assert.equal(read('notes.txt'), 'my notes, edited by hand\n');
});
