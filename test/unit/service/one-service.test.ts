// Issue 22, item 6: one checkpoint service per home, decided atomically. Two `serve` started at the same moment both
// found no socket answering and both listened (5 of 16 tries); stopping one then removed the socket the other listened
// on, leaving it running and unreachable. Now the home's service lock (file-lock.ts) decides, and a service removes
// only the socket file it made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { CheckpointService, probe, readSecret, ServiceRunningError, socketPath } from '../../../src/core/service';
import { hookSocketPath, serviceLockPath } from '../../../src/core/service/paths';
import { tempBase, writeTree } from '../files/helpers';

const CHILD = join(__dirname, 'service-child.ts');

interface Child {
  proc: ChildProcess;
  /** Resolves with the child's first line after "loaded": "ready" or "refused …". */
  outcome: Promise<string>;
}

async function loadedChild(home: string, ws: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, home, JSON.stringify([ws]), JSON.stringify({})], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ARW_CHILD_WAIT: '1' },
  });
  let out = '';
  let loaded!: () => void;
  const isLoaded = new Promise<void>((r) => (loaded = r));
  const outcome = new Promise<string>((resolve) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.startsWith('loaded\n')) loaded();
      const lines = out.split('\n');
      if (lines.length > 2) resolve(lines[1]!);
    });
    proc.once('exit', (code) => resolve(`exited ${code}: ${out}`));
  });
  await isLoaded;
  return { proc, outcome };
}

async function stopChild(c: Child): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill('SIGTERM');
  await exited;
}

test('two services started at the same moment on one home: one runs, the other is refused; stopping it leaves no socket', { timeout: 120_000 }, async () => {
  const base = await tempBase('arw-svc-twice-');
  try {
    const ws = join(base.dir, 'ws');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const TRIES = 6;
    for (let i = 0; i < TRIES; i++) {
      const home = join(base.dir, `home-${i}`);
      const pair = [await loadedChild(home, ws), await loadedChild(home, ws)];
      try {
        // both past their start-up, then told to start in the same instant
        for (const c of pair) c.proc.stdin!.write('go\n');
        const outcomes = await Promise.all(pair.map((c) => c.outcome));
        assert.deepEqual(
          outcomes.map((o) => (o === 'ready' ? 'ready' : o.startsWith('refused ') ? 'refused' : o)).sort(),
          ['ready', 'refused'],
          `try ${i}: ${outcomes.join(' | ')}`,
        );
        assert.match(
          outcomes.find((o) => o !== 'ready')!,
          /already running for this home/,
        );
        const secret = readSecret(home)!;
        const running = await probe(socketPath(home), secret, 2000);
        assert.equal(typeof running === 'object' && running.pid, pair[outcomes.indexOf('ready')]!.proc.pid, `try ${i}: the socket is the running service's`);
      } finally {
        for (const c of pair) await stopChild(c);
      }
      assert.equal(existsSync(socketPath(home)), false, `try ${i}: the stopped service removed its socket`);
      assert.equal(existsSync(hookSocketPath(home)), false, `try ${i}: and its hook socket`);
      // and the home is free again
      const next = new CheckpointService({ home, workspaces: [ws], watch: false });
      await next.start();
      await next.stop();
    }
  } finally {
    await base.cleanup();
  }
});

test('a running service refuses a second start in the same process too, and keeps serving', async () => {
  const base = await tempBase('arw-svc-second-');
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const first = new CheckpointService({ home, workspaces: [ws], watch: false });
    await first.start();
    try {
      const second = new CheckpointService({ home, workspaces: [ws], watch: false });
      await assert.rejects(second.start(), (err: Error) => err instanceof ServiceRunningError && /already running for this home \(pid \d+/.test(err.message));
      await second.stop();
      const running = await probe(socketPath(home), readSecret(home)!, 2000);
      assert.equal(typeof running === 'object' && running.pid, process.pid, 'the first one still answers');
    } finally {
      await first.stop();
    }
  } finally {
    await base.cleanup();
  }
});

test('a start that finds the lock just made by another start, its holder not written yet, is refused as the lock refuses', async () => {
  const base = await tempBase('arw-svc-lock-empty-');
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'a\n' });
    // the moment between the other start's exclusive create of the lock and its write of its name (the CI met it: the
    // refusal then said "already listening", as if an older service held the socket)
    mkdirSync(dirname(serviceLockPath(home)), { recursive: true });
    writeFileSync(serviceLockPath(home), '');
    const service = new CheckpointService({ home, workspaces: [ws], watch: false });
    await assert.rejects(
      service.start(),
      (err: Error) => err instanceof ServiceRunningError && /already running for this home \(starting at /.test(err.message),
    );
    await service.stop();
    assert.equal(existsSync(socketPath(home)), false, 'nothing listens');
  } finally {
    await base.cleanup();
  }
});

test("a stopped service never removes another's socket at its path", async () => {
  const base = await tempBase('arw-svc-other-sock-');
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const service = new CheckpointService({ home, workspaces: [ws], watch: false });
    await service.start();
    // another listener takes the path meanwhile (as a service of an older version, which takes no lock, would)
    unlinkSync(socketPath(home));
    const other = createServer((s) => s.end());
    await new Promise<void>((r) => other.listen(socketPath(home), r));
    const otherIno = lstatSync(socketPath(home)).ino;
    try {
      await service.stop();
      assert.ok(existsSync(socketPath(home)), "the other's socket is still there");
      assert.equal(lstatSync(socketPath(home)).ino, otherIno);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
  } finally {
    await base.cleanup();
  }
});

test("a killed service's lock does not keep the next one from starting", { timeout: 60_000 }, async () => {
  const base = await tempBase('arw-svc-killed-');
  try {
    const ws = join(base.dir, 'ws');
    const home = join(base.dir, 'home');
    await writeTree(ws, { 'a.txt': 'a\n' });
    const c = await loadedChild(home, ws);
    c.proc.stdin!.write('go\n');
    assert.equal(await c.outcome, 'ready');
    const exited = new Promise((r) => c.proc.once('exit', r));
    c.proc.kill('SIGKILL');
    await exited;
    const next = new CheckpointService({ home, workspaces: [ws], watch: false });
    await next.start();
    try {
      const running = await probe(socketPath(home), readSecret(home)!, 2000);
      assert.equal(typeof running === 'object' && running.pid, process.pid);
    } finally {
      await next.stop();
    }
  } finally {
    await base.cleanup();
  }
});
