// Scenario: a file rewritten while a snapshot reads it must never be stored torn (half one version, half the
// next). Either a consistent version is stored, or the file is reported as "changed while being read".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase } from './helpers';

const SIZE = 24 * 1024 * 1024;

test('a big file rewritten in place during the snapshot is stored whole (one version) or reported, never torn', { timeout: 120_000 }, async () => {
  const base = await tempBase('arw-rel-torn-');
  const ws = join(base.dir, 'ws');
  const big = join(ws, 'big.bin');
  await mkdir(ws);
  await writeFile(big, Buffer.alloc(SIZE, 0x41));
  await writeFile(join(ws, 'small.txt'), 'small\n');
  // the writer: overwrites the file in place, 256 KiB at a time, alternately all 'A' and all 'B', forever
  const writer = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'r+'); const chunk = 256 * 1024; let c = 0x42;
       for (;;) { const buf = Buffer.alloc(chunk, c); for (let o = 0; o < ${SIZE}; o += chunk) fs.writeSync(fd, buf, 0, chunk, o); c = c === 0x41 ? 0x42 : 0x41; }`,
      big,
    ],
    { stdio: 'ignore' },
  );
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await new Promise((r) => setTimeout(r, 200));
    let reported = 0;
    let stored = 0;
    for (let i = 0; i < 8; i++) {
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
      const torn = data.indexOf(data[0] === 0x41 ? 0x42 : 0x41) !== -1;
      assert.equal(torn, false, `snapshot u${i} stored a torn copy of big.bin (a mix of two versions)`);
      stored++;
    }
    assert.equal(reported + stored, 8);
  } finally {
    writer.kill('SIGKILL');
    await fc.dispose();
    await base.cleanup();
  }
});
