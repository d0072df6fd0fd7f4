// Issue 27, items 5 and 6, through the engine the extension runs: two sessions of ours take turns in one folder; the
// workspace timeline lists both sessions' snapshots interleaved, newest first, each named by its session and prompt;
// the described blame names each line's prompt (agent, session title, text, when sent) or the user.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { ownersOfText } from '../../../src/core/engine';
import { parseSettings } from '../../../src/core/settings/settings';

describe('engine: the workspace timeline and the described blame of two sessions in one folder', () => {
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let a: string;
  let b: string;
  const ids: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-timeline-view-'));
    ws = join(dir, 'ws');
    await mkdir(ws, { recursive: true });
    await writeFile(join(ws, 'app.txt'), 'one\n');
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false })[k], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    a = await engine.createSession(ws, { title: 'Session A' });
    b = await engine.createSession(ws, { title: 'Session B' });
    const say = async (file: string, role: 'user' | 'assistant', text: string) =>
      (await engine.appendMessage(file, role === 'user' ? { role, content: text } : { role, content: [{ type: 'text', text }] })).entryId;
    ids.a1 = await say(a, 'user', 'add two');
    await writeFile(join(ws, 'app.txt'), 'one\ntwo\n');
    ids.a1r = await say(a, 'assistant', 'added');
    ids.b1 = await say(b, 'user', 'add three');
    await writeFile(join(ws, 'app.txt'), 'one\ntwo\nthree\n');
    ids.b1r = await say(b, 'assistant', 'added');
    ids.a2 = await say(a, 'user', 'nothing');
    ids.a2r = await say(a, 'assistant', 'nothing done');
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists both sessions’ snapshots interleaved, newest first, with session, prompt and kind', async () => {
    const points = await engine.workspaceTimeline();
    const rows = points.map((p) => [p.session?.title, p.kind, p.prompt?.text]);
    assert.deepEqual(rows, [
      ['Session A', 'turn-end', 'nothing'],
      ['Session A', 'prompt', 'nothing'],
      ['Session B', 'turn-end', 'add three'],
      ['Session B', 'prompt', 'add three'],
      ['Session A', 'turn-end', 'add two'],
      ['Session A', 'prompt', 'add two'],
    ]);
    assert.equal(points[3]!.prompt?.messageId, ids.b1, 'a prompt is named by its user message id (what Open Transcript takes)');
    assert.equal(points[3]!.session?.sessionRef, b);
    assert.equal(points[3]!.session?.source, 'agent-rewind');
    assert.deepEqual(
      points.map((p) => p.index),
      [5, 4, 3, 2, 1, 0],
      'each point keeps its place on the folder’s timeline',
    );
    for (let i = 1; i < points.length; i++) assert.ok(points[i - 1]!.at >= points[i]!.at, 'newest first');
  });

  it('names each line’s prompt (session title, text, when sent), and an unsaved line is nobody’s prompt', async () => {
    const blame = await engine.describedBlame(join(ws, 'app.txt'));
    const who = blame.lines.map((l) => [l.text, l.owner.by === 'turn' ? `${l.owner.session?.title}: ${l.owner.promptInfo?.text}` : l.owner.by]);
    assert.deepEqual(who, [
      ['one', 'user'],
      ['two', 'Session A: add two'],
      ['three', 'Session B: add three'],
    ]);
    const three = blame.lines[2]!.owner;
    assert.equal(three.by === 'turn' && three.messageId, ids.b1);
    assert.ok(three.by === 'turn' && three.promptInfo?.sentAt && !Number.isNaN(Date.parse(three.promptInfo.sentAt)));
    const owners = ownersOfText(blame, 'one\nzero\ntwo\nthree\n');
    assert.deepEqual(
      owners.map((o) => (o.by === 'turn' ? o.promptInfo?.text : o.by)),
      ['user', 'unsaved', 'add two', 'add three'],
    );
  });

  it('names the timeline file every snapshot of the folder is appended to', () => {
    const [file] = engine.timelineFiles();
    assert.match(file!, /timeline\.jsonl$/);
    assert.ok(statSync(file!).size > 0, 'the snapshots above are on it');
  });

  it('names a prompt by its id after a rewind has left its branch (File History named it by its id before)', async () => {
    await engine.applyRewind(a, ids.a1!, 'conversation');
    const active = (await engine.userMessages(a)).map((m) => m.entryId);
    assert.ok(!active.includes(ids.a2!), 'the prompt is no longer on the active branch');
    assert.equal((await engine.namedPrompt(a, ids.a2!))?.text, 'nothing');
    assert.equal(await engine.namedPrompt(a, 'no-such-id'), undefined);
  });
});
