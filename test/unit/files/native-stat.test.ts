// The native lstat batch must answer exactly as fs.lstatSync does (the stat index compares its numbers with ones
// lstatSync gave), for files, folders, symlinks, missing paths and paths through a file.
import assert from 'node:assert/strict';
import { lstatSync, symlinkSync, writeFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeStat } from '../../../src/core/files/native-stat';
import { tempBase } from './helpers';

const lstatBatch = nativeStat()?.lstatBatch;

test('the native batch gives the mode, size, mtimeMs and inode fs.lstatSync gives, and -1 where lstat fails', { skip: lstatBatch ? false : 'the native addon is not built here (npm install builds it with node-gyp)' }, async () => {
  const base = await tempBase('arw-native-');
  try {
    const d = base.dir;
    mkdirSync(join(d, 'sub'));
    writeFileSync(join(d, 'sub', 'a.txt'), 'hello\n');
    writeFileSync(join(d, 'é ü.bin'), Buffer.alloc(70_000, 1));
    utimesSync(join(d, 'é ü.bin'), 1_234_567_890.123456, 1_234_567_890.987654); // a time with a fraction of a millisecond
    symlinkSync('sub/a.txt', join(d, 'link'));
    symlinkSync('nowhere', join(d, 'dangling'));
    const present = ['sub', 'sub/a.txt', 'é ü.bin', 'link', 'dangling', '.'].map((p) => join(d, p));
    const absent = [join(d, 'missing'), join(d, 'sub/a.txt/below-a-file')];
    const many = Array.from({ length: 3000 }, (_, i) => present[i % present.length]!);
    const paths = [...present, ...absent, ...many];
    const out = lstatBatch!(Buffer.from(paths.join('\0') + '\0', 'utf8'), 2);
    assert.equal(out.length, paths.length * 4);
    paths.forEach((p, i) => {
      const got = Array.from(out.subarray(i * 4, i * 4 + 4));
      if (absent.includes(p)) return assert.equal(got[0], -1, p);
      const st = lstatSync(p);
      assert.deepEqual(got, [st.mode, st.size, st.mtimeMs, st.ino], p);
    });
    assert.equal(lstatBatch!(Buffer.alloc(0), 2).length, 0);
    assert.throws(() => lstatBatch!(Buffer.from('no terminator'), 1), /NUL/);
  } finally {
    await base.cleanup();
  }
});
