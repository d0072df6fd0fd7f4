// Codex sessions through the engine, as the tree, transcript, preview and search see them: listed for the workspace
// by their cwd, read in place (the rollout's bytes never change), hook snapshots keyed by the turn id found at the
// prompt's message, and "Rewind to here" writing a fork rollout plus restoring the files; undo puts them back.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { readCodexSession } from '../../../src/core/sources/codex';
import { CodexSource } from '../../../src/core/sources/codex/codex-source';
import { runCodexHook } from '../../../src/core/sources/codex/hook-handler';
import { freshProcessSnapshot } from '../../../src/core/service/fresh-hook-snapshot';
import { Rollout } from '../sources/codex/builder';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('engine: Codex sessions', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let codexHome: string;
  let engine: RewindEngine;
  let file: string;
  let originalHash: string;
  const ids: Record<string, string> = {};
  const threadId = '01a20aad-aaaa-7000-8000-000000000001';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-engine-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    codexHome = join(dir, 'codexhome');
    await mkdir(ws, { recursive: true });
    const r = new Rollout(threadId, ws).turn('set up the parser', 'turn-1').say('Done: parser.ts written.').end();
    r.turn('now handle time zones', 'turn-2').shell('rm notes.txt && echo tz > tz.txt').say('Time zones handled.').end();
    file = r.write(codexHome);
    originalHash = await sha(file);
    const s = await readCodexSession(file, { home: codexHome });
    ids.p1 = s.userPrompts()[0]!.entryId;
    ids.p2 = s.userPrompts()[1]!.entryId;

    // What the UserPromptSubmit hook does for prompt 2: the workspace as it was then, keyed by the turn id.
    await writeFile(join(ws, 'parser.ts'), 'export const parse = 1;\n');
    await writeFile(join(ws, 'notes.txt'), 'keep me\n');
    assert.equal(
      (
        await runCodexHook(
          { hook_event_name: 'UserPromptSubmit', session_id: threadId, turn_id: 'turn-2', cwd: ws, prompt: 'now handle time zones' },
          { home, snapshot: freshProcessSnapshot(home, () => {}) },
        )
      ).action,
      'snapshot',
    );
    // …and what the agent did after it, with the shell.
    await rm(join(ws, 'notes.txt'));
    await writeFile(join(ws, 'tz.txt'), 'tz\n');
    await writeFile(join(ws, 'parser.ts'), 'export const parse = 2;\nexport const tz = true;\n');
    await runCodexHook({ hook_event_name: 'Stop', session_id: threadId, turn_id: 'turn-2', cwd: ws }, { home, snapshot: freshProcessSnapshot(home, () => {}) });

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new CodexSource({ home: codexHome })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the session for its workspace, labelled, with its first prompt as title and the snapshot at the prompt', async () => {
    const sessions = await engine.listSessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.source, 'codex');
    assert.equal(sessions[0]!.sessionId, threadId);
    assert.equal(sessions[0]!.title, 'set up the parser');
    const details = await engine.describeSession(file);
    assert.deepEqual(
      details.branches.map((b) => [b.name, b.isActive]),
      [['main', true]],
    );
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId),
      [ids.p2],
    );
  });

  it('shows the transcript read-only', async () => {
    const { model, items } = await engine.loadTranscript(file);
    assert.equal(model.source, 'codex');
    assert.deepEqual(model.readOnly, { agent: 'Codex' });
    assert.deepEqual(items.find((i) => i.entryId === ids.p2)?.fileCheckpoint, { files: 2 });
  });

  it('refuses everything that would write to the rollout, by name', async () => {
    await assert.rejects(engine.switchBranch(file, 'main'), /Codex session, and agent-rewind never writes to Codex's files/);
    await assert.rejects(engine.createCheckpoint(file, 'x'), /Codex session/);
    await assert.rejects(engine.appendMessage(file, { role: 'user', content: 'hi' }), /Codex session/);
    assert.equal(await sha(file), originalHash);
  });

  it('previews the rewind as a fork plus the files; the first prompt has no conversation before it', async () => {
    const preview = await engine.previewRewind(file, ids.p2!);
    assert.ok(preview.conversation.ok);
    assert.equal(preview.conversation.fork?.agent, 'Codex');
    assert.ok(preview.files.ok, JSON.stringify(preview.files));
    assert.deepEqual([...preview.files.filesChanged].sort(), ['notes.txt', 'parser.ts', 'tz.txt']);
    const first = await engine.previewRewind(file, ids.p1!);
    assert.equal(first.conversation.ok, false);
    assert.equal(await sha(file), originalHash);
  });

  it('finds its messages in search', async () => {
    const hits = await engine.searchMessages('time zones');
    assert.ok(
      hits.some((h) => h.sessionRef === file && h.entryId === ids.p2),
      JSON.stringify(hits),
    );
  });

  it('rewinds: a fork Codex can resume, the files as at the prompt, undo puts them back', async () => {
    const outcome = await engine.applyRewind(file, ids.p2!, 'all');
    assert.ok(outcome.fork);
    assert.deepEqual(outcome.fork.resumeCommand, ['codex', 'resume', outcome.fork.sessionId]);
    assert.equal(outcome.fork.promptText, 'now handle time zones');
    assert.ok(outcome.fork.sessionRef.startsWith(join(codexHome, 'sessions')));
    assert.equal(await sha(file), originalHash, 'the original rollout is never written');
    const fork = await readCodexSession(outcome.fork.sessionRef, { home: codexHome });
    assert.equal(fork.forkedFrom?.sessionId, threadId);
    // the copied lines keep their places, so the fork's entries have the original's ids
    const original = await readCodexSession(file, { home: codexHome });
    assert.deepEqual(
      fork.getPath().map((e) => e.id),
      original
        .getPath(ids.p2)
        .slice(0, -1)
        .map((e) => e.id),
    );
    assert.equal(fork.getPath().length, 2);
    assert.equal(await readFile(join(ws, 'notes.txt'), 'utf8'), 'keep me\n');
    assert.equal(await readFile(join(ws, 'parser.ts'), 'utf8'), 'export const parse = 1;\n');
    assert.deepEqual((await readdir(ws)).sort(), ['notes.txt', 'parser.ts']);

    await engine.undoLastRewind(file);
    assert.deepEqual((await readdir(ws)).sort(), ['parser.ts', 'tz.txt']);
    assert.equal(await readFile(join(ws, 'parser.ts'), 'utf8'), 'export const parse = 2;\nexport const tz = true;\n');
  });
});
