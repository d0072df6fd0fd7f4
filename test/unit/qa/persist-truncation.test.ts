// Strings over 500,000 characters are truncated before they are written (docs/ARCHITECTURE.md, session files). The cut must not fall inside a
// surrogate pair: a lone surrogate is not valid Unicode and comes back from disk as U+FFFD in every reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PERSIST_CHARS, prepareForPersist, TRUNCATION_NOTICE } from '../../../src/core/session/persist-transform';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

test('truncation at 500,000 characters never splits an emoji', () => {
  for (const before of [MAX_PERSIST_CHARS - 1, MAX_PERSIST_CHARS - 2, MAX_PERSIST_CHARS]) {
    const text = 'a'.repeat(before) + '😀'.repeat(5);
    const out = prepareForPersist({ content: text }).value.content;
    assert.ok(out.endsWith(TRUNCATION_NOTICE), `${before}: truncated`);
    const kept = out.slice(0, out.indexOf('\n\n' + TRUNCATION_NOTICE));
    assert.doesNotMatch(kept, LONE_SURROGATE, `${before}: cut inside a surrogate pair`);
    assert.ok(kept.length <= MAX_PERSIST_CHARS && kept.length >= MAX_PERSIST_CHARS - 1, `${before}: kept ${kept.length}`);
    assert.ok(text.startsWith(kept));
  }
});
