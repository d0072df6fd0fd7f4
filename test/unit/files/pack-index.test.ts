// The pack index's bounds check (entriesFitIn), which every process runs on every index it opens.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeIndex, entriesFitIn } from '../../../src/core/files/store/pack-index';

const hash = (n: number) => n.toString(16).padStart(64, '0');

test('an index fits its pack exactly when every entry ends at or before the pack end, offsets past 4 GiB included', () => {
  const far = 5 * 2 ** 32 + 7; // a u64 offset whose high word counts
  const idx = encodeIndex([
    { hash: hash(1), offset: 8, length: 100, rawSize: 100, flags: 0 },
    { hash: hash(2), offset: far, length: 30, rawSize: 60, flags: 1 },
    { hash: hash(3), offset: 200, length: 1, rawSize: 1, flags: 0 },
  ]);
  assert.equal(entriesFitIn(idx, 3, far + 30), true);
  assert.equal(entriesFitIn(idx, 3, far + 29), false);
  assert.equal(entriesFitIn(idx, 3, 2 ** 32 + 30), false, 'the high word is not dropped');
  // a Buffer that is a slice of a larger one (as the pool gives them) is read at its own offset
  const pooled = Buffer.concat([Buffer.alloc(13, 0xff), idx]).subarray(13);
  assert.equal(entriesFitIn(pooled, 3, far + 30), true);
  assert.equal(entriesFitIn(pooled, 3, far + 29), false);
});
