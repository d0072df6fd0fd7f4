import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { parseJsonlRecords } from '../../../src/core/sources/jsonl-records';

const schema = z.object({ v: z.literal(1), id: z.string().min(1) });

describe("parseJsonlRecords (the records kept beside agents' sessions)", () => {
  it('gives the valid records in file order and skips blank, damaged, cut-short and foreign lines', () => {
    const text = [
      '{"v":1,"id":"a"}',
      '',
      '   ',
      '{"v":1,"id":"b"',
      'not json',
      '{"v":2,"id":"c"}',
      '{"v":1,"id":""}',
      '[1,2]',
      'null',
      '{"v":1,"id":"d","extra":true}',
      '{"v":1,"id":"a"}',
      '{"v":1,"id":"e"}', // the last line without its newline
    ].join('\n');
    assert.deepEqual(
      parseJsonlRecords(text, schema).map((r) => r.id),
      ['a', 'd', 'a', 'e'],
    );
  });

  it('gives nothing for an empty file', () => {
    assert.deepEqual(parseJsonlRecords('', schema), []);
    assert.deepEqual(parseJsonlRecords('\n\n', schema), []);
  });
});
