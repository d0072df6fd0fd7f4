// Scenario: a file rewritten while a snapshot reads it must never be stored torn, that is as bytes the file never
// held at any one moment (a read that a writer overtook: one part from before a write, one part from after it).
// Either a version the file really had is stored, or the file is reported as "changed while being read".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase } from './helpers';

const SIZE = 24 * 1024 * 1024;
const CHUNK = 256 * 1024;

/**
 * The writer below rewrites the file from start to end, pass after pass, every byte of pass v being v & 0xff. At
 * any moment the file is therefore one run of pass v+1 followed by one run of pass v (the writer is somewhere in
 * between), or one run. Any other shape (old before new, three runs, versions two apart) was never on disk.
 */
function heldAtSomeMoment(data: Buffer): boolean {
  const first = data[0]!;
  let i = 0;
  while (i < data.length && data[i] === first) i++;
  if (i === data.length) return true;
  const second = data[i]!;
  if (((second + 1) & 0xff) !== first) return false;
  for (; i < data.length; i++) if (data[i] !== second) return false;
  return true;
}

test('a big file rewritten in place during the snapshot is stored as a version it really had, or reported; never torn', { timeout: 120_000 }, async () => {
  const base = await tempBase('arw-rel-torn-');
  const ws = join(base.dir, 'ws');
  const big = join(ws, 'big.bin');
  await mkdir(ws);
  await writeFile(big, Buffer.alloc(SIZE, 0));
  await writeFile(join(ws, 'small.txt'), 'small\n');
  const writer = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'r+');
       for (let v = 1; ; v++) { const buf = Buffer.alloc(${CHUNK}, v & 0xff); for (let o = 0; o < ${SIZE}; o += ${CHUNK}) fs.writeSync(fd, buf, 0, ${CHUNK}, o); }`,
      big,
    ],
    { stdio: 'ignore' },
  );
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await new Promise((r) => setTimeout(r, 200));
    let reported = 0;
    let stored = 0;
    for (let i = 0; i < 10; i++) {
      const s = await fc.snapshot('s', `u${i}`);
      const skip = s.skipped.find((k) => k.path === 'big.bin');
      if (skip) {
        assert.match(skip.reason, /changed while being read/);
        reported++;
        continue;
      }
      const data = await fc.readFileAtAnchor('s', `u${i}`, 'big.bin');
      assert.ok(data, 'stored when not reported');
      assert.equal(data.length, SIZE);
      assert.ok(heldAtSomeMoment(data), `snapshot u${i} stored a torn copy of big.bin (bytes it never held at one moment)`);
      stored++;
    }
    assert.equal(reported + stored, 10);
  } finally {
    writer.kill('SIGKILL');
    await fc.dispose();
    await base.cleanup();
  }
});
