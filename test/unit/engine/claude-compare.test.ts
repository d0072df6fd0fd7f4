// Compare branches on a Claude Code session (read-only): the prompt was rewound and asked again, each prompt's files
// snapshotted under the hook's prompt id; the comparison finds both snapshots at their messages and diffs them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { FileCheckpointer } from '../../../src/core/files';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { Transcript } from '../sources/claude/builder';

describe('engine.compareBranches on a Claude Code session', () => {
  let dir: string;
  let engine: RewindEngine;
  let file: string;
  const ids: Record<string, string> = {};
  const sessionId = 'bbbbbbbb-1111-4222-8333-444444444444';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-claude-compare-'));
    const home = join(dir, 'home');
    const ws = join(dir, 'ws');
    const config = join(dir, 'claude');
    await mkdir(ws, { recursive: true });
    const t = new Transcript(sessionId, ws);
    ids.p1 = t.user(null, 'set up the parser', { promptId: 'prompt-1' });
    ids.a1 = t.text(ids.p1, 'msg_1', 'Parser written.');
    ids.p2 = t.user(ids.a1, 'use a regex', { promptId: 'prompt-2' });
    ids.a2 = t.text(ids.p2, 'msg_2', 'Regex parser.');
    ids.p2b = t.user(ids.a1, 'use a hand-written lexer', { promptId: 'prompt-2b' });
    ids.a2b = t.text(ids.p2b, 'msg_3', 'Lexer written.');
    file = t.write(config, '-claude-compare-ws');

    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await writeFile(join(ws, 'parser.ts'), 'export const parse = /x/;\n');
    await fc.snapshot(sessionId, 'prompt-2', 'user-message');
    await writeFile(join(ws, 'parser.ts'), 'export const parse = lex;\n');
    await writeFile(join(ws, 'lexer.ts'), 'export const lex = 1;\n');
    await fc.snapshot(sessionId, 'prompt-2b', 'user-message');
    await fc.dispose();

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config] })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('compares the two answers to the rewound prompt, files included, and writes nothing', async () => {
    const before = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    const branches = await engine.branches(file);
    assert.equal(branches.length, 2);
    const onP2 = branches.find((b) => b.headMessageId === ids.a2)!.name;
    const onP2b = branches.find((b) => b.headMessageId === ids.a2b)!.name;
    const m = await engine.compareBranches(file, onP2, onP2b);
    assert.equal(m.readOnly?.agent, 'Claude Code');
    assert.equal(m.divergence?.entryId, ids.a1);
    assert.deepEqual(
      m.a.messages.map((x) => x.entryId),
      [ids.p2, ids.a2],
    );
    assert.deepEqual(
      m.b.messages.map((x) => x.entryId),
      [ids.p2b, ids.a2b],
    );
    assert.equal(m.a.snapshot?.anchorEntryId, ids.p2);
    assert.equal(m.b.snapshot?.anchorEntryId, ids.p2b);
    assert.ok(m.files.ok);
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status, f.insertions, f.deletions]),
      [
        ['lexer.ts', 'added', 1, 0],
        ['parser.ts', 'modified', 1, 1],
      ],
    );
    // the diff editor's sides, read through the message ids (their snapshots are keyed by prompt id)
    assert.equal((await engine.fileAtAnchor(file, m.a.snapshot!.anchorEntryId, 'parser.ts'))?.toString(), 'export const parse = /x/;\n');
    assert.equal((await engine.fileAtAnchor(file, m.b.snapshot!.anchorEntryId, 'parser.ts'))?.toString(), 'export const parse = lex;\n');
    assert.equal(
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex'),
      before,
      'the transcript is never written',
    );
  });
});
