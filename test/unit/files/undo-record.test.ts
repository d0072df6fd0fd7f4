// Undo records are read back by hand (undo-record.ts) instead of through zod: what they accept, refuse and return
// must stay exactly what undoSchema gives, and reading a full stack of big rewinds must stay cheap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { z } from 'zod';
import { parseUndoRecord, parseUndoStack, undoSchema } from '../../../src/core/files/restore/undo-record';

const reference = (x: unknown) => {
  const r = z.array(undoSchema).safeParse(x);
  return r.success ? r.data : undefined;
};

const hash = fc.constantFrom('a'.repeat(64), '0123456789abcdef'.repeat(4), 'A'.repeat(64), 'a'.repeat(63), 'g'.repeat(64), '');
const anything = fc.oneof(fc.constant(null), fc.constant(undefined), fc.boolean(), fc.integer(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}));
const mode = fc.oneof(fc.constantFrom(0, 0o644, 0o755, 0o7777, 0o10000, -1, 1.5, -0), fc.constant('644'));
const state = fc.oneof(
  fc.constant(null),
  fc.record({ kind: fc.constantFrom('file', 'symlink', 'dir', 'fifo'), hash, mode }, { requiredKeys: [] }),
  fc.record({ kind: fc.constantFrom('file', 'symlink', 'dir'), hash, mode, extra: anything }),
  anything,
);
const written = fc.oneof(
  fc.record({ path: fc.oneof(fc.string({ maxLength: 4 }), anything), state }, { requiredKeys: ['path'] }),
  fc.record({ path: fc.string({ maxLength: 4 }), state, other: anything }),
  anything,
);
const str = fc.oneof(fc.string({ maxLength: 4 }), anything);
const record = fc.oneof(
  fc.record(
    {
      v: fc.oneof(fc.constant(1), anything),
      sessionId: str,
      anchorId: str,
      preRestoreAnchor: str,
      createdAt: str,
      written: fc.oneof(fc.array(written, { maxLength: 4 }), anything),
      extra: anything,
    },
    { requiredKeys: [] },
  ),
  anything,
);
const validRecord = fc.record({
  v: fc.constant(1),
  sessionId: fc.string(),
  anchorId: fc.string(),
  preRestoreAnchor: fc.string(),
  createdAt: fc.string(),
  written: fc.array(
    fc.record({
      path: fc.string(),
      state: fc.oneof(
        fc.constant(null),
        fc.record({ kind: fc.constantFrom('file', 'symlink'), hash: fc.constant('f'.repeat(64)), mode: fc.integer({ min: 0, max: 0o7777 }) }),
        fc.constant({ kind: 'dir', mode: 0o755 }),
      ),
    }),
    { maxLength: 5 },
  ),
});

test('a stack read by hand is what undoSchema parses (accepted, refused, extra keys dropped)', () => {
  fc.assert(
    fc.property(fc.oneof(fc.array(record, { maxLength: 3 }), fc.array(validRecord, { maxLength: 3 }), anything), (x) => {
      const json = JSON.parse(JSON.stringify(x) ?? 'null');
      assert.deepEqual(parseUndoStack(json), reference(json));
    }),
    { numRuns: 3000 },
  );
});

test('one record read by hand is what undoSchema parses', () => {
  fc.assert(
    fc.property(fc.oneof(record, validRecord), (x) => {
      const json = JSON.parse(JSON.stringify(x) ?? 'null');
      const r = undoSchema.safeParse(json);
      assert.deepEqual(parseUndoRecord(json), r.success ? r.data : undefined);
    }),
    { numRuns: 3000 },
  );
});

// its speed (zod took ~150 ms here, the hand-written check ~5 ms) is the files bench's restore row, not a timed test
test('a full stack of 1,000-file rewinds reads back whole', () => {
  const rec = (k: number) => ({
    v: 1,
    sessionId: 's',
    anchorId: `a${k}`,
    preRestoreAnchor: `pre-restore:${k}`,
    createdAt: new Date(0).toISOString(),
    written: Array.from({ length: 1000 }, (_, i) => ({ path: `pkg${i % 10}/src/file${i}.ts`, state: { kind: 'file', hash: 'ab'.repeat(32), mode: 0o644 } })),
  });
  const stack = Array.from({ length: 20 }, (_, k) => rec(k));
  const parsed = parseUndoStack(stack);
  assert.equal(parsed?.length, 20);
  assert.deepEqual(
    parsed?.map((r) => r.written.length),
    stack.map(() => 1000),
  );
  assert.deepEqual(parsed?.[19]?.written[999], stack[19]!.written[999]);
});
