// Reading rules of the Gemini CLI session reader, each on a small synthetic session (builder.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentMessage, MessageEntry, SessionEntry } from '../../../../src/core/session/types';
import { contentText } from '../../../../src/core/transcript/transcript';
import { readGeminiSession } from '../../../../src/core/sources/gemini/reader';
import { GeminiSource } from '../../../../src/core/sources/gemini/gemini-source';
import { GeminiLog } from './builder';

const msg = (e: SessionEntry | undefined) => (e as MessageEntry).message as AgentMessage;
/** Entries no other entry continues: one per branch. */
const leaves = (entries: readonly SessionEntry[]) => entries.filter((e) => !entries.some((c) => c.parentId === e.id));
const texts = (path: readonly SessionEntry[]) => path.map((e) => `${msg(e).role}: ${contentText(msg(e).content, { toolCalls: true })}`);

describe('Gemini CLI reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-gemini-reader-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const freshHome = () => join(dir, `home${++n}`, '.gemini');
  const read = async (log: GeminiLog, name = 'proj') => {
    const home = freshHome();
    const file = log.write(home, name);
    return { session: await readGeminiSession(file, { home }), file, home };
  };

  it('shows prompts, replies and tool calls once, with the diffs of edits and the model; the context message is hidden', async () => {
    const log = new GeminiLog();
    const p1 = log.prompt('P1 make files');
    log.reply('', [{ name: 'run_shell_command', args: { command: 'touch a' }, output: 'Output: (empty)' }]);
    log.reply('done', [], 'gemini-3.8-pro');
    const p2 = log.prompt('P2 edit');
    log.reply('', [
      {
        name: 'replace',
        args: { file_path: '/work/proj/w.txt', old_string: 'W', new_string: 'V' },
        output: 'Successfully modified file',
        display: { fileDiff: 'Index: w.txt\n--- w.txt\n+++ w.txt\n@@ -1 +1 @@\n-W\n+V\n', fileName: 'w.txt', originalContent: 'W\n', newContent: 'V\n' },
      },
    ]);
    const { session } = await read(log);
    const path = session.getPath();
    assert.deepEqual(
      path.map((e) => msg(e).role),
      ['user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant', 'toolResult'],
    );
    assert.equal(path[0]!.id, p1);
    assert.equal(path[4]!.id, p2);
    const call = (msg(path[1]).content as { type: string; name: string; arguments: unknown }[])[0]!;
    assert.deepEqual([call.type, call.name, call.arguments], ['toolCall', 'run_shell_command', { command: 'touch a' }]);
    assert.equal(msg(path[2]).toolName, 'run_shell_command');
    assert.match(contentText(msg(path[6]).content), /Successfully modified file\n\nIndex: w\.txt[\s\S]*-W\n\+V$/);
    assert.equal(msg(path[3]).model, 'gemini-3.8-pro');
    assert.equal(session.model, 'gemini-3.8-flash');
    assert.equal(session.title, 'P1 make files');
    assert.equal(session.cwd, '/work/proj');
    assert.equal(session.source, 'gemini');
    assert.deepEqual(
      session.userPrompts().map((p) => p.text),
      ['P1 make files', 'P2 edit'],
    );
    assert.deepEqual(session.getLoadReport().skipped, []);
  });

  it('$set: the summary names the session, a resume adds no message twice and no branch', async () => {
    const log = new GeminiLog();
    log.prompt('P1');
    log.reply('', [{ name: 'write_file', args: { file_path: '/work/proj/x', content: 'x' }, output: 'wrote' }]);
    log.reply('ok');
    log.raw({ $set: { summary: 'Make the x file', memoryScratchpad: { version: 1 } } });
    // a resume in the same minute: another metadata line and a $set of the context alone, then the whole history
    log.raw({ sessionId: log.sessionId, projectHash: 'x', startTime: log.time(), lastUpdated: log.time(), kind: 'main' });
    log.raw({ $set: { messages: [log.messages[0]] } });
    log.resume();
    const p2 = log.prompt('P2');
    log.reply('second');
    const { session } = await read(log);
    assert.equal(session.title, 'Make the x file');
    assert.deepEqual(
      session.getPath().map((e) => `${msg(e).role}: ${contentText(msg(e).content)}`),
      ['user: P1', 'assistant: ', 'toolResult: wrote', 'assistant: ok', 'user: P2', 'assistant: second'],
    );
    assert.equal(session.getPath()[4]!.id, p2);
    assert.equal(leaves(session.getEntries()).length, 1, 'one branch: the resume rewrote the same history');
    assert.equal(session.userPrompts().length, 2);
  });

  it('$rewindTo: the rewound-away messages stay as an abandoned branch and the conversation continues from before them', async () => {
    const log = new GeminiLog();
    log.prompt('P1');
    log.reply('one');
    const p2 = log.prompt('P2 bad idea');
    log.reply('two');
    log.rewindTo(p2);
    const p2b = log.prompt('P2 better idea');
    log.reply('two again');
    const { session } = await read(log);
    assert.deepEqual(texts(session.getPath()), ['user: P1', 'assistant: one', 'user: P2 better idea', 'assistant: two again']);
    const old = session.getEntry(p2)!;
    assert.equal(old.parentId, session.getEntry(p2b)!.parentId, 'both versions hang from the same reply');
    assert.equal(leaves(session.getEntries()).length, 2);
    assert.deepEqual(
      session.userPrompts().map((p) => p.text),
      ['P1', 'P2 bad idea', 'P2 better idea'],
    );
  });

  it('a $rewindTo to the first prompt leaves no active conversation until the next prompt, which starts a new root', async () => {
    const log = new GeminiLog();
    const p1 = log.prompt('P1');
    log.reply('one');
    log.rewindTo(p1);
    const { session } = await read(log);
    assert.equal(session.getLeafId(), null);
    log.prompt('P1 again');
    log.reply('one again');
    const again = await read(log);
    assert.deepEqual(texts(again.session.getPath()), ['user: P1 again', 'assistant: one again']);
    assert.equal(again.session.getEntry(p1)!.parentId, null);
  });

  it('a torn last line is left for later, a broken line is reported and passed over, unknown lines are ignored', async () => {
    const log = new GeminiLog();
    log.prompt('P1');
    log.raw('{"not json');
    log.raw({ $future: { x: 1 } });
    log.raw({ id: 'info-1', timestamp: log.time(), type: 'info', content: 'Update available' });
    log.raw(['an array']);
    log.reply('one');
    const home = freshHome();
    const file = log.write(home);
    writeFileSync(file, log.text() + '{"id":"half-writt');
    const s = await readGeminiSession(file, { home });
    assert.deepEqual(texts(s.getPath()), ['user: P1', 'assistant: one']);
    assert.deepEqual(
      s.getLoadReport().skipped.map((x) => x.line),
      [5, 8],
    );
  });

  it('reads the old .json layout (one document with every message)', async () => {
    const log = new GeminiLog();
    log.prompt('old prompt');
    log.reply('old reply', [{ name: 'read_file', args: { file_path: '/work/proj/a' }, output: 'aaa' }]);
    const home = freshHome();
    const chats = join(home, 'tmp', createHash('sha256').update('/work/proj').digest('hex'), 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, 'session-2025-06-01T10-00-abcdef12.json');
    writeFileSync(
      file,
      JSON.stringify({
        sessionId: log.sessionId,
        projectHash: createHash('sha256').update('/work/proj').digest('hex'),
        startTime: '2025-06-01T10:00:00.000Z',
        lastUpdated: '2025-06-01T10:05:00.000Z',
        messages: log.messages.slice(0, -1),
      }),
    );
    const s = await readGeminiSession(file, { home });
    assert.deepEqual(
      s.getPath().map((e) => msg(e).role),
      ['user', 'assistant', 'toolResult'],
    );
    assert.equal(s.legacyJson, true);
    assert.equal(s.cwd, '/work/proj');
    const listed = await new GeminiSource({ home }).list({ workspaceRoots: ['/work/proj'], settings: {} as never, warn: () => {} });
    assert.deepEqual(
      listed.map((l) => l.sessionRef),
      [file],
    );
  });

  it('the project root: .project_root, else projects.json, else the folders the context message lists; the hash decides', async () => {
    const log = new GeminiLog(undefined, '/work/real');
    log.prompt('P');
    const home = freshHome();
    const file = log.write(home, 'real');
    // a .project_root naming another folder does not win over the one whose hash the session carries
    writeFileSync(join(home, 'tmp', 'real', '.project_root'), '/work/elsewhere');
    assert.equal((await readGeminiSession(file, { home })).cwd, '/work/real');
    const bare = freshHome();
    const f2 = log.write(bare, 'real', { projectFiles: false });
    assert.equal((await readGeminiSession(f2, { home: bare })).cwd, '/work/real', 'from the context message');
  });

  it("lists a workspace's sessions once each: a stray file of a resume with the same id is not listed", async () => {
    const home = freshHome();
    const log = new GeminiLog(undefined, join(dir, 'ws'));
    log.prompt('the prompt');
    log.reply('ok');
    const file = log.write(home, 'ws');
    const stray = new GeminiLog(log.sessionId, log.root);
    stray.write(home, 'ws', { fileName: `session-2026-11-27T07-00-${log.sessionId.slice(0, 8)}.jsonl` });
    const other = new GeminiLog(undefined, '/work/other');
    other.prompt('elsewhere');
    other.write(home, 'other');
    const source = new GeminiSource({ home });
    const listed = await source.list({ workspaceRoots: [join(dir, 'ws')], settings: {} as never, warn: () => {} });
    assert.deepEqual(
      listed.map((l) => [l.sessionRef, l.sessionId, l.title, l.source]),
      [[file, log.sessionId, 'the prompt', 'gemini']],
    );
    assert.deepEqual(await source.findById(log.sessionId.slice(0, 6)), [file]);
  });

  it('bad input: a FIFO as session file or .project_root is never opened for reading (no hang), and nothing is written', async () => {
    const home = freshHome();
    const log = new GeminiLog();
    log.prompt('P');
    const file = log.write(home);
    rmSync(join(home, 'tmp', 'proj', '.project_root'));
    execFileSync('mkfifo', [join(home, 'tmp', 'proj', '.project_root')]);
    const fifo = join(home, 'tmp', 'proj', 'chats', 'session-2026-11-27T06-43-fifo0000.jsonl');
    execFileSync('mkfifo', [fifo]);
    const before = statSync(file);
    const bytes = readFileSync(file);
    const s = await readGeminiSession(file, { home });
    assert.equal(s.cwd, '/work/proj');
    await assert.rejects(readGeminiSession(fifo, { home }), /not a regular file/);
    const listed = await new GeminiSource({ home }).list({ workspaceRoots: ['/work/proj'], settings: {} as never, warn: () => {} });
    assert.deepEqual(
      listed.map((l) => l.sessionRef),
      [file],
    );
    assert.deepEqual(readFileSync(file), bytes);
    assert.equal(statSync(file).mtimeMs, before.mtimeMs);
  });

  it('hostile records: ids that repeat a result id, deep nesting and huge ids do not break the tree', async () => {
    const log = new GeminiLog();
    const p = log.prompt('P');
    const g = log.reply('', [{ name: 'run_shell_command', args: { command: 'x' }, output: 'o' }]);
    log.raw({ id: `${g}:0`, timestamp: log.time(), type: 'user', content: [{ text: 'same id as a result' }] });
    let deep: unknown = 'x';
    for (let i = 0; i < 500; i++) deep = [deep];
    log.raw({ id: 'deep', timestamp: log.time(), type: 'user', content: deep });
    log.raw({ $rewindTo: 'no-such-id' });
    log.raw({ $set: { messages: 'not a list' } });
    const { session } = await read(log);
    const ids = session.getEntries().map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    assert.equal(session.getPath()[0]!.id, p);
    assert.ok(session.getPath().length >= 4);
  });
});
