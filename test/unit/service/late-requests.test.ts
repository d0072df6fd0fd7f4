// Issue 22, item 2: a request whose caller has given up is never carried out afterwards. With the service stopped
// (SIGSTOP, a laptop lid, a debugger) the hook gave up and the prompt went on; when the service resumed it took the
// prompt's snapshot then, after the agent had edited files, and a rewind the CLI had reported as "may or may not have
// been done" was applied seconds later. Requests now carry their caller's deadline, checked before acting, before a
// snapshot's record is committed and before a restore starts; a closed connection counts as a caller gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { request } from 'node:http';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { checkpointOptionsKey, readSecret, ServiceFirstCheckpoints, socketPath } from '../../../src/core/service';
import { hookSocketPath } from '../../../src/core/service/paths';
import { cliCheckpointerOptions } from '../../../src/core/settings/settings-file';
import { tempBase, writeTree } from '../files/helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A checkpoint service in a child process (service-child.ts), so that it can be stopped with SIGSTOP. */
async function serviceProcess(home: string, ws: string): Promise<ChildProcess> {
  // with the CLI's options, as `agent-rewind serve` runs: the hook endpoint answers only those
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'service-child.ts'), home, JSON.stringify([ws]), 'cli'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}): ${out}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  await exited;
}

async function setup(prefix: string) {
  const base = await tempBase(prefix);
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  await writeTree(ws, { 'a.txt': 'at the prompt\n', 'src/b.txt': 'two\n' });
  return { base, ws: realpathSync(ws), home };
}

const cliOptions = (ws: string, home: string) => cliCheckpointerOptions(home, ws, () => {});
const local = (ws: string, home: string) => new FileCheckpointer(cliOptions(ws, home));

test('a hook the stopped service did not answer in time is never snapshotted when it resumes', { timeout: 60_000 }, async () => {
  const { base, ws, home } = await setup('arw-late-hook-');
  const service = await serviceProcess(home, ws);
  try {
    service.kill('SIGSTOP');
    // the hook client's request (as the launcher's Perl client sends it), given up on after its deadline
    const secret = readSecret(home)!;
    const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'sess-1', prompt_id: 'p-1', cwd: ws, prompt: 'go' });
    const body = `${secret}\n${ws}\n${input}`;
    const req = request({
      socketPath: hookSocketPath(home),
      path: '/hook/claude',
      method: 'POST',
      headers: { 'content-length': Buffer.byteLength(body), 'x-agent-rewind-deadline': Math.floor(Date.now() / 1000) + 2 },
    });
    req.on('error', () => {});
    req.end(body);
    await sleep(2500);
    // past the deadline the client has given up (its connection may linger a moment), the prompt goes on, and the
    // agent edits a file
    await writeFile(join(ws, 'a.txt'), 'the agent edited this\n');
    service.kill('SIGCONT');
    await sleep(1500); // the service reads the request now
    req.destroy();
    const fc = local(ws, home);
    try {
      assert.deepEqual(
        (await fc.listSnapshots('sess-1')).map((r) => r.anchorId),
        [],
        'no snapshot under the prompt: it would hold the edit made after the prompt',
      );
    } finally {
      await fc.dispose();
    }
  } finally {
    await stop(service);
    await base.cleanup();
  }
});

test('a rewind the CLI gave up on ("may or may not have been done") is not applied when the service resumes', { timeout: 60_000 }, async () => {
  const { base, ws, home } = await setup('arw-late-rewind-');
  const service = await serviceProcess(home, ws);
  const liveness = { silenceMs: 1000, pingMs: 1500 };
  try {
    const cp = new ServiceFirstCheckpoints(cliOptions(ws, home), 1000, liveness);
    try {
      await cp.snapshot('s', 'u1');
      assert.equal(cp.lastAnsweredBy, 'service');
    } finally {
      await cp.dispose();
    }
    await writeFile(join(ws, 'a.txt'), 'later work, kept\n');
    service.kill('SIGSTOP');
    const gaveUp = new ServiceFirstCheckpoints(cliOptions(ws, home), 1000, liveness);
    try {
      await assert.rejects(
        gaveUp.rewindFiles('s', 'u1', { anchor: { checkpointingEnabled: true, kind: 'user-message' }, overwriteUserModified: true }),
        /may or may not have done it/,
      );
    } finally {
      await gaveUp.dispose();
    }
    service.kill('SIGCONT');
    await sleep(2000);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'later work, kept\n', 'the rewind was not applied after the CLI gave up');
  } finally {
    await stop(service);
    await base.cleanup();
  }
});

test('a turn-end snapshot taken in-process after the stopped service did not answer is not replaced by the late one', { timeout: 60_000 }, async () => {
  const { base, ws, home } = await setup('arw-late-turn-');
  const service = await serviceProcess(home, ws);
  try {
    service.kill('SIGSTOP');
    const cp = new ServiceFirstCheckpoints(cliOptions(ws, home), 1000, { silenceMs: 1000, pingMs: 1500 });
    try {
      await cp.snapshot('s', 'p-1:turn-end', 'turn-end');
      assert.equal(cp.lastAnsweredBy, 'local', 'taken in this process once the service did not answer');
    } finally {
      await cp.dispose();
    }
    await writeFile(join(ws, 'a.txt'), 'a hand edit after the turn\n');
    service.kill('SIGCONT');
    await sleep(2000);
    const fc = local(ws, home);
    try {
      assert.equal(
        (await fc.readFileAtAnchor('s', 'p-1:turn-end', 'a.txt'))?.toString(),
        'at the prompt\n',
        'the turn-end snapshot is the turn end, not the hand edit',
      );
    } finally {
      await fc.dispose();
    }
  } finally {
    await stop(service);
    await base.cleanup();
  }
});

test('a request past its deadline, or from another protocol, is refused with nothing done; the client then does it itself', { timeout: 60_000 }, async () => {
  const { base, ws, home } = await setup('arw-late-raw-');
  const service = await serviceProcess(home, ws);
  try {
    const secret = readSecret(home)!;
    const send = (fields: object) =>
      new Promise<{ ok: boolean; code?: string }>((resolve, reject) => {
        const s = createConnection(socketPath(home));
        let buf = '';
        s.on('error', reject);
        s.on('connect', () =>
          s.write(JSON.stringify({ v: 2, id: 1, secret, workspace: ws, optionsKey: checkpointOptionsKey(cliOptions(ws, home), ws), ...fields }) + '\n'),
        );
        s.on('data', (c) => {
          buf += c.toString();
          if (buf.includes('\n')) {
            s.destroy();
            resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
          }
        });
      });
    const snap = { method: 'snapshot', sessionId: 's', anchorId: 'u1', kind: 'user-message' };
    assert.equal((await send({ ...snap, deadline: Date.now() - 1 })).code, 'late');
    assert.equal((await send({ ...snap, deadline: Date.now() + 500 })).code, 'late', 'within the margin is late too');
    assert.equal((await send({ ...snap, v: 1, deadline: Date.now() + 10_000 })).code, 'version');
    const fc = local(ws, home);
    try {
      assert.deepEqual(await fc.listSnapshots('s'), [], 'nothing was done');
    } finally {
      await fc.dispose();
    }
    assert.equal((await send({ ...snap, deadline: Date.now() + 10_000 })).ok, true);
  } finally {
    await stop(service);
    await base.cleanup();
  }
});
