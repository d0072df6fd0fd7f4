// Reading rules of the OpenCode reader, each on synthetic data written here: opencode.db and the older JSON layout,
// session.revert as an abandoned branch, parent links, de-duplication across layouts, torn JSON.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deriveBranches } from '../../../../src/core/branches/derive';
import type { AgentMessage, MessageEntry, SessionEntry } from '../../../../src/core/session/types';
import { listOpenCodeSessions, readOpenCodeSession } from '../../../../src/core/sources/opencode/reader';
import { contentText } from '../../../../src/core/transcript/transcript';
import { assistantMessage, ocId, userMessage, writeDb, writeJsonLayout, type TestSession } from './builder';

const msg = (e: SessionEntry | undefined) => (e as MessageEntry).message as AgentMessage;
/** Each entry as `role: text`, a tool call as `name(arguments)`, reasoning as `(thinking) text`. */
const texts = (path: readonly SessionEntry[]) =>
  path.map((e) => {
    const blocks = msg(e).content as { type: string; name?: string; arguments?: unknown; thinking?: string }[];
    const b = blocks[0]!;
    if (b.type === 'toolCall') return `${msg(e).role}: ${b.name}(${JSON.stringify(b.arguments)})`;
    if (b.type === 'thinking') return `${msg(e).role}: (thinking) ${b.thinking}`;
    return `${msg(e).role}: ${contentText(msg(e).content)}`;
  });

/** Two prompts: the first runs a shell command that changes files, the second edits a file. */
function twoTurns(directory: string): TestSession {
  const u1 = userMessage('make the files');
  const a1 = assistantMessage(u1.id, [
    { type: 'step-start', snapshot: 'aaa' },
    { type: 'tool', tool: 'bash', callID: 'call_1', state: { status: 'completed', input: { command: 'touch a.txt' }, output: '(no output)' } },
    { type: 'step-finish', reason: 'tool-calls', snapshot: 'bbb' },
    { type: 'patch', hash: 'aaa', files: [`${directory}/a.txt`] },
  ]);
  const a1b = assistantMessage(u1.id, [{ type: 'text', text: 'Made them.' }]);
  const u2 = userMessage('edit notes');
  const a2 = assistantMessage(u2.id, [
    { type: 'reasoning', text: 'thinking about it' },
    { type: 'tool', tool: 'edit', callID: 'call_2', state: { status: 'error', input: { filePath: 'notes.md' }, error: 'no such file' } },
    { type: 'text', text: 'Could not.' },
  ]);
  return { id: ocId('ses'), directory, title: 'Two turns', model: { id: 'fake-model', providerID: 'fake' }, messages: [u1, a1, a1b, u2, a2] };
}

