// A request to the checkpoint service has no time limit of its own (a first snapshot of a big tree takes long), so
// the client checks that the service is alive while it waits: a service that answers neither the request nor a ping
// (stopped, stuck in a loop, a wedged socket) fails the call, or hands it to this process, instead of hanging it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ensureSecret, infoPath, ServiceClient, ServiceFirstCheckpoints, ServiceStuck, socketPath } from '../../../src/core/service';
import { tempBase, writeTree } from '../files/helpers';

const QUICK = { silenceMs: 100, pingMs: 100 };

/** A socket at the home's service path that reads requests and answers only what `answer` returns (never: undefined). */
async function fakeService(home: string, answer: (req: { id: number; method: string }) => unknown): Promise<Server> {
  ensureSecret(home);
  const server = createServer((sock) => {
    let buf = '';
    sock.on('error', () => {});
    sock.on('data', (c) => {
      buf += c.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const req = JSON.parse(buf.slice(0, nl)) as { id: number; method: string };
        buf = buf.slice(nl + 1);
        const value = answer(req);
        if (value instanceof Promise) void value.then((v) => sock.write(JSON.stringify({ id: req.id, ok: true, value: v }) + '\n'));
        else if (value !== undefined) sock.write(JSON.stringify({ id: req.id, ok: true, value }) + '\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(socketPath(home), r));
  return server;
}

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

test('a service that answers neither the request nor a ping fails the request, naming its process', { timeout: 10_000 }, async () => {
  const base = await tempBase('arw-svc-stuck-');
  const home = join(base.dir, 'home');
  const server = await fakeService(home, () => undefined);
  try {
    writeFileSync(infoPath(home), JSON.stringify({ pid: 424242, workspaces: [], startedAt: '' }));
    const client = await ServiceClient.connect(home, 1000, QUICK);
    assert.ok(client);
    const t = performance.now();
    await assert.rejects(client.request('listSnapshots', { workspace: base.dir, optionsKey: '', sessionId: 's' }), (err: Error) => {
      assert.ok(err instanceof ServiceStuck, String(err));
      assert.match(err.message, /listSnapshots request .* does not answer a ping .*process 424242/);
      return true;
    });
    assert.ok(performance.now() - t < 5_000, `gave up after ${performance.now() - t} ms`);
    client.close();
  } finally {
    await close(server);
    await base.cleanup();
  }
});

test('a service that takes long but answers pings is waited for', async () => {
  const base = await tempBase('arw-svc-slow-');
  const home = join(base.dir, 'home');
  let pings = 0;
  const server = await fakeService(home, (req) => {
    if (req.method === 'ping') return (pings++, { pid: process.pid, workspaces: [], startedAt: '' });
    return new Promise((r) => setTimeout(() => r(['done']), 800)); // eight silences long
  });
  try {
    const client = await ServiceClient.connect(home, 1000, QUICK);
    assert.ok(client);
    assert.deepEqual(await client.request('listSnapshots', { workspace: base.dir, optionsKey: '', sessionId: 's' }), ['done']);
    assert.ok(pings >= 3, `pinged ${pings} times while waiting`);
    client.close();
  } finally {
    await close(server);
    await base.cleanup();
  }
});

test('with a stuck service a snapshot is taken in this process, and a rewind says it may or may not be done', { timeout: 10_000 }, async () => {
  const base = await tempBase('arw-svc-stuck-cp-');
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'one\n' });
  const server = await fakeService(home, () => undefined);
  const cp = new ServiceFirstCheckpoints({ workspaceRoot: ws, home }, 1000, QUICK);
  try {
    const snap = await cp.snapshot('s', 'a1');
    assert.equal(cp.lastAnsweredBy, 'local');
    assert.equal(snap.files, 1);
    const stuckAgain = new ServiceFirstCheckpoints({ workspaceRoot: ws, home }, 1000, QUICK);
    try {
      await assert.rejects(
        stuckAgain.rewindFiles('s', 'a1', { anchor: { checkpointingEnabled: true, kind: 'user-message' } }),
        /does not answer a ping.*may or may not have done it/,
      );
    } finally {
      await stuckAgain.dispose();
    }
  } finally {
    await cp.dispose();
    await close(server);
    await base.cleanup();
  }
});
