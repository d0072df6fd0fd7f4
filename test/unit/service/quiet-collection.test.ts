// A quiet checkpoint service collects the garbage its requests left (issue 26: what a snapshot drops is mostly
// ArrayBuffers in the C allocator, which V8 frees only in a full collection that a quiet service never ran, so its
// memory grew by ~0.85 MB per snapshot): once nothing is asked for a moment, when memory grew enough since the last
// collection, and never while a request is answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuietCollector } from '../../../src/core/service/quiet-collection';
import { CheckpointService, ServiceFirstCheckpoints } from '../../../src/core/service';
import { CONNECT_UNDER_LOAD_MS, tempBase, writeTree } from '../files/helpers';
import { join } from 'node:path';
import { connect } from 'node:net';
import { hookSocketPath } from '../../../src/core/service/paths';

const MB = 1024 * 1024;

function rig(opts: { minGrowthBytes?: number } = {}) {
  const state = { held: 10 * MB, busy: false, collected: 0, afterCollect: 10 * MB };
  const c = new QuietCollector({
    quietMs: 5,
    minGrowthBytes: opts.minGrowthBytes ?? 2 * MB,
    heldBytes: () => state.held,
    collect: () => {
      state.collected++;
      state.held = state.afterCollect;
    },
    busy: () => state.busy,
  });
  return { c, state };
}

test('collects once after requests settle when memory grew enough, not again until it grows again', async () => {
  const { c, state } = rig();
  state.held += 3 * MB;
  c.settled();
  c.settled(); // a second answer within the quiet time postpones, it does not add a collection
  await sleep(40);
  assert.equal(state.collected, 1);
  state.held += 1 * MB;
  c.settled();
  await sleep(40);
  assert.equal(state.collected, 1, 'grew 1 MB since the last collection: not worth one');
  state.held += 1.5 * MB; // 2.5 MB since then, over two quiet moments
  c.settled();
  await sleep(40);
  assert.equal(state.collected, 2);
  c.dispose();
});

test('by default it collects soon after an answer, done before a hook that comes 0.3 s later (the benchmark: git commits between hooks)', async () => {
  const state = { held: 10 * MB, collectedAt: -1 };
  const c = new QuietCollector({
    heldBytes: () => state.held,
    collect: () => {
      state.collectedAt = performance.now();
      state.held = 10 * MB;
    },
    busy: () => false,
  });
  state.held += 3 * MB;
  const answeredAt = performance.now();
  c.settled();
  await sleep(300);
  c.dispose();
  assert.ok(state.collectedAt > 0, 'no collection within 0.3 s of the answer');
  assert.ok(state.collectedAt - answeredAt < 250, `collected ${(state.collectedAt - answeredAt).toFixed(0)} ms after the answer`);
});

test('growth counts from the lowest point seen (V8 collected on its own meanwhile)', () => {
  const { c, state } = rig();
  state.held = 4 * MB; // below the 10 MB it started at
  assert.equal(c.collectIfGrown(), false);
  state.held = 6.5 * MB; // 2.5 MB above the low point, below the start
  assert.equal(c.collectIfGrown(), true);
  assert.equal(state.collected, 1);
});

test('never collects while a request is being answered', async () => {
  const { c, state } = rig();
  state.held += 5 * MB;
  state.busy = true;
  c.settled();
  await sleep(40);
  assert.equal(state.collected, 0);
  state.busy = false;
  c.settled(); // the request in flight, answered
  await sleep(40);
  assert.equal(state.collected, 1);
  c.dispose();
});

test('dispose cancels a collection due', async () => {
  const { c, state } = rig();
  state.held += 5 * MB;
  c.settled();
  c.dispose();
  await sleep(40);
  assert.equal(state.collected, 0);
});

/** A service over a two-file workspace that collects as soon as it is quiet, its trace lines kept, for `fn`. */
async function withQuietService(prefix: string, fn: (service: CheckpointService, home: string, lines: string[]) => Promise<void>) {
  const base = await tempBase(prefix);
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
  const lines: string[] = [];
  const service = new CheckpointService({
    home,
    workspaces: [ws],
    trace: true,
    log: (m) => lines.push(m),
    quietCollection: { quietMs: 10, minGrowthBytes: 0 },
  });
  await service.start();
  try {
    await fn(service, home, lines);
  } finally {
    await service.stop();
    await base.cleanup();
  }
}

/** One snapshot the service answers, through the client hooks and commands use. */
async function snapshotThroughService(service: CheckpointService, home: string) {
  const client = new ServiceFirstCheckpoints({ workspaceRoot: service.workspaces[0]!, home }, CONNECT_UNDER_LOAD_MS);
  try {
    await client.snapshot('s1', 'a1');
    assert.equal(client.lastAnsweredBy, 'service');
  } finally {
    await client.dispose();
  }
}

const collections = (lines: readonly string[]) => lines.filter((l) => l.startsWith('collected garbage when quiet')).length;

test('the service collects when quiet after a snapshot request (its trace says so)', () =>
  withQuietService('arw-quiet-', async (service, home, lines) => {
    await snapshotThroughService(service, home);
    for (let i = 0; i < 200 && collections(lines) === 0; i++) await sleep(20);
    assert.ok(collections(lines) > 0, lines.join('\n'));
  }));

test('the service does not collect while a hook client is connected with its request on its way, and does once it is gone', () =>
  withQuietService('arw-quiet-hook-', async (service, home, lines) => {
    // a hook's client that has connected and is still sending its request (perl started on a loaded machine)
    const hookClient = connect(hookSocketPath(home));
    try {
      await new Promise<void>((resolve, reject) => hookClient.once('connect', resolve).once('error', reject));
      hookClient.write('POST /hook/claude HTTP/1.1\r\nHost: agent-rewind\r\n');
      await sleep(50);
      const before = collections(lines);
      await snapshotThroughService(service, home);
      await sleep(300); // 30 quiet times after the snapshot's answer
      assert.equal(collections(lines), before, `collected while a hook request was on its way:\n${lines.join('\n')}`);
      hookClient.destroy();
      for (let i = 0; i < 200 && collections(lines) === before; i++) await sleep(20);
      assert.ok(collections(lines) > before, `no collection once the hook client had gone:\n${lines.join('\n')}`);
    } finally {
      hookClient.destroy();
    }
  }));
