// The CLI on a VS Code chat session, as real processes, with the hooks VS Code would run: each request's prompt hook
// snapshots the workspace, the "agent" then changes files as run_in_terminal would (create, delete, move, a mode
// change), and VS Code's log names the requests. `sessions` lists it, `rewind-files` to the second request gives back
// the workspace as it was then (bytes and modes), `undo-rewind` puts it back, and VS Code's files never change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialState, lines, plantSession, request, SESSION_ID } from '../sources/vscode-chat/builder';
import { vscodeChatCli, type VsCodeChatCli } from './vscode-chat-cli';

let chat: VsCodeChatCli;
let ws: string;
let ud: string;
let run: VsCodeChatCli['run'];

before(() => {
  chat = vscodeChatCli('ar-cli-vschat-');
  ({ ws, ud, run } = chat);
});
after(() => chat.dispose());

function hook(event: string, extra: Record<string, unknown> = {}): void {
  const input = {
    timestamp: new Date().toISOString(),
    hook_event_name: event,
    session_id: SESSION_ID,
    transcript_path: join(ud, 'User', 'workspaceStorage', 'w1', 'GitHub.copilot-chat', 'transcripts', `${SESSION_ID}.jsonl`),
    cwd: ws,
    ...extra,
  };
  // through the Claude Code hook id, as VS Code runs .claude/settings.json too: still filed as VS Code's
  const r = run(['hook', event === 'Stop' ? 'vscode-chat' : 'claude'], JSON.stringify(input));
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
}

/** Every file under the workspace: path → [sha256, mode]. */
function tree(): Record<string, [string, number]> {
  const out: Record<string, [string, number]> = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, `${rel}${name}/`);
      else out[`${rel}${name}`] = [createHash('sha256').update(readFileSync(p)).digest('hex'), st.mode & 0o777];
    }
  };
  walk(ws, '');
  return out;
}

const vsFiles = (storage: string) => {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(storage);
  return out;
};

test('three requests with hooks; rewind-files to the second gives the workspace back as it was, undo puts it back; VS Code files untouched', () => {
  writeFileSync(join(ws, 'keep.txt'), 'keep\n');
  writeFileSync(join(ws, 'gone.txt'), 'to be deleted\n');
  writeFileSync(join(ws, 'move-me.txt'), 'to be moved\n');
  writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(ws, 'run.sh'), 0o755);
  const prompts = ['create notes.txt', 'delete gone.txt, move move-me.txt, edit keep.txt', 'add a folder'];
  const stamps: number[] = [];
  let atSecond: Record<string, [string, number]> = {};

  stamps.push(Date.now() - 500);
  hook('UserPromptSubmit', { prompt: prompts[0] });
  writeFileSync(join(ws, 'notes.txt'), 'notes by the edit tool\n');
  chmodSync(join(ws, 'run.sh'), 0o644);
  hook('Stop', { stop_hook_active: false });

  stamps.push(Date.now() - 500);
  atSecond = tree();
  hook('UserPromptSubmit', { prompt: prompts[1] });
  unlinkSync(join(ws, 'gone.txt'));
  renameSync(join(ws, 'move-me.txt'), join(ws, 'moved.txt'));
  writeFileSync(join(ws, 'keep.txt'), 'keep, edited\n');
  hook('Stop', { stop_hook_active: false });

  stamps.push(Date.now() - 500);
  hook('UserPromptSubmit', { prompt: prompts[2] });
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'sub', 'new.txt'), 'new\n');
  chmodSync(join(ws, 'sub', 'new.txt'), 0o600);
  hook('Stop', { stop_hook_active: false });

  // VS Code's log, written after the hooks ran (it writes about every 5 s)
  const log = lines(
    { kind: 0, v: initialState({ creationDate: stamps[0]! - 1000 }) },
    ...prompts.map((p, i) => ({ kind: 2, k: ['requests'], v: [request(i + 1, p, { at: stamps[i]! })] })),
  );
  const file = plantSession(ud, 'w1', log, { workspaceJson: ws });
  const storage = join(ud, 'User', 'workspaceStorage', 'w1');
  mkdirSync(join(storage, 'chatEditingSessions', SESSION_ID), { recursive: true });
  writeFileSync(join(storage, 'chatEditingSessions', SESSION_ID, 'state.json'), '{"version":2}');
  const vsBefore = vsFiles(storage);
  const atEnd = tree();

  const sessions = run(['sessions', '--json']);
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.deepEqual(
    sessions.json.map((s: { id: string; source: string; title: string }) => [s.id, s.source, s.title]),
    [[SESSION_ID, 'vscode-chat', prompts[0]]],
  );

  const dry = run(['rewind-files', SESSION_ID, 'request_0002', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.json.canRewind, true, JSON.stringify(dry.json));
  assert.deepEqual(tree(), atEnd, 'a dry run changes nothing');

  const real = run(['rewind-files', SESSION_ID, 'request_0002', '--json']);
  assert.equal(real.code, 0, real.stderr);
  assert.deepEqual(tree(), atSecond);

  const undo = run(['undo-rewind', SESSION_ID, '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(tree(), atEnd);

  assert.deepEqual(vsFiles(storage), vsBefore);
  assert.ok(file.startsWith(storage));
});
