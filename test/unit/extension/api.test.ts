import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { createApi, type AgentRewindApi } from '../../../src/extension/api';

describe('exported API (over a real engine, workspace and home)', () => {
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let api: AgentRewindApi;
  const changed: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-api-'));
    ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    await writeFile(join(ws, 'notes.md'), 'v1\n');
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false })[k], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    api = createApi(
      engine,
      (f) => changed.push(f),
      () => ws,
    );
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a session in the first workspace folder and tells the UI about every change', async () => {
    const session = await api.createSession({ title: 'From an agent' });
    assert.equal(api.apiVersion, 1);
    assert.ok(session.sessionRef.startsWith(join(dir, 'home', 'sessions')));
    assert.deepEqual(
      (await api.listSessions()).map((s) => s.title),
      ['From an agent'],
    );
    changed.length = 0;
    const user = await session.appendMessage({ role: 'user', content: 'edit the notes' });
    assert.equal(user.snapshot?.files, 1, 'a user message snapshots the workspace');
    assert.deepEqual(changed, [session.sessionRef]);
    // its turn ends: an agent's turn left open would share the folder with the sessions below (issue 27's attribution)
    await session.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
  });

  it('runs the agent tools: checkpoint, rewind with a report, applied only at the end of the turn', async () => {
    const session = await api.createSession({ title: 'Exploring' });
    await session.appendMessage({ role: 'user', content: 'find the bug' });
    await assert.rejects(session.agentTools.rewind({ report: 'x' }), /No active checkpoint\./);
    const cp = await session.agentTools.checkpoint({ goal: 'look around' });
    assert.equal(cp.details.goal, 'look around');
    await session.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'reading lots of files' }] });
    await assert.rejects(session.agentTools.rewind({ report: '   ' }), /Report cannot be empty\./);
    const result = await session.agentTools.rewind({ report: '  the bug is in parse()  ' });
    assert.deepEqual(result.details, { report: 'the bug is in parse()', rewound: true });
    assert.doesNotMatch(await readFile(session.sessionRef, 'utf8'), /branch_summary/, 'nothing is applied inside the call');
    const messages = await session.agentTools.endTurn([{ role: 'user', content: 'find the bug' }]);
    assert.equal(messages?.at(-1)?.customType, 'rewind-report');
    const text = await readFile(session.sessionRef, 'utf8');
    assert.match(text, /"type":"branch_summary"[^\n]*the bug is in parse\(\)/);
    assert.match(text, /"customType":"rewind-report"/);
    assert.equal(await session.agentTools.endTurn(), undefined, 'a turn without a requested rewind changes nothing');
  });

  it('rewinds files to a message and back, with a dry run first', async () => {
    const session = await api.createSession({ title: 'Files' });
    const { entryId } = await session.appendMessage({ role: 'user', content: 'rewrite notes' });
    await writeFile(join(ws, 'notes.md'), 'v2\nmore\n');
    await session.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'rewritten' }] });
    const dry = await session.rewindFiles(entryId, { dryRun: true });
    assert.equal(dry.canRewind, true);
    assert.deepEqual(dry.filesChanged, ['notes.md']);
    assert.equal(await readFile(join(ws, 'notes.md'), 'utf8'), 'v2\nmore\n');
    const bad = await session.rewindFiles('nope', { dryRun: true });
    assert.equal(bad.canRewind, false);
    assert.match(bad.error ?? '', /nope/);
    await session.rewindFiles(entryId);
    assert.equal(await readFile(join(ws, 'notes.md'), 'utf8'), 'v1\n');
    await session.undoLastRewind();
    assert.equal(await readFile(join(ws, 'notes.md'), 'utf8'), 'v2\nmore\n');
  });

  it('takes back only the chosen hunks of a file, refuses stale ones, and undoes and redoes them exactly', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const at = (edit: (l: string[]) => void) => {
      const copy = [...lines];
      edit(copy);
      return copy.join('\n') + '\n';
    };
    await writeFile(
      join(ws, 'code.ts'),
      at(() => {}),
    );
    const session = await api.createSession({ title: 'Hunks' });
    const { entryId } = await session.appendMessage({ role: 'user', content: 'change the top and the bottom' });
    const agentWrote = at((l) => {
      l[1] = 'top changed';
      l[27] = 'bottom changed';
    });
    await writeFile(join(ws, 'code.ts'), agentWrote);
    await session.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'changed both' }] });

    const [hunks] = await session.fileHunks(entryId, ['code.ts']);
    assert.ok(hunks?.ok, 'a modified text file has hunks');
    assert.deepEqual(
      hunks.hunks.map((h) => [h.index, h.insertions, h.deletions]),
      [
        [1, 1, 1],
        [2, 1, 1],
      ],
    );
    const chosen = [{ path: 'code.ts', hunks: [2], hash: hunks.hash }];
    const dry = await session.rewindFiles(entryId, { dryRun: true, hunks: chosen });
    assert.equal(dry.canRewind, true);
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.partial?.hunks, f.partial?.of]),
      [['code.ts', [2], 2]],
    );
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), agentWrote, 'a dry run writes nothing');

    await session.rewindFiles(entryId, { hunks: chosen });
    const bottomBack = at((l) => {
      l[1] = 'top changed';
    });
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), bottomBack, 'only the second hunk came back');
    await session.undoLastRewind();
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), agentWrote);
    await session.redoRewind();
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), bottomBack, 'redo takes back the same hunk');
    await session.undoLastRewind();
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), agentWrote);

    // the same choice through Rewind to here (files only)
    const outcome = await session.rewindToHere(entryId, 'files', { hunks: [{ path: 'code.ts', hunks: [1] }] });
    assert.deepEqual(outcome.filesChanged, ['code.ts']);
    assert.equal(
      await readFile(join(ws, 'code.ts'), 'utf8'),
      at((l) => {
        l[27] = 'bottom changed';
      }),
    );
    await session.undoLastRewind();

    // hunks chosen from bytes the file no longer has are refused, and nothing is written
    await writeFile(join(ws, 'code.ts'), agentWrote + 'typed since\n');
    const stale = await session.rewindFiles(entryId, { dryRun: true, hunks: chosen });
    assert.equal(stale.canRewind, false);
    await assert.rejects(
      session.rewindFiles(entryId, { hunks: chosen }),
      (error: Error) => error.message === stale.error,
      "the real call throws the dry run's words",
    );
    assert.equal(await readFile(join(ws, 'code.ts'), 'utf8'), agentWrote + 'typed since\n');
  });

  it('refuses a session without a folder to belong to', async () => {
    const noFolder = createApi(
      engine,
      () => {},
      () => undefined,
    );
    await assert.rejects(noFolder.createSession(), /Open a workspace folder first/);
  });
});
