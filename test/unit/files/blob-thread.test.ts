// A snapshot that hands files to the hashing thread stores exactly what one that reads them all itself stores: the
// same tree hash and the same bytes back for every file (empty, tiny, incompressible, duplicated, large).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase, writeTree } from './helpers';

async function snapshotWith(hashThreadAfter: number, ws: string, home: string) {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home, tuning: { hashThreadAfter } });
  const s = await fc.snapshot('s', 'u1');
  return { fc, s };
}

test('files hashed on the hashing thread are stored exactly as files hashed on the calling thread', async () => {
  const base = await tempBase('arw-blob-thread-');
  try {
    const ws = join(base.dir, 'ws');
    const files: Record<string, string | Buffer> = {
      'empty.txt': '',
      'tiny.txt': 'x\n',
      'same-1.txt': 'same\n'.repeat(100),
      'same-2.txt': 'same\n'.repeat(100),
    };
    for (let i = 0; i < 120; i++) files[`d${i % 7}/f${i}.txt`] = `line ${i}\n`.repeat(1 + (i % 40));
    for (let i = 0; i < 5; i++) files[`bin/r${i}.bin`] = randomBytes(3000 + i * 997); // does not compress
    files['big/large.txt'] = 'a fairly long line of text that repeats\n'.repeat(60_000);
    await writeTree(ws, files as Record<string, string>);
    const threaded = await snapshotWith(0, ws, join(base.dir, 'home-a'));
    const inline = await snapshotWith(Infinity, ws, join(base.dir, 'home-b'));
    try {
      assert.equal(threaded.s.root, inline.s.root);
      assert.equal(threaded.s.files, inline.s.files);
      assert.equal(threaded.s.hashedFiles, inline.s.hashedFiles);
      for (const [path, content] of Object.entries(files)) {
        const back = await threaded.fc.readFileAtAnchor('s', 'u1', path);
        assert.ok(back?.equals(Buffer.from(content)), path);
      }
    } finally {
      await threaded.fc.dispose();
      await inline.fc.dispose();
    }
  } finally {
    await base.cleanup();
  }
});
