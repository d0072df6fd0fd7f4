// `npm run bench -- --compare <rev>` reads every duration a bench's tables print (an older revision's bench modules
// return only markdown) and compares the two revisions' samples against the noise of each side's own samples.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collect, compareFigures, comparisonTable, figuresOf, noiseOf, percentile } from '../../../bench/compare-figures';
import { compareOptionsOf } from '../../../bench/compare';

const SESSION = `Intro line.

| figure | value | reference | ratio | target | ok |
|---|---:|---|---:|---|---|
| load 5,000 entries (median of 3) | 457.3 ms | 365.9 ms (raw JSON.parse of every line) | 1.25× | ratio ≤ 2 | ok |
| append p50, no fsync (200 appends) | 76 µs | 0.064 ms (raw write) | 1.18× | < 1 ms | ok |

Notes: 12 ms here is prose, not a figure.

| measure | ours p50 / p95 | git p50 / p95 | target | met |
|---|---:|---:|---:|:-:|
| first snapshot | 3.29 s / 3.46 s | 8,800 ms / 9.38 s | ≤ 0.6× | ✅ |
| same hits as the scan | yes | | yes | yes |
`;

describe('figuresOf: the durations of a section’s tables', () => {
  it('keys each by row and column, converts units, skips targets, prose and cells without a duration (any rule row)', () => {
    assert.deepEqual(figuresOf(SESSION), [
      { key: 'load 5,000 entries (median of 3) · value', ms: 457.3 },
      { key: 'load 5,000 entries (median of 3) · reference', ms: 365.9 },
      { key: 'append p50, no fsync (200 appends) · value', ms: 0.076 },
      { key: 'append p50, no fsync (200 appends) · reference', ms: 0.064 },
      { key: 'first snapshot · ours p50 / p95', ms: 3290 },
      { key: 'first snapshot · ours p50 / p95 #2', ms: 3460 },
      { key: 'first snapshot · git p50 / p95', ms: 8800 },
      { key: 'first snapshot · git p50 / p95 #2', ms: 9380 },
    ]);
  });
});

describe('compareFigures: before and after, against the noise', () => {
  it('a change larger than either side’s own spread is beyond noise; one inside it is not', () => {
    const before = collect([
      [
        { key: 'slow', ms: 100 },
        { key: 'same', ms: 50 },
        { key: 'gone', ms: 1 },
      ],
      [
        { key: 'slow', ms: 102 },
        { key: 'same', ms: 52 },
      ],
      [
        { key: 'slow', ms: 101 },
        { key: 'same', ms: 49 },
      ],
      [
        { key: 'slow', ms: 99 },
        { key: 'same', ms: 51 },
      ],
    ]);
    const after = collect([
      [
        { key: 'slow', ms: 150 },
        { key: 'same', ms: 51 },
        { key: 'new', ms: 2 },
      ],
      [
        { key: 'slow', ms: 149 },
        { key: 'same', ms: 50 },
      ],
      [
        { key: 'slow', ms: 152 },
        { key: 'same', ms: 52 },
      ],
      [
        { key: 'slow', ms: 151 },
        { key: 'same', ms: 49 },
      ],
    ]);
    const r = compareFigures(before, after);
    const byKey = new Map(r.compared.map((c) => [c.key, c]));
    assert.equal(byKey.get('slow')?.verdict, 'slower beyond noise');
    assert.ok(Math.abs(byKey.get('slow')!.ratio - 1.495) < 0.01);
    assert.equal(byKey.get('same')?.verdict, 'within noise');
    assert.deepEqual(r.onlyBefore, ['gone']);
    assert.deepEqual(r.onlyAfter, ['new']);
    const table = comparisonTable(r);
    assert.match(table, /^\| slow \| 100\.5 ms \/ 102\.0 ms \| 150\.5 ms \/ 152\.0 ms \| 1\.498× \| ±\d+\.\d % \| slower beyond noise \|$/m);
    assert.match(table, /Printed only before: gone\./);
  });

  it('noise is the larger of the two sides’ half-to-half spreads; unknown with one sample', () => {
    assert.equal(noiseOf([100, 110, 100, 110], [50, 50, 50, 50]), Math.abs(100 / 110 - 1));
    assert.equal(noiseOf([100], [100]), undefined);
    assert.equal(compareFigures(collect([[{ key: 'x', ms: 1 }]]), collect([[{ key: 'x', ms: 5 }]])).compared[0]?.verdict, 'noise unknown');
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
    assert.equal(percentile([1, 2, 3, 4], 50), 2);
  });
});

describe('compareOptionsOf: the command line', () => {
  it('reads the revision, the benches, --quick and --rounds; none without --compare', () => {
    assert.equal(compareOptionsOf(['session', '--quick']), undefined);
    assert.deepEqual(compareOptionsOf(['--compare', 'c22dab0', 'session', 'files', '--quick', '--rounds', '8', '--section', 'Issue 21']), {
      rev: 'c22dab0',
      filters: ['session', 'files'],
      quick: true,
      rounds: 8,
      section: 'Issue 21',
      write: true,
    });
    assert.throws(() => compareOptionsOf(['--compare']), /needs a revision/);
    assert.throws(() => compareOptionsOf(['--compare', 'x', '--rounds', '1']), /at least 2/);
  });
});
