// Property: no input a person can type makes a search throw, and every hit's highlights lie inside its snippet.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Catalog } from '../../../src/core/catalog';
import { catalogFixture, type CatalogFixture } from './catalog-fixture';

describe('catalog search on arbitrary input', () => {
  let fx: CatalogFixture;
  let catalog: Catalog;
  before(async () => {
    fx = await catalogFixture();
    await rm(join(fx.sessions, 'before-compaction.v1.jsonl'));
    catalog = await Catalog.open({ home: fx.home });
    await catalog.refresh([{ path: fx.sessions, source: 'pi' }]);
  });
  after(async () => {
    await catalog.close();
    await fx.cleanup();
  });

  it('never throws, and highlights stay inside the snippet', () => {
    const syntax = fc.constantFrom(
      '"',
      '*',
      '-',
      '^',
      '(',
      ')',
      ':',
      'AND',
      'OR',
      'NOT',
      'NEAR',
      'NEAR/2',
      ' ',
      'hello',
      'world',
      'approach',
      '\\',
      "'",
      '%',
      '\u0000',
      'é',
    );
    const input = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.array(syntax, { maxLength: 12 }).map((xs) => xs.join('')),
    );
    fc.assert(
      fc.property(input, (q) => {
        const hits = catalog.search(q, { limit: 20 });
        for (const h of hits) for (const [s, e] of h.highlights) assert.ok(s >= 0 && s < e && e <= h.snippet.length);
      }),
      { numRuns: 400 },
    );
  });
});
