// The pack table's lookups while small packs are binary-searched and after they are mapped (pack-table.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { encodeIndex } from '../../../src/core/files/store/pack-index';
import { PackTable } from '../../../src/core/files/store/pack-table';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

function pack(name: string, count: number) {
  const entries = Array.from({ length: count }, (_, i) => ({ hash: hash(`${name}-${i}`), offset: i * 10, length: 10, rawSize: 10, flags: 0 }));
  return { entries: entries.map((e) => ({ ...e })), index: { idx: encodeIndex(entries), count, size: count * 10 } };
}

test('small packs answer the same before and after their objects are mapped; removing one forgets its objects', () => {
  const table = new PackTable();
  const a = pack('a', 500);
  const b = pack('b', 40); // mapped at once
  const shared = { hash: hash('shared'), offset: 5000, length: 10, rawSize: 10, flags: 0 };
  const c = pack('c', 300);
  const cIdx = encodeIndex([...c.entries, shared]);
  table.add('a', a.index);
  table.add('b', b.index);
  table.add('c', { idx: cIdx, count: 301, size: 6000 });
  const ask = () => [
    ...[a.entries[0]!, a.entries[499]!, b.entries[7]!, c.entries[299]!, shared].map((e) => {
      const loc = table.find(e.hash);
      return `${e.hash.slice(0, 6)} ${loc?.pack} ${loc?.offset} ${table.contains(e.hash)} ${table.locations(e.hash).length}`;
    }),
    `${table.find(hash('none'))} ${table.contains(hash('none'))} ${table.locations(hash('none')).length}`,
  ];
  const before = ask();
  assert.match(before[0]!, / a 0 true 1$/);
  assert.match(before[3]!, / c 2990 true 1$/);
  assert.match(before[4]!, / c 5000 true 1$/);
  assert.equal(before[5], 'undefined false 0');
  // enough lookups to map both larger packs (twice their objects each)
  for (let i = 0; i < 1200; i++) table.contains(hash(`miss-${i}`));
  assert.deepEqual(ask(), before, 'mapped: the same answers');
  table.remove('c');
  assert.equal(table.find(shared.hash), undefined);
  assert.equal(table.contains(c.entries[0]!.hash), false);
  assert.equal(table.find(a.entries[3]!.hash)?.pack, 'a');
  // a pack removed before it was mapped
  const d = pack('d', 200);
  table.add('d', d.index);
  assert.equal(table.find(d.entries[10]!.hash)?.offset, 100);
  table.remove('d');
  assert.equal(table.find(d.entries[10]!.hash), undefined);
  assert.equal(table.contains(d.entries[10]!.hash), false);
});
