// The native lstat must answer exactly as fs.lstatSync does (the stat index compares its numbers with ones lstatSync
// gave), for folders, files, symlinks, missing paths and paths through a file, whatever the thread count.
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeStat } from '../../../src/core/files/native-stat';
import { tempBase } from './helpers';

const lstatTree = nativeStat()?.lstatTree;
const nul = (items: string[]) => Buffer.from(items.map((s) => s + '\0').join(''), 'utf8');

test(
  'the native lstat gives the mode, size, mtimeMs and inode fs.lstatSync gives, and -1 where lstat fails',
  { skip: lstatTree ? false : 'the native addon is not built here (npm install builds it with node-gyp)' },
  async () => {
    const base = await tempBase('arw-native-');
    try {
      const d = base.dir;
      mkdirSync(join(d, 'sub'));
      writeFileSync(join(d, 'sub', 'a.txt'), 'hello\n');
      writeFileSync(join(d, 'é ü.bin'), Buffer.alloc(70_000, 1));
      utimesSync(join(d, 'é ü.bin'), 1_234_567_890.123456, 1_234_567_890.987654); // a time with a fraction of a millisecond
      symlinkSync('sub/a.txt', join(d, 'link'));
      symlinkSync('nowhere', join(d, 'dangling'));
      for (let i = 0; i < 1500; i++) writeFileSync(join(d, 'sub', `f${i}`), 'x'.repeat(i));
      // folders with their files, as a stat index lists them; a.txt is also given as a "folder" (ENOTDIR below it)
      const folders: [string, string[]][] = [
        ['', ['é ü.bin', 'link', 'dangling', 'missing']],
        ['sub', ['a.txt', ...Array.from({ length: 1500 }, (_, i) => `f${i}`)]],
        ['gone', ['x']],
        ['sub/a.txt', ['below-a-file']],
      ];
      const prefix = d + '/';
      const expected: string[] = [];
      for (const [rel, files] of folders) {
        expected.push(rel === '' ? prefix : prefix + rel);
        for (const f of files) expected.push(rel === '' ? prefix + f : `${prefix}${rel}/${f}`);
      }
      for (const threads of [1, 2, 4]) {
        const out = lstatTree!(
          Buffer.from(prefix),
          nul(folders.map(([rel]) => rel)),
          Uint32Array.from(folders, ([, f]) => f.length),
          nul(folders.flatMap(([, f]) => f)),
          threads,
        );
        assert.equal(out.length, expected.length * 4);
        expected.forEach((p, i) => {
          const got = Array.from(out.subarray(i * 4, i * 4 + 4));
          let st;
          try {
            st = lstatSync(p);
          } catch {
            return assert.equal(got[0], -1, p);
          }
          assert.deepEqual(got, [st.mode, st.size, st.mtimeMs, st.ino], `${p} (${threads} threads)`);
        });
      }
      // relative to the process's folder: the root is '.'
      const here = process.cwd();
      process.chdir(d);
      try {
        const out = lstatTree!(Buffer.alloc(0), nul(['']), Uint32Array.of(1), nul(['link']), 2);
        assert.deepEqual(Array.from(out.subarray(0, 4)), [lstatSync('.').mode, lstatSync('.').size, lstatSync('.').mtimeMs, lstatSync('.').ino]);
        assert.equal(out[4], lstatSync('link').mode);
      } finally {
        process.chdir(here);
      }
      assert.throws(() => lstatTree!(Buffer.alloc(0), nul(['']), Uint32Array.of(2), nul(['only-one']), 1), /do not match/);
      assert.throws(() => lstatTree!(Buffer.alloc(0), Buffer.from('no terminator'), Uint32Array.of(0), Buffer.alloc(0), 1), /NUL/);
    } finally {
      await base.cleanup();
    }
  },
);
