// OpenCode behind the source interface: refs `<db>#<id>`, the workspace's sessions listed by their directory, the
// change signal (every session of the folder for a change, a stamp that moves with a session's rows only), a cached
// view read again when its stamp moved, and the conversation rewind through OpenCode's server (a stand-in `opencode`
// here that answers the fork request as 1.18.33 does and records it).
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseSettings } from '../../../../src/core/settings/settings';
import { OpenCodeForkRecords } from '../../../../src/core/sources/opencode/fork-records';
import { OpenCodeSource } from '../../../../src/core/sources/opencode/opencode-source';
import type { SourceContext } from '../../../../src/core/sources/source-adapter';
import { assistantMessage, ocId, userMessage, writeDb, type TestSession } from './builder';

const session = (directory: string, prompts: string[]): TestSession => ({
  id: ocId('ses'),
  directory,
  title: prompts[0],
  messages: prompts.flatMap((p) => {
    const u = userMessage(p);
    return [u, assistantMessage(u.id, [{ type: 'text', text: `did ${p}` }])];
  }),
});

/** A stand-in for `opencode serve`: prints where it listens, checks the password, answers POST /session/<id>/fork. */
const FAKE_SERVER = `#!/usr/bin/env node
const http = require('node:http');
const fs = require('node:fs');
const [, , record] = process.argv;
const args = process.argv.slice(3);
const auth = 'Basic ' + Buffer.from('opencode:' + process.env.OPENCODE_SERVER_PASSWORD).toString('base64');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    fs.appendFileSync(record, JSON.stringify({ args, cwd: process.cwd(), url: req.url, method: req.method, authorized: req.headers.authorization === auth, body, xdg: process.env.XDG_DATA_HOME }) + '\\n');
    if (req.headers.authorization !== auth) return res.writeHead(401).end();
    const m = /^\\/session\\/(ses_[A-Za-z0-9]+)\\/fork$/.exec(req.url);
    if (req.method !== 'POST' || !m) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'ses_forked000001', title: 'x (fork #1)' }));
  });
});
server.listen(0, '127.0.0.1', () => console.log('opencode server listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

describe('OpenCode source adapter', () => {
  let dir: string;
  let dataDir: string;
  let ws: string;
  let a: TestSession;
  let b: TestSession;
  let other: TestSession;
  const ctx = (): SourceContext => ({ settings: parseSettings(() => undefined, {}), workspaceRoots: [ws], warn: () => {} });
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-source-'));
    dataDir = join(dir, 'data', 'opencode');
    ws = join(dir, 'ws');
    mkdirSync(ws);
    a = session(ws, ['first', 'second']);
    b = session(join(ws, 'sub'), ['in a subfolder']);
    other = session(join(dir, 'elsewhere'), ['not here']);
    await writeDb(dataDir, [a, b, other]);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("lists the workspace's sessions as refs of the database, and opens them", async () => {
    const src = new OpenCodeSource({ dataDir });
    try {
      const listed = await src.list(ctx());
      assert.deepEqual(listed.map((l) => l.sessionId).sort(), [a.id, b.id].sort());
      const la = listed.find((l) => l.sessionId === a.id)!;
      assert.equal(la.sessionRef, `${join(dataDir, 'opencode.db')}#${a.id}`);
      assert.equal(la.source, 'opencode');
      assert.equal(la.cwd, ws);
      assert.equal(src.owns(la.sessionRef), true);
      assert.equal(src.owns(`${join(dataDir, 'opencode.db')}#../x`), false);
      assert.equal(src.owns(join(ws, 'x.jsonl')), false);
      assert.equal(src.fileOf(), join(dataDir, 'opencode.db'));
      assert.deepEqual(
        await src.findById(a.id.slice(0, 10)),
        [a, b, other].filter((s) => s.id.startsWith(a.id.slice(0, 10))).map((s) => src.refOf(s.id)),
      );
      assert.deepEqual((await src.refsOfChange()).sort(), [a, b, other].map((s) => src.refOf(s.id)).sort());
      const view = await src.open(la.sessionRef);
      assert.equal(view.sessionId, a.id);
      assert.equal(view.userPrompts().length, 2);
      await assert.rejects(src.open(src.refOf('ses_notthere')), /not found/);
    } finally {
      await src.dispose();
    }
  });

  it("a session's stamp moves when its rows change, not when another session's do; the view is read again then", async () => {
    const d = join(dir, 'data2', 'opencode');
    const s1 = session(ws, ['one']);
    const s2 = session(ws, ['two']);
    await writeDb(d, [s1, s2]);
    const src = new OpenCodeSource({ dataDir: d });
    try {
      const [r1, r2] = [src.refOf(s1.id), src.refOf(s2.id)];
      const [st1, st2] = [await src.stamp(r1), await src.stamp(r2)];
      const v1 = await src.open(r1);
      assert.equal(await src.open(r1), v1, 'unchanged: the same view');
      const u = userMessage('three');
      s2.messages.push(u, assistantMessage(u.id, [{ type: 'text', text: 'ok' }]));
      await new Promise((ok) => setTimeout(ok, 20));
      await writeDb(d, [s1, s2]);
      assert.equal(await src.stamp(r1), st1);
      assert.notEqual(await src.stamp(r2), st2);
      assert.equal((await src.open(r2)).userPrompts().length, 2);
      assert.equal(await src.stamp(src.refOf('ses_gone')), undefined);
    } finally {
      await src.dispose();
    }
  });

  it("rewinds the conversation through OpenCode's own fork at the message, run in the session's folder", async () => {
    const record = join(dir, 'server-calls.jsonl');
    const bin = join(dir, 'fake-opencode');
    writeFileSync(bin, FAKE_SERVER);
    chmodSync(bin, 0o755);
    const src = new OpenCodeSource({ dataDir, command: [process.execPath, bin, record] });
    try {
      const view = await src.open(src.refOf(a.id));
      const second = view.userPrompts()[1]!.entryId;
      assert.deepEqual(src.forkNote(view, second), { agent: 'OpenCode', resumeHint: 'opencode --session <the new session id>' });
      assert.match((src.forkNote(view, view.userPrompts()[0]!.entryId) as { error: string }).error, /first message/);
      const r = await src.rewindConversation(view, second, () => {});
      assert.deepEqual(r, {
        kind: 'fork',
        sessionId: 'ses_forked000001',
        sessionRef: src.refOf('ses_forked000001'),
        agent: 'OpenCode',
        resumeCommand: ['opencode', '--session', 'ses_forked000001'],
        promptText: 'second',
      });
      const calls = readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0], {
        args: ['serve', '--pure', '--hostname', '127.0.0.1', '--port', '0'],
        cwd: ws,
        url: `/session/${a.id}/fork`,
        method: 'POST',
        authorized: true,
        body: JSON.stringify({ messageID: second }),
        xdg: join(dir, 'data'),
      });
      await assert.rejects(
        src.rewindConversation(view, view.userPrompts()[0]!.entryId, () => {}),
        /first message/,
      );
    } finally {
      await src.dispose();
    }
  });

  it('the fork Rewind to here made is listed and opened as a fork of its origin (our record: OpenCode names no parent)', async () => {
    const record = join(dir, 'fork-calls.jsonl');
    const bin = join(dir, 'fake-opencode-fork');
    writeFileSync(bin, FAKE_SERVER);
    chmodSync(bin, 0o755);
    const d = join(dir, 'data-fork', 'opencode');
    const origin = session(ws, ['first', 'second']);
    // what 1.18.33's Session.fork writes: copies of the messages before the one forked at, under new ids, a
    // "(fork #1)" title and no parent_id
    const fork: TestSession = { ...session(ws, ['first']), id: 'ses_forked000001', title: 'first (fork #1)' };
    const unrelated = session(ws, ['on its own']);
    await writeDb(d, [origin, fork, unrelated]);
    const home = join(dir, 'ar-home-fork');
    const src = new OpenCodeSource({ dataDir: d, command: [process.execPath, bin, record], recordsHome: home });
    try {
      const before = await src.list(ctx());
      assert.deepEqual(
        before.filter((l) => l.fork),
        [],
        'nothing is a fork before one is made',
      );
      const forkView = await src.open(src.refOf(fork.id));
      assert.equal(forkView.forkedFrom, undefined);
      const view = await src.open(src.refOf(origin.id));
      const r = await src.rewindConversation(view, view.userPrompts()[1]!.entryId, () => {});
      assert.equal(r.kind === 'fork' && r.sessionId, fork.id);

      const listed = await src.list(ctx());
      assert.deepEqual(listed.find((l) => l.sessionId === fork.id)?.fork, { originSessionId: origin.id });
      assert.equal(listed.find((l) => l.sessionId === origin.id)?.fork, undefined);
      assert.equal(listed.find((l) => l.sessionId === unrelated.id)?.fork, undefined);
      // its view, read before the fork was recorded, is read again with its origin
      assert.deepEqual((await src.open(src.refOf(fork.id))).forkedFrom, { sessionId: origin.id, sessionRef: src.refOf(origin.id) });
      // another process of the same home (the extension beside the CLI) sees the record too
      const other = new OpenCodeSource({ dataDir: d, recordsHome: home });
      assert.deepEqual((await other.list(ctx())).find((l) => l.sessionId === fork.id)?.fork, { originSessionId: origin.id });
      await other.dispose();
    } finally {
      await src.dispose();
    }
  });

  it('fork records: only valid lines count (a torn or foreign line is skipped), the last record of a session wins', async () => {
    const home = join(dir, 'ar-home-records');
    const records = new OpenCodeForkRecords(home);
    assert.equal(records.of('ses_forked000001'), undefined, 'no file yet');
    records.add({ v: 1, sessionId: 'ses_forked000001', originSessionId: 'ses_origin00001', atMessageId: 'msg_at000001', at: '2026-11-27T00:00:00.000Z' });
    appendFileSync(
      records.file,
      '{"v":1,"sessionId":"ses_forked000002","originSessionId":"../x","atMessageId":"msg_a","at":"x"}\nnot json\n{"v":1,"sessionId":"ses_torn',
    );
    assert.equal(records.of('ses_forked000001')?.originSessionId, 'ses_origin00001');
    assert.equal(records.of('ses_forked000002'), undefined);
    appendFileSync(records.file, '\n');
    records.add({ v: 1, sessionId: 'ses_forked000001', originSessionId: 'ses_origin00002', atMessageId: 'msg_at000002', at: '2026-11-27T00:00:01.000Z' });
    assert.equal(records.of('ses_forked000001')?.originSessionId, 'ses_origin00002');
    assert.throws(() => records.add({ v: 1, sessionId: '../../etc', originSessionId: 'ses_a', atMessageId: 'msg_a', at: 'x' }));
  });

  it('a server that cannot start or quits, or a session folder that is gone, fails with a clear error', async () => {
    const view = await new OpenCodeSource({ dataDir }).open(`${join(dataDir, 'opencode.db')}#${a.id}`);
    const second = view.userPrompts()[1]!.entryId;
    const missing = new OpenCodeSource({ dataDir, command: [join(dir, 'no-such-opencode')] });
    await assert.rejects(
      missing.rewindConversation(view, second, () => {}),
      /cannot start .*AGENT_REWIND_OPENCODE_COMMAND/,
    );
    const quits = join(dir, 'quits');
    writeFileSync(quits, '#!/bin/sh\necho "database is locked" >&2\nexit 3\n');
    chmodSync(quits, 0o755);
    await assert.rejects(
      new OpenCodeSource({ dataDir, command: [quits] }).rewindConversation(view, second, () => {}),
      /exited \(3\) before it listened: database is locked/,
    );
    const gone = await new OpenCodeSource({ dataDir }).open(`${join(dataDir, 'opencode.db')}#${b.id}`);
    const noPrompt = { ...gone, promptOf: () => ({}), userPrompts: () => [] } as unknown as typeof gone;
    await assert.rejects(
      new OpenCodeSource({ dataDir, command: [quits] }).rewindConversation(noPrompt, 'msg_x', () => {}),
      /is not there any more/,
    );
  });
});
