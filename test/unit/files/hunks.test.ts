// Hunks of a file's changes since a message, and the file with only some of them taken back (restore/hunks.ts): exact
// bytes whatever the line endings, a missing last newline, an empty side or bytes that are not UTF-8.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeHunks, fileHunks, revertHunks, splitIntoHunks } from '../../../src/core/files/restore/hunks';
import { hashObject } from '../../../src/core/files/store/object-format';

const b = (s: string) => Buffer.from(s, 'latin1');
const file = (data: Buffer, mode = 0o644) => ({ kind: 'file' as const, hash: hashObject('blob', data), mode });

/** The file now with exactly the hunks `revert` taken back, as text. */
function partly(anchor: string, now: string, revert: number[]): string {
  const split = splitIntoHunks(b(anchor), b(now));
  assert.ok(split);
  return revertHunks(split, new Set(revert)).toString('latin1');
}

test('hunks: each run of changed lines is one hunk; taking back some keeps the rest as it is now', () => {
  const anchor = 'a\nb\nc\nd\ne\n';
  const now = 'a\nB\nc\nd\nE\nf\n';
  const split = splitIntoHunks(b(anchor), b(now))!;
  const hunks = describeHunks(split);
  assert.deepEqual(
    hunks.map((h) => [h.index, h.anchorStart, h.anchorLines, h.nowStart, h.nowLines, h.insertions, h.deletions]),
    [
      [1, 2, 1, 2, 1, 1, 1],
      [2, 5, 1, 5, 2, 2, 1],
    ],
  );
  assert.deepEqual(hunks[1]!.lines, [
    { kind: '-', text: 'e' },
    { kind: '+', text: 'E' },
    { kind: '+', text: 'f' },
  ]);
  assert.equal(partly(anchor, now, []), now, 'none taken back: the file now');
  assert.equal(partly(anchor, now, [1, 2]), anchor, 'all taken back: the file at the message');
  assert.equal(partly(anchor, now, [1]), 'a\nb\nc\nd\nE\nf\n');
  assert.equal(partly(anchor, now, [2]), 'a\nB\nc\nd\ne\n');
});

test('hunks: a last line without a newline is a line of its own, kept or taken back exactly', () => {
  assert.equal(partly('x\ny', 'x\ny\n', [1]), 'x\ny');
  assert.equal(partly('x\ny\n', 'x\ny', [1]), 'x\ny\n');
  const anchor = '1\n2\n3\n4\n5';
  const now = '1\nTWO\n3\n4\n5\n6';
  assert.equal(describeHunks(splitIntoHunks(b(anchor), b(now))!).length, 2);
  assert.equal(partly(anchor, now, [2]), '1\nTWO\n3\n4\n5', 'the last line loses its newline again, nothing else changes');
  assert.equal(partly(anchor, now, [1]), '1\n2\n3\n4\n5\n6');
});

test('hunks: CRLF lines keep their endings; a line whose only change is its ending is a hunk', () => {
  const anchor = 'a\r\nb\r\nc\r\n';
  const now = 'a\r\nB\r\nc\n';
  const split = splitIntoHunks(b(anchor), b(now))!;
  assert.equal(split.hunks.length, 1, 'adjacent changed lines are one hunk');
  assert.equal(partly(anchor, now, [1]), anchor);
  const mixed = 'a\r\nb\nc\r\nd\n';
  const mixedNow = 'a\r\nb\r\nc\r\nD\n';
  assert.equal(splitIntoHunks(b(mixed), b(mixedNow))!.hunks.length, 2);
  assert.equal(partly(mixed, mixedNow, [1]), 'a\r\nb\nc\r\nD\n');
  assert.equal(partly(mixed, mixedNow, [2]), 'a\r\nb\r\nc\r\nd\n');
});

test('hunks: an empty file at either end', () => {
  assert.equal(partly('', 'a\nb\n', [1]), '');
  assert.equal(partly('a\n', '', [1]), 'a\n');
  const h = describeHunks(splitIntoHunks(b(''), b('a\nb\n'))!);
  assert.deepEqual(
    h.map((x) => [x.anchorStart, x.anchorLines, x.nowStart, x.nowLines]),
    [[1, 0, 1, 2]],
  );
});

