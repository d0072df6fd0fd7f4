// The checkpoint service: what it answers, what it refuses (no or a wrong secret, a folder it does not serve, a
// request too large or malformed), owner-only modes, another user cannot connect, and the client's fallback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, realpathSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { CheckpointService, ServiceClient, ServiceFirstCheckpoints, ServiceRunningError, secretPath, serviceDir, socketPath } from '../../../src/core/service';
import { checkpointOptionsKey } from '../../../src/core/service/options-key';
import { FileCheckpointer } from '../../../src/core/files';
import { CONNECT_UNDER_LOAD_MS, tempBase, userAnchor, writeTree } from '../files/helpers';

async function setup(prefix: string) {
  const base = await tempBase(prefix);
  chmodSync(base.dir, 0o755); // only the service's own modes keep others out
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  const other = join(base.dir, 'other');
  await writeTree(ws, { 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
  await writeTree(other, { 'c.txt': 'three\n' });
  const service = new CheckpointService({ home, workspaces: [ws] });
  await service.start();
  return { base, home, ws: realpathSync(ws), other: realpathSync(other), service };
}

/** One raw line to the socket, the first line back (parsed), or the error. */
function rawRequest(socket: string, line: string): Promise<{ ok: boolean; code?: string; message?: string; value?: unknown } | Error> {
  return new Promise((resolve) => {
    const s = createConnection(socket);
    let buf = '';
    s.on('error', (e) => resolve(e));
    s.on('connect', () => s.write(line + '\n'));
    s.on('data', (c) => {
      buf += c.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        s.destroy();
        resolve(JSON.parse(buf.slice(0, nl)));
      }
    });
    s.on('close', () => resolve(new Error('closed without an answer')));
  });
}

test(
  'a hunk selection goes through the service: listed, previewed and taken back there, refused there when the file changed',
  { timeout: 60_000 },
  async () => {
    const { base, home, ws, service } = await setup('arw-svc-hunks-');
    try {
      await writeFile(join(ws, 'a.txt'), 'one\ntwo\nthree\nfour\n');
      const cp = new ServiceFirstCheckpoints({ workspaceRoot: ws, home }, CONNECT_UNDER_LOAD_MS);
      await cp.snapshot('s', 'u1');
      await writeFile(join(ws, 'a.txt'), 'ONE\ntwo\nthree\nFOUR\n');
      const [listed] = await cp.fileHunks('s', 'u1', ['a.txt']);
      assert.ok(listed?.ok);
      assert.equal(listed.hunks.length, 2);
      const hunks = [{ path: 'a.txt', hunks: [2], hash: listed.hash }];
      const dry = await cp.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor, hunks });
      assert.equal(cp.lastAnsweredBy, 'service');
      assert.deepEqual([dry.filesChanged, dry.insertions, dry.deletions, dry.files[0]?.partial], [['a.txt'], 1, 1, { hunks: [2], of: 2, hash: listed.hash }]);
      await cp.rewindFiles('s', 'u1', { anchor: userAnchor, hunks });
      assert.equal(cp.lastAnsweredBy, 'service');
      assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'ONE\ntwo\nthree\nfour\n');
      await cp.undoLastRewind('s');
      assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'ONE\ntwo\nthree\nFOUR\n');
      await writeFile(join(ws, 'a.txt'), 'ONE\ntwo\nthree\nFOUR\nfive\n');
      await assert.rejects(cp.rewindFiles('s', 'u1', { anchor: userAnchor, hunks }), /a\.txt changed since its hunks were shown/);
      assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'ONE\ntwo\nthree\nFOUR\nfive\n');
      await cp.dispose();
    } finally {
      await service.stop();
      await base.cleanup();
    }
  },
);

