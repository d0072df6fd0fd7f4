import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFtsQuery } from '../../../src/core/catalog/fts-query';

describe('toFtsQuery: what a person typed → a MATCH expression that cannot be a syntax error', () => {
  it('quotes every word, joins them (AND) and makes the word being typed a prefix', () => {
    assert.deepEqual(toFtsQuery('date pars'), { match: '"date" "pars*"', words: ['date', 'pars'] });
    assert.equal(toFtsQuery('date parser ').match, '"date" "parser"');
  });
  it('keeps "quoted words" as one phrase, also while the quote is still open', () => {
    assert.equal(toFtsQuery('"date parser" tz').match, '"date parser" "tz*"');
    assert.equal(toFtsQuery('fix "date par').match, '"fix" "date par"');
  });
  it('turns operators and punctuation into plain words or separators', () => {
    assert.equal(toFtsQuery('a AND b OR NOT c').match, '"a" "AND" "b" "OR" "NOT" "c*"');
    assert.equal(toFtsQuery('-x NEAR/3 (y*) ^z').match, '"x" "NEAR" "3" "y" "z*"');
    assert.equal(toFtsQuery('src/tui-renderer.ts').match, '"src" "tui" "renderer" "ts*"');
  });
  it('keeps letters of any script', () => {
    assert.equal(toFtsQuery('café Größe 日本').match, '"café" "Größe" "日本*"');
  });
  it('has nothing to search for in punctuation only', () => {
    for (const q of ['', '   ', '"""', '*-()^:', '\u0000']) assert.deepEqual(toFtsQuery(q), { match: undefined, words: [] });
  });
});
