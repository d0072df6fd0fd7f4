// The "Compare…" command's questions (compare-target.ts, which the command's handler runs with quick picks): a Claude
// Code original has one branch and Rewind to here continues in a fork, so "Compare…" on it said "has only one branch"
// and compared nothing (issue 23 item 4). Now A is its one branch and B is offered among its forks and origin first,
// then the workspace's other sessions; the choice compares through the engine.
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { chooseComparison, type ComparePicker, type PickRow } from '../../../src/extension/commands/compare-target';
import { nothingToCompareMessage } from '../../../src/extension/commands/compare-messages';
import { Transcript } from '../sources/claude/builder';

const ORIGIN = '61616161-aaaa-4333-8444-555555555555';
const OTHER = '71717171-aaaa-4333-8444-555555555555';

/** Answers each question with `answer(rows)` and keeps what was asked and said. */
class ScriptedPicker implements ComparePicker {
  readonly asked: { title: string; rows: PickRow<unknown>[] }[] = [];
  readonly said: string[] = [];
  constructor(private readonly answer: (rows: PickRow<unknown>[], title: string) => PickRow<unknown> | undefined) {}
  async pick<T>(rows: PickRow<T>[], opts: { title: string }): Promise<T | undefined> {
    this.asked.push({ title: opts.title, rows });
    return this.answer(rows, opts.title)?.value as T | undefined;
  }
  inform(message: string): void {
    this.said.push(message);
  }
}
const rowLabelled = (re: RegExp) => (rows: PickRow<unknown>[]) => rows.find((r) => r.value !== undefined && re.test(r.label));
const headings = (rows: PickRow<unknown>[]) => rows.filter((r) => r.value === undefined).map((r) => r.label);

describe('Compare… on a Claude Code original: its fork is offered as B', () => {
  let dir: string;
  let engine: RewindEngine;
  let originFile: string;
  let forkFile: string;
  let otherFile: string;
  let a1: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-compare-target-'));
    const home = join(dir, 'home');
    const config = join(dir, 'claude');
    const ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    const root = await realpath(ws);
    const o = new Transcript(ORIGIN, root);
    const p1 = o.user(null, 'write the parser', { uuid: 'abababab-0001', promptId: 'pid-1' });
    a1 = o.text(p1, 'msg_1', 'Parser written.', { uuid: 'abababab-0002', promptId: 'pid-1' });
    const p2 = o.user(a1, 'use a regex', { uuid: 'abababab-0003', promptId: 'pid-2' });
    o.text(p2, 'msg_2', 'Regex parser.', { uuid: 'abababab-0004', promptId: 'pid-2' });
    originFile = o.write(config, '-compare-target-ws');
    const other = new Transcript(OTHER, root);
    other.text(other.user(null, 'an unrelated task', { uuid: 'cdcdcdcd-0001' }), 'msg_9', 'Done.', { uuid: 'cdcdcdcd-0002' });
    otherFile = other.write(config, '-compare-target-ws');
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [root],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
    const rewound = await engine.applyRewind(originFile, p2, 'conversation');
    forkFile = rewound.fork!.sessionRef;
    const f = new Transcript(rewound.fork!.sessionId, root);
    f.text(f.user(a1, 'use a lexer', { uuid: 'efefefef-0001', promptId: 'pid-f' }), 'msg_3', 'Lexer.', { uuid: 'efefefef-0002' });
    await appendFile(forkFile, f.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await engine.sessionChanged(forkFile);
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the one branch as A, offers the fork (then the other sessions) as B, and compares the original with it', async () => {
    const ui = new ScriptedPicker(rowLabelled(/use a lexer/));
    const choice = await chooseComparison(engine, ui, { sessionRef: originFile });
    assert.deepEqual(ui.said, []);
    assert.equal(ui.asked.length, 1, 'A is not asked: the original has one branch; B is one pick (the fork has one branch)');
    const rows = ui.asked[0]!.rows;
    assert.deepEqual(headings(rows), ['Its forks and origin', 'Other sessions of this workspace']);
    const fork = rows[1]!;
    assert.match(fork.label, /^\$\(repo-forked\) use a lexer$/);
    assert.match(fork.description ?? '', /^a fork of this session · Fork: /);
    assert.match(rows[3]!.label, /an unrelated task/);
    assert.deepEqual(choice, { sessionRef: originFile, branchA: 'main', branchB: 'main', sessionRefB: forkFile });

    const m = await engine.compareBranches(choice!.sessionRef, choice!.branchA, choice!.branchB, { sessionRefB: choice!.sessionRefB! });
    assert.equal(m.divergence?.entryId, a1);
    assert.deepEqual(
      m.b.messages.map((x) => x.preview),
      ['use a lexer', 'Lexer.'],
    );
  });

  it('from the fork, its origin is offered first', async () => {
    const ui = new ScriptedPicker(rowLabelled(/comment-discussion\) write the parser/));
    const choice = await chooseComparison(engine, ui, { sessionRef: forkFile });
    assert.equal(ui.asked[0]!.rows[1]!.description, 'the origin of this fork');
    assert.deepEqual(choice, { sessionRef: forkFile, branchA: 'main', branchB: 'main', sessionRefB: originFile });
  });

  it('asks nothing when the argument names both sides, and nothing is compared when a pick is dismissed', async () => {
    const none = new ScriptedPicker(() => undefined);
    assert.deepEqual(await chooseComparison(engine, none, { sessionRef: originFile, branchA: 'main', branchB: 'main', sessionRefB: otherFile }), {
      sessionRef: originFile,
      branchA: 'main',
      branchB: 'main',
      sessionRefB: otherFile,
    });
    assert.equal(none.asked.length, 0);
    assert.equal(await chooseComparison(engine, none, { sessionRef: originFile }), undefined);
    assert.equal(none.asked.length, 1);
  });
});

describe('Compare… on our own sessions', () => {
  let dir: string;
  let engine: RewindEngine;
  let root: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-compare-target-ours-'));
    root = await realpath(await mkdtemp(join(dir, 'ws-')));
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false })[k as 'home'], {}),
      workspaceRoots: [root],
      warn: () => {},
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('one session of one branch, alone in the workspace: says there is nothing to compare', async () => {
    const file = await engine.createSession(root, { title: 'Alone' });
    await engine.appendMessage(file, { role: 'user', content: 'hello' });
    const ui = new ScriptedPicker(() => assert.fail('nothing should be asked'));
    assert.equal(await chooseComparison(engine, ui, { sessionRef: file }), undefined);
    assert.deepEqual(ui.said, [nothingToCompareMessage('Alone')]);
  });

  it("two branches: A is asked, B's rows start with this session's other branch, then the other sessions", async () => {
    const file = await engine.createSession(root, { title: 'Branchy' });
    const u1 = (await engine.appendMessage(file, { role: 'user', content: 'first' })).entryId;
    await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'one' }] });
    await engine.fork(file, u1);
    const ui = new ScriptedPicker((rows, title) =>
      title.startsWith('Compare: the first branch') ? rowLabelled(/ main$/)(rows) : rowLabelled(/main-v2/)(rows),
    );
    const choice = await chooseComparison(engine, ui, { sessionRef: file });
    assert.deepEqual(choice, { sessionRef: file, branchA: 'main', branchB: 'main-v2' });
    assert.deepEqual(headings(ui.asked[1]!.rows), ['Branches of this session', 'Other sessions of this workspace']);
    assert.ok(!ui.asked[1]!.rows.some((r) => / main$/.test(r.label)), 'A itself is not offered as B');
  });
});