test('snapshot, list, dry run, rewind and undo through the service equal the in-process results', { timeout: 60_000 }, async () => {
  const { base, home, ws, service } = await setup('arw-svc-');
  try {
    const cp = new ServiceFirstCheckpoints({ workspaceRoot: ws, home }, CONNECT_UNDER_LOAD_MS);
    const s1 = await cp.snapshot('s', 'u1');
    assert.equal(cp.lastAnsweredBy, 'service');
    await writeFile(join(ws, 'a.txt'), 'changed\n'); // right before the next call: the cookie barrier must see it
    await writeFile(join(ws, 'new.txt'), 'new\n');
    const dry = await cp.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(cp.lastAnsweredBy, 'service');
    assert.deepEqual([...dry.filesChanged].sort(), ['a.txt', 'new.txt']);
    assert.deepEqual(
      (await cp.listSnapshots('s')).map((r) => r.anchorId),
      ['u1'],
    );
    const done = await cp.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual([...done.filesChanged].sort(), ['a.txt', 'new.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'one\n');
    const again = await cp.snapshot('s', 'u2');
    assert.equal(again.root, s1.root, 'after the rewind the tree is as at u1');
    const undo = await cp.undoLastRewind('s');
    assert.equal(cp.lastAnsweredBy, 'service');
    assert.deepEqual([...undo.filesChanged].sort(), ['a.txt', 'new.txt']);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'changed\n');
    await cp.dispose();
    // the same snapshot from a process with no service and no cache
    const scratch = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'scratch-home') });
    const cp2 = new ServiceFirstCheckpoints({ workspaceRoot: ws, home }, CONNECT_UNDER_LOAD_MS);
    const viaService = await cp2.snapshot('s', 'u3');
    assert.equal(cp2.lastAnsweredBy, 'service');
    await cp2.dispose();
    assert.equal((await scratch.snapshot('s', 'x')).root, viaService.root);
    await scratch.dispose();
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a request without the secret, or with a wrong one, is refused', async () => {
  const { base, ws, service, home } = await setup('arw-svc-auth-');
  try {
    const key = checkpointOptionsKey({ workspaceRoot: ws, home }, ws);
    const body = { v: 2, id: 7, deadline: Date.now() + 10_000, method: 'listSnapshots', workspace: ws, optionsKey: key, sessionId: 's' };
    const none = await rawRequest(service.socket, JSON.stringify(body));
    assert.ok(!(none instanceof Error) && none.ok === false && none.code === 'unauthorized', JSON.stringify(none));
    const wrong = await rawRequest(service.socket, JSON.stringify({ ...body, secret: 'f'.repeat(64) }));
    assert.ok(!(wrong instanceof Error) && wrong.ok === false && wrong.code === 'unauthorized', JSON.stringify(wrong));
    const secret = (await readFile(secretPath(home), 'utf8')).trim();
    const right = await rawRequest(service.socket, JSON.stringify({ ...body, secret }));
    assert.ok(!(right instanceof Error) && right.ok === true, JSON.stringify(right));
    // malformed and oversized requests
    const bad = await rawRequest(service.socket, JSON.stringify({ ...body, secret, sessionId: 'a\u0000b' }));
    assert.ok(!(bad instanceof Error) && bad.code === 'bad-request', JSON.stringify(bad));
    const extra = await rawRequest(service.socket, JSON.stringify({ ...body, secret, method: 'gc' }));
    assert.ok(!(extra instanceof Error) && extra.code === 'bad-request', JSON.stringify(extra));
    const big = await rawRequest(service.socket, JSON.stringify({ ...body, secret, sessionId: 'x'.repeat(200_000) }));
    assert.ok(!(big instanceof Error) && big.code === 'too-large', JSON.stringify(big));
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a request for a folder the service does not serve is refused, and the client then works on its own', async () => {
  const { base, home, ws, other, service } = await setup('arw-svc-folder-');
  try {
    const client = await ServiceClient.connect(home);
    assert.ok(client);
    const key = checkpointOptionsKey({ workspaceRoot: other, home }, other);
    await assert.rejects(
      client.request('snapshot', { workspace: other, optionsKey: key, sessionId: 's', anchorId: 'a', kind: 'user-message' }),
      (e: Error & { code?: string }) => e.code === 'not-served',
    );
    // a path into the served folder is not the served folder: nothing from a request is resolved
    await assert.rejects(
      client.request('snapshot', { workspace: `${ws}/src/..`, optionsKey: key, sessionId: 's', anchorId: 'a', kind: 'user-message' }),
      (e: Error & { code?: string }) => e.code === 'not-served',
    );
    await assert.rejects(
      client.request('snapshot', { workspace: join(ws, 'src'), optionsKey: key, sessionId: 's', anchorId: 'a', kind: 'user-message' }),
      (e: Error & { code?: string }) => e.code === 'not-served',
    );
    // the served folder with other options (another exclude list) is refused too
    const otherKey = checkpointOptionsKey({ workspaceRoot: ws, home, exclude: ['*.log'] }, ws);
    await assert.rejects(
      client.request('listSnapshots', { workspace: ws, optionsKey: otherKey, sessionId: 's' }),
      (e: Error & { code?: string }) => e.code === 'options-differ',
    );
    client.close();
    const cp = new ServiceFirstCheckpoints({ workspaceRoot: other, home });
    await cp.snapshot('s', 'o1');
    assert.equal(cp.lastAnsweredBy, 'local');
    await cp.dispose();
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test(
  'the socket, its folder and the secret are owner-only; a second service says where the first is',
  { skip: process.platform === 'win32' && 'named pipes' },
  async () => {
    const { base, home, service, ws } = await setup('arw-svc-modes-');
    try {
      assert.equal(lstatSync(serviceDir(home)).mode & 0o777, 0o700);
      assert.equal(lstatSync(socketPath(home)).mode & 0o777, 0o600);
      assert.ok(lstatSync(socketPath(home)).isSocket());
      assert.equal(lstatSync(secretPath(home)).mode & 0o777, 0o600);
      await assert.rejects(
        new CheckpointService({ home, workspaces: [ws] }).start(),
        (e: Error) => e instanceof ServiceRunningError && e.message.includes(String(process.pid)) && e.message.includes(ws),
      );
    } finally {
      await service.stop();
      await base.cleanup();
    }
  },
);

const canDropUid = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

test(
  'another user cannot connect (a client run as nobody through setpriv)',
  { skip: !canDropUid && 'needs root and setpriv to run a client as another user' },
  async () => {
    const { base, home, service } = await setup('arw-svc-nobody-');
    try {
      await mkdir(join(base.dir, 'x'), { recursive: true });
      const attempt = (target: string) => {
        const script = `const s=require('net').createConnection(${JSON.stringify(target)});s.on('connect',()=>{console.log('CONNECTED');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(0)})`;
        const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script], {
          encoding: 'utf8',
          timeout: 10_000,
        });
        return (r.stdout || r.stderr).trim();
      };
      const readSecretAs = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'cat', secretPath(home)], { encoding: 'utf8' });
      assert.notEqual(readSecretAs.status, 0, 'nobody cannot read the secret');
      assert.equal(attempt(socketPath(home)), 'EACCES', 'blocked by the 0700 folder');
      // even with the folder opened up, the socket's own 0600 mode refuses the connect
      chmodSync(serviceDir(home), 0o711);
      try {
        assert.equal(attempt(socketPath(home)), 'EACCES', 'blocked by the 0600 socket');
      } finally {
        chmodSync(serviceDir(home), 0o700);
      }
    } finally {
      await service.stop();
      await base.cleanup();
    }
  },
);

