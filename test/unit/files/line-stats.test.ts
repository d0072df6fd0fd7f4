// The dry run's +/- counts: leaving out the lines both sides share at the start and end must give exactly what a line
// diff of the whole files gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { diffLines } from 'diff';
import { lineStats } from '../../../src/core/files/restore/line-stats';

/** The counts as they were computed before (a line diff of the whole files). */
function reference(a: Buffer | undefined, b: Buffer | undefined) {
  const bin = (x?: Buffer) => !!x && x.subarray(0, 8000).includes(0);
  if (bin(a) || bin(b)) return { insertions: 0, deletions: 0, binary: true };
  const count = (t: string) => {
    if (t.length === 0) return 0;
    let n = 0;
    for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) === 10) n++;
    return t.endsWith('\n') ? n : n + 1;
  };
  const sa = a?.toString('utf8') ?? '';
  const sb = b?.toString('utf8') ?? '';
  if (sa === '' || sb === '') return { insertions: count(sb), deletions: count(sa), binary: false };
  let insertions = 0;
  let deletions = 0;
  for (const p of diffLines(sa, sb)) {
    if (p.added) insertions += p.count ?? count(p.value);
    else if (p.removed) deletions += p.count ?? count(p.value);
  }
  return { insertions, deletions, binary: false };
}

// few distinct lines, so that sides share many; '\r\n', a missing final newline and bytes that are not UTF-8 included
const line = fc.constantFrom('a', 'b', 'c', 'x y', '', 'a\r', '\u00e9t\u00e9', '\xff', '\ufffd');
const text = fc
  .tuple(fc.array(line, { maxLength: 30 }), fc.boolean())
  .map(([ls, end]) => Buffer.from(ls.join('\n') + (end && ls.length ? '\n' : ''), 'latin1').toString('latin1'));
const toBuf = (s: string, raw: boolean) => (raw ? Buffer.from(s, 'latin1') : Buffer.from(s, 'utf8'));

test('line counts equal a line diff of the whole files (random texts sharing lines)', () => {
  fc.assert(
    fc.property(text, text, fc.boolean(), fc.boolean(), (a, b, raw, undef) => {
      const A = undef ? undefined : toBuf(a, raw);
      const B = toBuf(b, raw);
      assert.deepEqual(lineStats(A, B), reference(A, B));
      assert.deepEqual(lineStats(B, A), reference(B, A));
    }),
    { numRuns: 3000 },
  );
});

test('line counts equal a line diff of the whole files (one side edited from the other, long shared runs)', () => {
  const big = Array.from({ length: 400 }, (_, i) => `line ${i} ${'z'.repeat(i % 50)}`);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(399), fc.constantFrom('del', 'ins', 'mod')), { maxLength: 6 }), fc.boolean(), (edits, trailing) => {
      const b = [...big];
      for (const [at, op] of edits) {
        const i = Math.min(at, b.length);
        if (op === 'del') b.splice(i, 1);
        else if (op === 'ins') b.splice(i, 0, `new ${at}`);
        else if (i < b.length) b[i] = `changed ${at}`;
      }
      const A = Buffer.from(big.join('\n') + '\n');
      const B = Buffer.from(b.join('\n') + (trailing ? '\n' : ''));
      assert.deepEqual(lineStats(A, B), reference(A, B));
      assert.deepEqual(lineStats(B, A), reference(B, A));
    }),
    { numRuns: 300 },
  );
});

test('binary and empty sides', () => {
  assert.deepEqual(lineStats(Buffer.from('a\0b'), Buffer.from('a')), { insertions: 0, deletions: 0, binary: true });
  assert.deepEqual(lineStats(undefined, Buffer.from('a\nb')), { insertions: 2, deletions: 0, binary: false });
  assert.deepEqual(lineStats(Buffer.from('a\nb\n'), Buffer.from('a\nb\n')), { insertions: 0, deletions: 0, binary: false });
  assert.deepEqual(lineStats(Buffer.from('a\nb'), Buffer.from('a\nb\nc\n')), reference(Buffer.from('a\nb'), Buffer.from('a\nb\nc\n')));
});
