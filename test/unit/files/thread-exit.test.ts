// A worker thread never keeps a process alive by itself, and an answer awaited from one does (thread-start.ts): Node
// refs a worker again when a 'message' listener is added after unref(), so a thread that was not closed kept its
// process alive for as long as it lived.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashObject } from '../../../src/core/files/store/object-store';
import { bundleForNode } from '../../support/node-bundle';
import { bundleThreadsInto, tempBase, writeTree } from './helpers';

/** Far over a child's own work after its last output here, far under "never". */
const EXIT_WITHIN_MS = 8_000;

/** Runs the child; its output, and how long it lived after its last output (killed once well past the limit). */
function run(script: string, args: string[]): Promise<{ out: string; afterOutputMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let last = performance.now();
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS + 20_000);
    child.stdout.on('data', (d: Buffer) => ((out += d.toString()), (last = performance.now())));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') return reject(new Error(`child failed (${code ?? signal}): ${err}`));
      resolve({ out, afterOutputMs: performance.now() - last });
    });
  });
}

test('a hashing thread never closed answers a process that waits for nothing else, and then lets it exit', async () => {
  const base = await tempBase('arw-thread-exit-');
  try {
    const script = bundleForNode(join(__dirname, 'thread-exit-child.ts'), join(base.dir, 'child.cjs'));
    bundleThreadsInto(base.dir); // as in dist/: the threads' bundles beside the one that starts them
    const file = join(base.dir, 'one.txt');
    await writeFile(file, 'one file\n');
    const hashed = await run(script, ['hash', file]);
    assert.equal(hashed.out, `hash ${hashObject('blob', Buffer.from('one file\n'))}\n`);
    assert.ok(hashed.afterOutputMs < EXIT_WITHIN_MS, `lived ${Math.round(hashed.afterOutputMs)} ms after its answer`);
  } finally {
    await base.cleanup();
  }
});

test('a snapshot hashed on a thread and a compaction on its own, by a checkpointer never disposed: the process exits', async () => {
  const base = await tempBase('arw-thread-exit-');
  try {
    const script = bundleForNode(join(__dirname, 'thread-exit-child.ts'), join(base.dir, 'child.cjs'));
    bundleThreadsInto(base.dir);
    const ws = join(base.dir, 'ws');
    const store = join(base.dir, 'store');
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `file ${i}\n`.repeat(1 + i);
    await writeTree(ws, files);
    const done = await run(script, ['compact', ws, store]);
    assert.equal(done.out, 'compact 40 40\n');
    assert.ok(done.afterOutputMs < EXIT_WITHIN_MS, `lived ${Math.round(done.afterOutputMs)} ms after its answer`);
  } finally {
    await base.cleanup();
  }
});