// how fast the decision is (≤ 20 ms) is the service bench's fallback row; here, that it never waits for a timer: the
// connect timeout is set far above anything a refused or missing socket takes
test('with no socket or a dead socket the client decides without waiting for its connect timeout', async () => {
  const base = await tempBase('arw-svc-none-');
  try {
    const home = join(base.dir, 'home');
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'x\n' });
    const patience = 30_000;
    let t = performance.now();
    assert.equal(await ServiceClient.connect(home, patience), undefined);
    assert.ok(performance.now() - t < patience / 2, `no socket: ${performance.now() - t} ms`);
    // a service that stopped leaves no socket; one that was killed leaves it behind
    const svc = new CheckpointService({ home, workspaces: [ws], watch: false });
    await svc.start();
    await svc.stop();
    await mkdir(serviceDir(home), { recursive: true });
    const net = await import('node:net');
    const stale = net.createServer();
    await new Promise<void>((r) => stale.listen(socketPath(home), r));
    await new Promise<void>((r) => stale.close(() => r())); // removes the file on close: make a dead one by hand
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(socketPath(home), r));
    // @ts-expect-error private handle: close the fd but keep the file, as a killed process does
    dead._handle.close();
    t = performance.now();
    assert.equal(await ServiceClient.connect(home, patience), undefined);
    assert.ok(performance.now() - t < patience / 2, `dead socket: ${performance.now() - t} ms`);
    const cp = new ServiceFirstCheckpoints({ workspaceRoot: ws, home });
    await cp.snapshot('s', 'a');
    assert.equal(cp.lastAnsweredBy, 'local');
    await cp.dispose();
  } finally {
    await base.cleanup();
  }
});

