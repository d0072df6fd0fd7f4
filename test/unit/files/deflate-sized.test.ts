// A deflated small object must not keep zlib's 16 KiB output chunk alive: deflateRawSync returns a view of it, and a
// pack holds the objects of a snapshot until they are written, garbage a quiet checkpoint service freed only at V8's
// next full collection (issue 26: ~0.6 MB per warm snapshot of 10 files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { bulkStored, deflateRawSized, HUFFMAN_ONLY } from '../../../src/core/files/store/object-format';
import { prng } from '../../support/prng';

// a small output may be a view of Node's shared 8 KiB buffer pool, which many small buffers share
const holdsAtMost = (n: number) => Math.max(Buffer.poolSize, n);
const text = (n: number) => Buffer.from('const value = index + count; // snapshot tree\n'.repeat(Math.ceil(n / 46)).slice(0, n));
const random = (n: number, seed: number) => {
  const r = prng(seed);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
};

test('a small blob deflated for a bulk snapshot holds about its own size, not 16 KiB', () => {
  const data = text(9000);
  const { stored, deflated } = bulkStored(data, true);
  assert.ok(deflated);
  assert.ok(stored.buffer.byteLength <= holdsAtMost(data.length + (data.length >>> 3) + 64), `holds ${stored.buffer.byteLength} bytes for ${data.length}`);
  assert.deepEqual(inflateRawSync(stored), data);
});

test('deflateRawSized output holds about the input size and inflates back, compressible or not, small or large', () => {
  for (const [i, data] of [text(64), text(1000), text(12_000), random(200, 1), random(5000, 2), random(40_000, 3), text(100_000)].entries()) {
    for (const opts of [{ level: 1 }, HUFFMAN_ONLY]) {
      const z = deflateRawSized(data, opts);
      assert.deepEqual(inflateRawSync(z), data, `case ${i}`);
      // never more than zlib's default chunk, and for small input about its size
      assert.ok(z.buffer.byteLength <= Math.max(16 * 1024, z.length), `case ${i}: holds ${z.buffer.byteLength} for ${z.length}`);
      if (data.length < 8 * 1024)
        assert.ok(z.buffer.byteLength <= holdsAtMost(data.length + (data.length >>> 3) + 64), `case ${i}: holds ${z.buffer.byteLength}`);
    }
  }
});