test('hunks: changes one unchanged line apart are two hunks, touching ones are one', () => {
  assert.equal(splitIntoHunks(b('a\nb\nc\n'), b('A\nb\nC\n'))!.hunks.length, 2);
  assert.equal(partly('a\nb\nc\n', 'A\nb\nC\n', [1]), 'a\nb\nC\n');
  assert.equal(partly('a\nb\nc\n', 'A\nb\nC\n', [2]), 'A\nb\nc\n');
  assert.equal(splitIntoHunks(b('a\nb\n'), b('A\nB\n'))!.hunks.length, 1);
  // an insertion right after a changed line belongs to it
  assert.equal(splitIntoHunks(b('a\nb\n'), b('A\nnew\nb\n'))!.hunks.length, 1);
});

test('hunks: bytes that are not UTF-8 come back byte for byte', () => {
  const anchor = Buffer.from([0x61, 0xff, 0x0a, 0x62, 0x0a, 0xc3, 0x28, 0x0a]);
  const now = Buffer.from([0x61, 0xfe, 0x0a, 0x62, 0x0a, 0xc3, 0x29, 0x0a]);
  const split = splitIntoHunks(anchor, now)!;
  assert.equal(split.hunks.length, 2);
  assert.deepEqual(revertHunks(split, new Set([1])), Buffer.from([0x61, 0xff, 0x0a, 0x62, 0x0a, 0xc3, 0x29, 0x0a]));
  assert.deepEqual(revertHunks(split, new Set([1, 2])), anchor);
});

test('hunks: binary files, permission and kind changes, new and deleted files are whole file only', () => {
  const t = b('a\n');
  const n = b('b\n');
  const bin = Buffer.from([0x61, 0x00, 0x0a]);
  assert.deepEqual(fileHunks('x', file(t), file(bin), t, bin), { path: 'x', ok: false, reason: 'binary: whole file only' });
  assert.match((fileHunks('x', file(t), file(n, 0o755), t, n) as { reason: string }).reason, /permissions changed/);
  assert.match((fileHunks('x', null, file(n), undefined, n) as { reason: string }).reason, /new since/);
  assert.match((fileHunks('x', file(t), null, t, undefined) as { reason: string }).reason, /deleted since/);
  assert.match((fileHunks('x', file(t), { kind: 'symlink', hash: file(n).hash, mode: 0o777 }, t, n) as { reason: string }).reason, /not a regular file/);
  const ok = fileHunks('x', file(t), file(n), t, n);
  assert.ok(ok.ok);
  assert.equal(ok.hash, hashObject('blob', n), 'keyed by the hash of the bytes now');
});

test('hunks (property): taking back any set of hunks changes exactly their lines, all gives the file at the message', () => {
  const line = fc.constantFrom('a', 'b', 'c', 'd', '', 'a ', 'x\r');
  const text = fc.tuple(fc.array(line, { maxLength: 12 }), fc.boolean()).map(([ls, nl]) => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : '')));
  fc.assert(
    fc.property(text, text, fc.array(fc.boolean(), { maxLength: 12 }), (anchor, now, picks) => {
      const split = splitIntoHunks(b(anchor), b(now))!;
      const hunks = describeHunks(split);
      assert.equal(revertHunks(split, new Set(hunks.map((h) => h.index))).toString('latin1'), anchor);
      assert.equal(revertHunks(split, new Set()).toString('latin1'), now);
      const chosen = hunks.filter((_, i) => picks[i]);
      const out = revertHunks(split, new Set(chosen.map((h) => h.index)));
      // the result's lines: now's, less the chosen hunks' insertions, plus their deletions
      const lines = (s: string) => (s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));
      const expected = lines(now) - chosen.reduce((a, h) => a + h.insertions, 0) + chosen.reduce((a, h) => a + h.deletions, 0);
      assert.equal(lines(out.toString('latin1')), expected);
    }),
    { numRuns: 300 },
  );
});
