// Scenario: a rewind writes small files (their bytes, mode and close as synchronous calls once the thread pool made
// the temp file) and big ones (written on the pool) alike: the same bytes, and the mode each had, whatever the umask
// left of the temp file's 0600 (0640, 0755, 0604, a setuid 4755, a file with no permissions at all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase, userAnchor } from './helpers';

const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;

test('small and big files come back with their bytes and their modes', { skip: process.platform === 'win32' }, async () => {
  const base = await tempBase('arw-write-modes-');
  const ws = join(base.dir, 'ws');
  const big = Buffer.alloc(300 * 1024, 'big file line\n'); // above the synchronous write's size
  const files: Array<[string, Buffer, number]> = [
    ['a/small-640.txt', Buffer.from('small 640\n'), 0o640],
    ['a/small-755.sh', Buffer.from('#!/bin/sh\necho hi\n'), 0o755],
    ['b/small-604.txt', Buffer.from('small 604\n'), 0o604],
    ['b/setuid', Buffer.from('setuid\n'), 0o4755],
    ['c/none.txt', Buffer.from('no permissions\n'), 0o000],
    ['c/empty.txt', Buffer.alloc(0), 0o644],
    ['c/big-750.bin', big, 0o750],
  ];
  const { mkdir } = await import('node:fs/promises');
  for (const [rel, data, mode] of files) {
    await mkdir(join(ws, rel, '..'), { recursive: true });
    await writeFile(join(ws, rel), data);
    await chmod(join(ws, rel), mode);
  }
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await fc.snapshot('s', 'u1');
    for (const [rel, data] of files) {
      await chmod(join(ws, rel), 0o666);
      await writeFile(join(ws, rel), Buffer.concat([data, Buffer.from('edited\n')]));
    }
    const r = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(r.skipped, []);
    for (const [rel, data, mode] of files) {
      assert.ok((await readFile(join(ws, rel))).equals(data), `${rel}: its bytes`);
      assert.equal((await modeOf(join(ws, rel))).toString(8), mode.toString(8), `${rel}: its mode`);
    }
    // and the undo writes the edited versions back with the mode they had then
    await fc.undoLastRewind('s');
    for (const [rel, data] of files) {
      assert.ok((await readFile(join(ws, rel))).equals(Buffer.concat([data, Buffer.from('edited\n')])), `${rel}: its edited bytes`);
      assert.equal((await modeOf(join(ws, rel))).toString(8), '666', `${rel}: its edited mode`);
    }
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});
