// isObjectHash decides which hashes a tree, a timeline line or a record may name: exactly 64 lowercase hex digits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isObjectHash } from '../../../src/core/files/store/object-format';

const valid = '0123456789abcdef'.repeat(4);

test('isObjectHash takes 64 lowercase hex digits and nothing else, whatever code unit stands anywhere in it', () => {
  assert.equal(isObjectHash(valid), true);
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    const hex = /^[0-9a-f]$/.test(ch);
    for (const at of [0, 31, 63]) {
      const s = valid.slice(0, at) + ch + valid.slice(at + 1);
      assert.equal(isObjectHash(s), hex, `code unit ${c.toString(16)} at ${at}`);
    }
  }
});

test('isObjectHash refuses other lengths and other types', () => {
  for (const s of ['', valid.slice(1), valid + '0', valid.toUpperCase(), 'g'.repeat(64)]) assert.equal(isObjectHash(s), false, s);
  for (const v of [undefined, null, 64, ['a'], { length: 64 }]) assert.equal(isObjectHash(v), false);
});