describe('OpenCode reader', () => {
  let dir: string;
  let n = 0;
  const dataDir = () => join(dir, `data${++n}`);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-reader-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads a session of opencode.db: prompts keyed by their message id, replies, tool calls with results, changed files', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    await writeDb(d, [s]);
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.deepEqual(texts(view.getPath()), [
      'user: make the files',
      'assistant: bash({"command":"touch a.txt"})',
      'toolResult: (no output)\n\nFiles changed:\na.txt',
      'assistant: Made them.',
      'user: edit notes',
      'assistant: (thinking) thinking about it',
      'assistant: edit({"filePath":"notes.md"})',
      'toolResult: no such file',
      'assistant: Could not.',
    ]);
    assert.equal(view.getPath()[0]!.id, s.messages[0]!.id);
    assert.deepEqual(view.checkpointKeysOf(s.messages[3]!.id), [s.messages[3]!.id]);
    assert.deepEqual(view.checkpointKeysOf(view.getPath()[1]!.id), []);
    assert.equal(msg(view.getPath()[7]).isError, true);
    assert.equal(msg(view.getPath()[1]).model, 'fake-model');
    assert.equal(view.title, 'Two turns');
    assert.equal(view.cwd, '/w');
    assert.equal(view.model, 'fake/fake-model');
    assert.equal(view.source, 'opencode');
    assert.deepEqual(view.getLoadReport().skipped, []);
  });

  it('orders messages and parts by id, whatever order the database stores them in', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    const stored = { ...s, messages: [...s.messages].reverse().map((m) => ({ ...m, parts: [...m.parts].reverse() })) };
    await writeDb(d, [stored]);
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.deepEqual(texts(view.getPath()), [
      'user: make the files',
      'assistant: bash({"command":"touch a.txt"})',
      'toolResult: (no output)\n\nFiles changed:\na.txt',
      'assistant: Made them.',
      'user: edit notes',
      'assistant: (thinking) thinking about it',
      'assistant: edit({"filePath":"notes.md"})',
      'toolResult: no such file',
      'assistant: Could not.',
    ]);
  });

  it('shows session.revert as an abandoned branch: the active path ends before the reverted message', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    s.revert = { messageID: s.messages[3]!.id, snapshot: 'bbb' };
    await writeDb(d, [s]);
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.deepEqual(texts(view.getPath()), [
      'user: make the files',
      'assistant: bash({"command":"touch a.txt"})',
      'toolResult: (no output)\n\nFiles changed:\na.txt',
      'assistant: Made them.',
    ]);
    assert.equal(view.getEntries().length, 9, 'the reverted messages stay in the tree');
    assert.equal(view.isReverted(s.messages[3]!.id), true);
    assert.equal(view.userPrompts()[1]!.reverted, true);
    const branches = deriveBranches(view.getEntries(), view.getLeafId(), { sessionId: view.sessionId, sessionCreatedAt: 0, warn: () => {} }).branches;
    assert.equal(branches.filter((b) => !b.isActive).length, 1, 'one abandoned branch');
  });

  it('a revert at a part hides that part and what follows, and keeps the message before it', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    const a2 = s.messages[4]!;
    s.revert = { messageID: a2.id, partID: a2.parts[1]!.id };
    await writeDb(d, [s]);
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.deepEqual(texts(view.getPath()).slice(4), ['user: edit notes', 'assistant: (thinking) thinking about it']);
  });

  it('reads the older JSON layout, and links a session to its parent', async () => {
    const d = dataDir();
    const parent = twoTurns('/w');
    const child = { ...twoTurns('/w'), parentId: parent.id };
    writeJsonLayout(d, parent);
    writeJsonLayout(d, child);
    const listed = await listOpenCodeSessions(d);
    assert.deepEqual(listed.map((l) => l.id).sort(), [parent.id, child.id].sort());
    const view = (await readOpenCodeSession(d, child.id, 'ref'))!;
    assert.equal(view.getPath().length, 9);
    assert.equal(view.forkedFrom?.sessionId, parent.id);
  });

  it('a session in both layouts is listed once and read from the database, with what only the JSON holds added', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    const inDb = { ...s, title: 'from the database', messages: s.messages.slice(0, 3) };
    await writeDb(d, [inDb]);
    writeJsonLayout(d, { ...s, title: 'from json' });
    const listed = await listOpenCodeSessions(d);
    assert.deepEqual(
      listed.map((l) => [l.id, l.title]),
      [[s.id, 'from the database']],
    );
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.equal(view.title, 'from the database');
    assert.equal(view.userPrompts().length, 2, 'the second turn is only in the JSON');
  });

  it('torn JSON files are skipped and counted, never fatal; a torn session file is not listed', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    writeJsonLayout(d, s);
    const torn = twoTurns('/w');
    writeJsonLayout(d, torn);
    writeFileSync(join(d, 'storage', 'session', 'proj', `${torn.id}.json`), '{"id":"' + torn.id + '","direc');
    const m = s.messages[1]!;
    writeFileSync(join(d, 'storage', 'part', m.id, `${m.parts[1]!.id}.json`), '{"type":"tool","tool":"ba');
    assert.deepEqual(
      (await listOpenCodeSessions(d)).map((l) => l.id),
      [s.id],
    );
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.equal(view.getLoadReport().skipped.length, 1);
    assert.match(view.getLoadReport().skipped[0]!.reason, /1 row/);
    assert.deepEqual(texts(view.getPath()).slice(1, 3), ['assistant: Files changed:\na.txt', 'assistant: Made them.'], 'the torn tool part is left out');
  });

  it('rows whose JSON does not parse are skipped in the database too', async () => {
    const d = dataDir();
    const s = twoTurns('/w');
    s.messages[1]!.parts[1]!.data = { type: 'tool' };
    await writeDb(d, [s]);
    const { memoryDb } = await import('./builder');
    const db = await memoryDb([s]);
    db.run('UPDATE part SET data = ? WHERE id = ?', ['{"type":"tool", "state": {', s.messages[1]!.parts[1]!.id]);
    writeFileSync(join(d, 'opencode.db'), db.export());
    db.close();
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.equal(view.getLoadReport().skipped.length, 1);
    assert.equal(view.userPrompts().length, 2);
  });

  it('a session of neither layout is undefined; an unknown id shape is never used as a path', async () => {
    const d = dataDir();
    await writeDb(d, [twoTurns('/w')]);
    assert.equal(await readOpenCodeSession(d, 'ses_nothere', 'ref'), undefined);
    mkdirSync(join(d, 'storage', 'session', 'proj'), { recursive: true });
    writeFileSync(join(dir, 'outside.json'), JSON.stringify({ id: '../../outside', directory: '/w' }));
    assert.equal(await readOpenCodeSession(d, '../../../outside', 'ref'), undefined);
    rmSync(join(dir, 'outside.json'));
  });
});
