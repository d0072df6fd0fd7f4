// Claude Code sessions through the engine, as the tree, transcript, preview and search see them: listed for the
// workspace by their cwd, read in place (the transcript's bytes never change), file snapshots taken under the
// hook's prompt id found at the prompt's message, and "Rewind to here" writing a fork plus restoring the files.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { FileCheckpointer } from '../../../src/core/files';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { readClaudeSession } from '../../../src/core/sources/claude';
import { appendPromptRecord, sha256Hex } from '../../../src/core/sources/claude/prompt-records';
import { Transcript } from '../sources/claude/builder';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('engine: Claude Code sessions', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let config: string;
  let engine: RewindEngine;
  let file: string;
  let originalHash: string;
  const ids: Record<string, string> = {};
  const sessionId = 'aaaaaaaa-1111-4222-8333-444444444444';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-claude-engine-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    config = join(dir, 'claude');
    await mkdir(ws, { recursive: true });
    const t = new Transcript(sessionId, ws);
    ids.p1 = t.user(null, 'set up the parser', { promptId: 'prompt-1' });
    ids.a1 = t.text(ids.p1, 'msg_1', 'Done: parser.ts written.');
    ids.p2 = t.user(ids.a1, 'now handle time zones', { promptId: 'prompt-2' });
    ids.a2 = t.toolUse(ids.p2, 'msg_2', 'toolu_1', 'Bash', { command: 'rm notes.txt && echo tz > tz.txt' });
    ids.r2 = t.toolResult(ids.a2, 'toolu_1', '');
    ids.a2b = t.text(ids.r2, 'msg_3', 'Time zones handled.');
    file = t.write(config, '-claude-test-ws');
    originalHash = await sha(file);

    // What the UserPromptSubmit hook does for prompt 2: the workspace as it was then, keyed by the hook's prompt_id.
    await writeFile(join(ws, 'parser.ts'), 'export const parse = 1;\n');
    await writeFile(join(ws, 'notes.txt'), 'keep me\n');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot(sessionId, 'prompt-2', 'user-message');
    await fc.dispose();
    // …and what the agent did after it, with Bash.
    await rm(join(ws, 'notes.txt'));
    await writeFile(join(ws, 'tz.txt'), 'tz\n');
    await writeFile(join(ws, 'parser.ts'), 'export const parse = 2;\nexport const tz = true;\n');

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the session for its workspace, labelled, with its first prompt as title', async () => {
    const sessions = await engine.listSessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.source, 'claude');
    assert.equal(sessions[0]!.sessionId, sessionId);
    assert.equal(sessions[0]!.title, 'set up the parser');
    const details = await engine.describeSession(file);
    assert.deepEqual(
      details.branches.map((b) => [b.name, b.isActive]),
      [['main', true]],
    );
    // the hook's snapshot, found at the prompt's own message
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId),
      [ids.p2],
    );
  });

  it('shows the transcript read-only, with the snapshot on the prompt', async () => {
    const { model, items } = await engine.loadTranscript(file);
    assert.equal(model.source, 'claude');
    assert.deepEqual(model.readOnly, { agent: 'Claude Code' });
    const p2 = items.find((i) => i.entryId === ids.p2);
    assert.deepEqual(p2?.fileCheckpoint, { files: 2 });
    assert.equal(items.find((i) => i.entryId === ids.p1)?.fileCheckpoint, null);
  });

  it('refuses everything that would write to the transcript, by name', async () => {
    await assert.rejects(engine.switchBranch(file, 'main'), /Claude Code session, and agent-rewind never writes to Claude Code's files/);
    await assert.rejects(engine.createCheckpoint(file, 'x'), /Claude Code session/);
    await assert.rejects(engine.appendMessage(file, { role: 'user', content: 'hi' }), /Claude Code session/);
    assert.equal(await sha(file), originalHash);
  });

  it('previews the rewind as a fork plus the files, Bash-made changes included', async () => {
    const preview = await engine.previewRewind(file, ids.p2!);
    assert.ok(preview.conversation.ok);
    assert.equal(preview.conversation.fork?.agent, 'Claude Code');
    assert.ok(preview.files.ok, JSON.stringify(preview.files));
    assert.deepEqual([...preview.files.filesChanged].sort(), ['notes.txt', 'parser.ts', 'tz.txt']);
    assert.equal(await sha(file), originalHash);
  });

  it('says the first prompt has no conversation before it to continue, and still offers its files', async () => {
    const preview = await engine.previewRewind(file, ids.p1!);
    assert.equal(preview.conversation.ok, false);
    assert.match(!preview.conversation.ok ? preview.conversation.error : '', /first message of the Claude Code session/);
    assert.equal(preview.files.ok, false, 'no hook snapshot was taken at prompt 1');
  });

  it('finds its messages in search', async () => {
    const hits = await engine.searchMessages('time zones');
    assert.ok(
      hits.some((h) => h.sessionRef === file && h.entryId === ids.p2),
      JSON.stringify(hits),
    );
  });

  it('rewinds: a fork Claude Code can resume, the files as at the prompt, undo puts them back', async () => {
    const outcome = await engine.applyRewind(file, ids.p2!, 'all');
    assert.ok(outcome.fork);
    assert.deepEqual(outcome.fork.resumeCommand, ['claude', '--resume', outcome.fork.sessionId]);
    assert.equal(outcome.fork.promptText, 'now handle time zones');
    assert.equal(dirname(outcome.fork.sessionRef), dirname(file));
    assert.equal(await sha(file), originalHash, 'the original transcript is never written');
    const fork = await readClaudeSession(outcome.fork.sessionRef);
    assert.deepEqual(
      fork.getPath().map((e) => e.id),
      [ids.p1, ids.a1],
    );
    assert.equal(await readFile(join(ws, 'notes.txt'), 'utf8'), 'keep me\n');
    assert.equal(await readFile(join(ws, 'parser.ts'), 'utf8'), 'export const parse = 1;\n');
    assert.deepEqual((await readdir(ws)).sort(), ['notes.txt', 'parser.ts']);

    await engine.undoLastRewind(file);
    assert.deepEqual((await readdir(ws)).sort(), ['parser.ts', 'tz.txt']);
    assert.equal(await readFile(join(ws, 'parser.ts'), 'utf8'), 'export const parse = 2;\nexport const tz = true;\n');
  });

  it("finds a hook snapshot by the hook's record when the transcript line has no prompt id (older Claude Code)", async () => {
    const oldId = 'cccccccc-1111-4222-8333-444444444444';
    const t = new Transcript(oldId, ws);
    const p1 = t.user(null, 'old style prompt');
    t.text(p1, 'msg_9', 'ok');
    const before = 0; // the hook ran before the transcript existed
    const oldFile = t.write(config, '-claude-test-ws');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot(oldId, 'prompt-0190abcd', 'user-message');
    await fc.dispose();
    appendPromptRecord(home, oldId, {
      v: 1,
      anchorId: 'prompt-0190abcd',
      promptSha256: sha256Hex('old style prompt'),
      promptLength: 16,
      transcriptPath: oldFile,
      transcriptSize: before,
      cwd: ws,
      workspaceRoot: ws,
      at: new Date().toISOString(),
    });
    const details = await engine.describeSession(oldFile);
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId),
      [p1],
    );
    const preview = await engine.previewRewind(oldFile, p1);
    assert.ok(preview.files.ok, JSON.stringify(preview.files));
  });
});