test('the extension host runs the service in a worker thread; a second host stays off and says why', { timeout: 30_000 }, async () => {
  const { Worker } = await import('node:worker_threads');
  const { CheckpointServiceHost } = await import('../../../src/core/service/service-host');
  const base = await tempBase('arw-svc-host-');
  try {
    const home = join(base.dir, 'home');
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'x\n' });
    const source = join(__dirname, '../../../src/core/service/service-worker.ts');
    const start = () => new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true });
    const logs: string[] = [];
    const host = new CheckpointServiceHost(start, (m) => logs.push(m));
    await host.update({ home, workspaces: [ws] });
    assert.ok(
      logs.some((l) => l.includes('serving')),
      logs.join('\n'),
    );
    // the hosted service uses the options the CLI and the hooks use (the settings file)
    const { cliCheckpointerOptions } = await import('../../../src/core/settings/settings-file');
    const cp = new ServiceFirstCheckpoints(
      cliCheckpointerOptions(home, ws, () => {}),
      CONNECT_UNDER_LOAD_MS,
    );
    await cp.snapshot('s', 'a');
    assert.equal(cp.lastAnsweredBy, 'service');
    await cp.dispose();
    const second = new CheckpointServiceHost(start, (m) => logs.push(m));
    await second.update({ home, workspaces: [ws] });
    assert.ok(
      logs.some((l) => l.includes('already running')),
      logs.join('\n'),
    );
    await second.dispose();
    await host.update(undefined); // the setting turned off
    assert.equal(await ServiceClient.connect(home), undefined, 'no service after it was turned off');
  } finally {
    await base.cleanup();
  }
});

test('the service stops by itself after its idle time', async () => {
  const base = await tempBase('arw-svc-idle-');
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'x\n' });
    const svc = new CheckpointService({ home: join(base.dir, 'home'), workspaces: [ws], idleMs: 150, watch: false });
    await svc.start();
    const t = Date.now();
    await svc.stopped;
    assert.ok(Date.now() - t >= 100);
    assert.equal(await ServiceClient.connect(join(base.dir, 'home')), undefined);
  } finally {
    await base.cleanup();
  }
});

test('a serve request adds a folder only by its exact real path, with the options the service would use; stop stops it', { timeout: 60_000 }, async (t) => {
  const base = await tempBase('arw-svc-serve-');
  try {
    const home = join(base.dir, 'home');
    const ws = join(base.dir, 'ws');
    const other = join(base.dir, 'other');
    await writeTree(ws, { 'a.txt': 'one\n' });
    await writeTree(other, { 'c.txt': 'three\n', 'sub/d.txt': 'four\n' });
    const service = new CheckpointService({ home, workspaces: [ws], maxWorkspaces: 2 });
    await service.start();
    t.after(() => service.stop());
    const real = realpathSync(other);
    const key = checkpointOptionsKey({ workspaceRoot: real, home }, real);
    // a connection each: the service ends one after a bad request (and time to connect on a loaded machine)
    const ask = async (method: string, fields: Record<string, unknown>) => {
      const client = (await ServiceClient.connect(home, 10_000))!;
      try {
        return await client.request(method, fields);
      } finally {
        client.close();
      }
    };
    const refused = (code: string) => (e: Error & { code?: string }) => e.code === code;
    // not its real path (a path through a symlink, a path with ..), or other options: nothing is added
    await symlink(real, join(base.dir, 'link'));
    await assert.rejects(ask('serve', { workspace: join(base.dir, 'link'), optionsKey: key }), refused('bad-request'));
    await assert.rejects(ask('serve', { workspace: `${real}/sub/..`, optionsKey: key }), refused('bad-request'));
    await assert.rejects(
      ask('serve', { workspace: real, optionsKey: checkpointOptionsKey({ workspaceRoot: real, home, exclude: ['*.log'] }, real) }),
      refused('options-differ'),
    );
    await assert.rejects(ask('serve', { workspace: join(base.dir, 'missing'), optionsKey: key }), refused('failed'));
    assert.deepEqual(service.workspaces, [realpathSync(ws)]);
    // its real path and the client's options: served from now on
    assert.deepEqual(await ask('serve', { workspace: real, optionsKey: key }), { workspaces: [realpathSync(ws), real] });
    assert.deepEqual(await ask('serve', { workspace: real, optionsKey: key }), { workspaces: [realpathSync(ws), real] }, 'asked twice: the same');
    const cp = new ServiceFirstCheckpoints({ workspaceRoot: other, home }, CONNECT_UNDER_LOAD_MS);
    await writeFile(join(other, 'c.txt'), 'changed\n');
    await cp.snapshot('s', 'o1');
    assert.equal(cp.lastAnsweredBy, 'service');
    assert.equal((await cp.readFileAtAnchor('s', 'o1', 'c.txt'))?.toString(), 'changed\n');
    await cp.dispose();
    // no more than maxWorkspaces
    const third = realpathSync(base.dir);
    await assert.rejects(ask('serve', { workspace: third, optionsKey: checkpointOptionsKey({ workspaceRoot: third, home }, third) }), refused('too-large'));
    // stop: answered with its pid, then it stops
    assert.deepEqual(await ask('stop', {}), { pid: process.pid });
    await service.stopped;
    assert.equal(existsSync(socketPath(home)), false);
  } finally {
    await base.cleanup();
  }
});
