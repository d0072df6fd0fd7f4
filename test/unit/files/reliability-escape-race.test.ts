// Scenario: a folder of the workspace swapped for a symlink to a folder outside it while a rewind runs must not
// make the rewind write, rename or unlink anything outside. The rewind may fail (and roll back) or succeed; the
// folder outside stays byte-identical either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase, userAnchor, writeTree } from './helpers';
import { exactFingerprint } from './reliability-helpers';

const TRIALS = Number(process.env.AGENT_REWIND_RACE_TRIALS ?? 25);
const DIRS = ['d0', 'd1', 'd2', 'd3'];
const PER_DIR = 60;

/** A loop that keeps moving `ws/<dir>` aside and putting a symlink to `outside` in its place, then back. */
function startSwapper(ws: string, dir: string, outside: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); const [d, away, out] = process.argv.slice(1);
       for (;;) { try { fs.renameSync(d, away); fs.symlinkSync(out, d); fs.unlinkSync(d); fs.renameSync(away, d); } catch {} }`,
      join(ws, dir),
      join(ws, `${dir}.away`),
      outside,
    ],
    { stdio: 'ignore' },
  );
}

/** Stops the swapper and puts the real folder back where it belongs. */
async function stopSwapper(child: ChildProcess, ws: string, dir: string): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  const d = join(ws, dir);
  const away = join(ws, `${dir}.away`);
  if (lstatSync(d, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(d);
  if (existsSync(away)) {
    if (existsSync(d)) rmSync(d, { recursive: true });
    renameSync(away, d);
  }
}

test(`a folder swapped for a symlink to the outside during ${TRIALS} rewinds never lets one write outside`, { timeout: 10 * 60_000 }, async () => {
  const base = await tempBase('arw-rel-race-');
  const ws = join(base.dir, 'ws');
  const outside = join(base.dir, 'outside');
  const files: Record<string, string> = {};
  for (const d of DIRS) for (let i = 0; i < PER_DIR; i++) files[`${d}/f${i}.txt`] = `${d} ${i} at u1\n`;
  await writeTree(ws, files);
  // the sentinel holds the same names, so a write through the link would land on a file that exists there
  const sentinelFiles: Record<string, string> = {};
  for (let i = 0; i < PER_DIR; i++) sentinelFiles[`f${i}.txt`] = `sentinel ${i}\n`;
  await writeTree(outside, sentinelFiles);
  const sentinel = await exactFingerprint(outside);
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  let failed = 0;
  try {
    await fc.snapshot('s', 'u1');
    for (let t = 0; t < TRIALS; t++) {
      for (const d of DIRS) for (let i = 0; i < PER_DIR; i++) await writeFile(join(ws, d, `f${i}.txt`), `${d} ${i} trial ${t}\n`);
      await writeFile(join(ws, 'd2', `extra${t}.txt`), 'to be removed by the rewind\n');
      fc.markAllDirty();
      const dir = DIRS[1 + (t % 3)]!;
      const swapper = startSwapper(ws, dir, outside);
      await new Promise((r) => setTimeout(r, 5));
      try {
        await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
      } catch {
        failed++; // refused or rolled back: allowed; writing outside is not
      } finally {
        await stopSwapper(swapper, ws, dir);
      }
      assert.deepEqual(await exactFingerprint(outside), sentinel, `trial ${t}: the folder outside the workspace changed`);
    }
    // with the swapper gone, whatever the failed rewinds left is recovered and the workspace rewinds cleanly
    fc.markAllDirty();
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    for (const d of DIRS) for (let i = 0; i < PER_DIR; i++) assert.equal(await readFile(join(ws, d, `f${i}.txt`), 'utf8'), `${d} ${i} at u1\n`);
    assert.equal((await fc.recover()).outcome, 'none');
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
  console.log(`# ${TRIALS} trials, ${failed} rewinds refused or rolled back`);
});

test('a restore that removes and makes again thousands of folders leaves no folder descriptor open', { skip: process.platform !== 'linux' }, async () => {
  const base = await tempBase('arw-rel-fds-');
  const ws = join(base.dir, 'ws');
  const files: Record<string, string> = {};
  for (let i = 0; i < 1500; i++) files[`a${i % 30}/b${i}/f.txt`] = `${i}\n`;
  await writeTree(ws, files);
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  const openFds = () => readdirSync('/proc/self/fd').length;
  try {
    await fc.snapshot('s', 'u1');
    for (let i = 0; i < 30; i++) rmSync(join(ws, `a${i}`), { recursive: true });
    await writeTree(ws, { 'other/x.txt': 'x\n' });
    await fc.snapshot('s', 'u2');
    const before = openFds();
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor }); // makes 1,530 folders
    await fc.rewindFiles('s', 'u2', { anchor: userAnchor }); // removes them
    await fc.undoLastRewind('s');
    assert.ok(openFds() <= before + 2, `descriptors open: ${before} before, ${openFds()} after`);
    assert.equal(await readFile(join(ws, 'a7/b7/f.txt'), 'utf8'), '7\n');
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});
