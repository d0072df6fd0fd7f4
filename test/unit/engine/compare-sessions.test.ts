// Issue 23 item 4: a Claude Code original has one branch, and Rewind to here continues in a fork (another session),
// so "Compare…" answered "has only one branch". compareBranches takes B from another session of the folder: the
// original's branch against its fork's, where they part (the fork's copied messages are shared), what each says after
// that, and the files between the original's last prompt snapshot and the fork's own. Any two sessions of the folder
// compare the same way; nothing is written.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { FileCheckpointer } from '../../../src/core/files';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { Transcript } from '../sources/claude/builder';
import { replaceFiles } from '../files/helpers';

const ORIGIN = '31313131-aaaa-4333-8444-555555555555';
const OTHER = '41414141-aaaa-4333-8444-555555555555';
const ELSEWHERE = '51515151-aaaa-4333-8444-555555555555';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('engine.compareBranches across sessions: a Claude Code original and its fork', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let ws2: string;
  let engine: RewindEngine;
  let originFile: string;
  let forkFile: string;
  let otherFile: string;
  let elsewhereFile: string;
  let forkId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-compare-sessions-'));
    home = join(dir, 'home');
    const config = join(dir, 'claude');
    ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    ws = await realpath(ws);
    const o = new Transcript(ORIGIN, ws);
    ids.p1 = o.user(null, 'write the parser', { uuid: 'cccccccc-0001', promptId: 'pid-1' });
    ids.a1 = o.text(ids.p1, 'msg_1', 'Parser written.', { uuid: 'cccccccc-0002', promptId: 'pid-1' });
    ids.p2 = o.user(ids.a1, 'use a regex', { uuid: 'cccccccc-0003', promptId: 'pid-2' });
    ids.a2 = o.text(ids.p2, 'msg_2', 'Regex parser.', { uuid: 'cccccccc-0004', promptId: 'pid-2' });
    originFile = o.write(config, '-compare-sessions-ws');
    const other = new Transcript(OTHER, ws);
    ids.q1 = other.user(null, 'something else entirely', { uuid: 'dddddddd-0001', promptId: 'pid-q1' });
    other.text(ids.q1, 'msg_9', 'Done.', { uuid: 'dddddddd-0002', promptId: 'pid-q1' });
    otherFile = other.write(config, '-compare-sessions-ws');
    ws2 = await realpath(await mkdtemp(join(dir, 'ws2-')));
    const elsewhere = new Transcript(ELSEWHERE, ws2);
    elsewhere.user(null, 'in another folder', { uuid: 'ffffffff-0001', promptId: 'pid-e1' });
    elsewhereFile = elsewhere.write(config, '-compare-sessions-ws2');
    const fcElsewhere = new FileCheckpointer({ workspaceRoot: ws2, home });
    await fcElsewhere.snapshot(ELSEWHERE, 'pid-e1', 'user-message');
    await fcElsewhere.dispose();

    // the hook's snapshots of the original's prompts
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await replaceFiles(ws, { 'parser.ts': 'parse = 1\n' });
    await fc.snapshot(ORIGIN, 'pid-1', 'user-message');
    await replaceFiles(ws, { 'parser.ts': 'parse = /x/\n', 'regex.ts': 'r\n' });
    await fc.snapshot(ORIGIN, 'pid-2', 'user-message');
    await replaceFiles(ws, { 'parser.ts': 'parse = lex\n', 'lexer.ts': 'lex\n' });
    await fc.snapshot(OTHER, 'pid-q1', 'user-message');
    await fc.dispose();

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws, ws2],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
    // Rewind to here on the second prompt (conversation only), then the user asks again in the fork
    const rewound = await engine.applyRewind(originFile, ids.p2, 'conversation');
    assert.ok(rewound.fork);
    forkFile = rewound.fork.sessionRef;
    forkId = rewound.fork.sessionId;
    const f = new Transcript(forkId, ws);
    ids.fp = f.user(ids.a1, 'use a hand-written lexer', { uuid: 'eeeeeeee-0001', promptId: 'pid-fork' });
    ids.fa = f.text(ids.fp, 'msg_3', 'Lexer written.', { uuid: 'eeeeeeee-0002', promptId: 'pid-fork' });
    await appendFile(forkFile, f.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const fc2 = new FileCheckpointer({ workspaceRoot: ws, home });
    await replaceFiles(ws, { 'parser.ts': 'parse = lex\n', 'lexer.ts': 'lex\n' });
    await fc2.snapshot(forkId, 'pid-fork', 'user-message');
    await fc2.dispose();
    await engine.sessionChanged(forkFile);
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('the original and its fork each have one branch (what made "Compare…" give up)', async () => {
    assert.equal((await engine.branches(originFile)).length, 1);
    assert.equal((await engine.branches(forkFile)).length, 1);
    const forks = (await engine.listSessions()).filter((s) => s.fork?.originSessionId === ORIGIN);
    assert.deepEqual(
      forks.map((s) => s.sessionRef),
      [forkFile],
    );
  });

  it("compares the original's branch with the fork's: shared messages, each side's own, the files between them", async () => {
    const [a] = await engine.branches(originFile);
    const [b] = await engine.branches(forkFile);
    const store = join(home, 'checkpoints');
    const before = [await sha(originFile), await sha(forkFile), (await readdir(store, { recursive: true })).length];
    const m = await engine.compareBranches(originFile, a!.name, b!.name, { sessionRefB: forkFile });
    assert.equal(m.readOnly?.agent, 'Claude Code');
    assert.equal(m.divergence?.entryId, ids.a1, 'they part after the reply both have');
    assert.deepEqual(
      m.a.messages.map((x) => x.entryId),
      [ids.p2, ids.a2],
    );
    assert.deepEqual(
      m.b.messages.map((x) => x.entryId),
      [ids.fp, ids.fa],
    );
    assert.equal(m.a.session?.sessionRef, originFile);
    assert.equal(m.b.session?.sessionRef, forkFile);
    assert.equal(m.b.session?.sessionId, forkId);
    assert.equal(m.a.snapshot?.anchorEntryId, ids.p2);
    assert.equal(m.b.snapshot?.anchorEntryId, ids.fp);
    assert.equal(m.b.snapshot?.afterDivergence, true);
    assert.ok(m.files.ok, JSON.stringify(m.files));
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status]),
      [
        ['lexer.ts', 'added'],
        ['parser.ts', 'modified'],
        ['regex.ts', 'deleted'],
      ],
    );
    assert.deepEqual([await sha(originFile), await sha(forkFile), (await readdir(store, { recursive: true })).length], before, 'nothing was written');
  });

  it('A and B swapped: the fork against the original, from the fork files to the original files', async () => {
    const m = await engine.compareBranches(forkFile, 'main', 'main', { sessionRefB: originFile });
    assert.equal(m.a.session?.sessionRef, forkFile);
    assert.equal(m.divergence?.entryId, ids.a1);
    assert.ok(m.files.ok);
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status]),
      [
        ['lexer.ts', 'deleted'],
        ['parser.ts', 'modified'],
        ['regex.ts', 'added'],
      ],
    );
  });

  it('compares any two sessions of the folder: no shared message, files from their snapshots', async () => {
    const m = await engine.compareBranches(originFile, 'main', 'main', { sessionRefB: otherFile });
    assert.equal(m.divergence, null);
    assert.equal(m.a.messages.length, 4);
    assert.equal(m.b.messages.length, 2);
    assert.ok(m.files.ok);
    assert.deepEqual(
      m.files.files.map((f) => [f.path, f.status]),
      [
        ['lexer.ts', 'added'],
        ['parser.ts', 'modified'],
        ['regex.ts', 'deleted'],
      ],
    );
  });

  it('two sessions of different folders: the conversations are compared, the files are refused with the reason', async () => {
    const m = await engine.compareBranches(originFile, 'main', 'main', { sessionRefB: elsewhereFile });
    assert.equal(m.b.messages.length, 1);
    assert.ok(!m.files.ok);
    assert.match(m.files.error, /The two sessions worked in different folders \(.*ws and .*ws2-.*\), so their files cannot be compared/);
  });

  it('one session and no sessionRefB: the branches of that session, as before (no session on the sides)', async () => {
    const m = await engine.compareBranches(originFile, 'main', 'main');
    assert.equal(m.a.session, undefined);
    assert.equal(m.b.session, undefined);
    assert.deepEqual(m.a.messages, []);
    assert.ok(m.files.ok && m.files.sameSnapshot);
  });
});
