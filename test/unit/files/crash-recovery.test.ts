import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { FileCheckpointer } from '../../../src/core/files';
import { bundleThreadsInto, fingerprint, tempBase, writeTree } from './helpers';

const RUNS = Number(process.env.AGENT_REWIND_CRASH_RUNS ?? 100);

/** Runs the child until it says "go", then kills it after `delayMs` (or lets it finish when undefined). */
function runChild(script: string, ws: string, store: string, delayMs: number | undefined): Promise<{ finished: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ws, store], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let start = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!start && out.includes('go\n')) {
        start = performance.now();
        if (delayMs !== undefined) setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL') return reject(new Error(`child failed (${code}): ${err}`));
      resolve({ finished: out.includes('done\n'), ms: performance.now() - start });
    });
  });
}

test(`SIGKILL during a restore at ${RUNS} random moments: after recover() the workspace is exactly before or after`, { timeout: 15 * 60_000 }, async () => {
  const base = await tempBase('arw-crash-');
  try {
    const script = join(base.dir, 'child.cjs');
    await build({
      entryPoints: [join(__dirname, 'crash-child.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: script,
      logLevel: 'error',
    });
    bundleThreadsInto(base.dir); // as in dist/: the threads' bundles beside the one that starts them

    // template: state A snapshotted as u1, then changed into state B (the "before" of every restore)
    const tplWs = join(base.dir, 'tpl-ws');
    const tplStore = join(base.dir, 'tpl-store');
    const files: Record<string, string> = {};
    for (let i = 0; i < 120; i++) files[`d${i % 6}/sub${i % 4}/f${i}.txt`] = `file ${i}\n`.repeat(1 + (i % 30));
    await writeTree(tplWs, files);
    await symlink('d0/sub0/f0.txt', join(tplWs, 'link'));
    const fc = new FileCheckpointer({ workspaceRoot: tplWs, home: tplStore, storeDir: tplStore });
    await fc.snapshot('s', 'u1');
    await fc.dispose();
    const stateA = await fingerprint(tplWs);
    for (let i = 0; i < 120; i += 2) await writeFile(join(tplWs, `d${i % 6}/sub${i % 4}/f${i}.txt`), `changed ${i}\n`);
    for (let i = 1; i < 120; i += 8) await unlink(join(tplWs, `d${i % 6}/sub${i % 4}/f${i}.txt`));
    for (let i = 3; i < 120; i += 16) await chmod(join(tplWs, `d${i % 6}/sub${i % 4}/f${i}.txt`), 0o755);
    await rm(join(tplWs, 'd5'), { recursive: true });
    for (let i = 0; i < 40; i++) await writeTree(tplWs, { [`new${i % 3}/deep/n${i}.txt`]: `new ${i}\n` });
    await mkdir(join(tplWs, 'empty-new'));
    await unlink(join(tplWs, 'link'));
    await writeFile(join(tplWs, 'link'), 'a file where a link was\n');
    const stateB = await fingerprint(tplWs);
    assert.notDeepEqual(stateA, stateB);

    const ws = join(base.dir, 'ws');
    const store = join(base.dir, 'store');
    const reset = async () => {
      await rm(ws, { recursive: true, force: true });
      await rm(store, { recursive: true, force: true });
      execFileSync('cp', ['-a', tplWs, ws]);
      execFileSync('cp', ['-a', tplStore, store]);
    };

    // calibration: how long a whole restore takes here, so kills spread over all of it
    await reset();
    const full = await runChild(script, ws, store, undefined);
    assert.equal(full.finished, true);
    assert.deepEqual(await fingerprint(ws), stateA);
    const span = Math.max(full.ms * 1.1, 5);

    const counts = { before: 0, after: 0, interrupted: 0 };
    for (let run = 0; run < RUNS; run++) {
      await reset();
      const res = await runChild(script, ws, store, Math.random() * span);
      const pending = existsSync(join(store, 'journal.json'));
      if (pending) counts.interrupted++;
      const rec = new FileCheckpointer({ workspaceRoot: ws, home: store, storeDir: store });
      const outcome = await rec.recover();
      await rec.dispose();
      assert.equal(outcome.outcome === 'none', !pending, 'recover() acts exactly when a journal is pending');
      const now = await fingerprint(ws);
      const isA = JSON.stringify(now) === JSON.stringify(stateA);
      const isB = JSON.stringify(now) === JSON.stringify(stateB);
      assert.ok(
        isA || isB,
        `run ${run} (finished: ${res.finished}) ended in a mixed state:\n${now
          .filter((l) => !stateA.includes(l))
          .slice(0, 10)
          .join('\n')}`,
      );
      if (isA) counts.after++;
      else counts.before++;
      assert.equal(existsSync(join(store, 'journal.json')), false);
    }
    console.log(`crash runs: ${JSON.stringify(counts)}`);
    assert.ok(counts.interrupted > 0, 'some kills must land in the middle of a restore, or this test proves nothing');
  } finally {
    await base.cleanup();
  }
});
