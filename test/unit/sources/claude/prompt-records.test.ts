import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  appendPromptRecord,
  matchPromptRecords,
  promptRecordsFile,
  readPromptRecords,
  sha256Hex,
  type PromptRecord,
  type TranscriptPrompt,
} from '../../../../src/core/sources/claude/prompt-records';

const rec = (o: Partial<PromptRecord> & { text: string }): PromptRecord => {
  const { text, ...rest } = o;
  return {
    v: 1,
    anchorId: rest.promptId ?? 'x',
    promptSha256: sha256Hex(text),
    promptLength: text.length,
    transcriptPath: '/t.jsonl',
    transcriptSize: 0,
    cwd: '/w',
    workspaceRoot: '/w',
    at: '2026-01-01T00:00:00Z',
    ...rest,
  };
};

test('records round-trip through the session file; invalid lines are skipped; unsafe session ids refused', () => {
  const home = mkdtempSync(join(tmpdir(), 'ar-cc-prompts-'));
  try {
    const a = rec({ anchorId: 'p1', promptId: 'p1', text: 'one' });
    const b = rec({ anchorId: 'prompt-x', text: 'two', transcriptSize: 120 });
    appendPromptRecord(home, 'sess-1', a);
    appendFileSync(promptRecordsFile(home, 'sess-1'), 'not json\n{"v":2}\n');
    appendPromptRecord(home, 'sess-1', b);
    assert.deepEqual(readPromptRecords(home, 'sess-1'), [a, b]);
    assert.deepEqual(readPromptRecords(home, 'other'), []);
    for (const bad of ['../x', 'a/b', '', '.hidden', 'a b']) assert.throws(() => promptRecordsFile(home, bad), /unusable session id/);
    assert.throws(() => appendPromptRecord(home, 'sess-1', { ...a, promptSha256: 'nope' }));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("prompt ids match first; a fork's copied lines sharing the id lose to the last one", () => {
  const prompts: TranscriptPrompt[] = [
    { entryId: 'u1', promptId: 'F', text: 'prompt one', byteOffset: 1800 },
    { entryId: 'u2', promptId: 'F', text: 'prompt two', byteOffset: 99000 },
    { entryId: 'u4', promptId: 'F', text: 'prompt four', byteOffset: 113000 },
    { entryId: 'u5', promptId: 'G', text: 'prompt five', byteOffset: 130000 },
  ];
  const m = matchPromptRecords(prompts, [
    rec({ anchorId: 'F', promptId: 'F', text: 'prompt four' }),
    rec({ anchorId: 'G', promptId: 'G', text: 'prompt five', transcriptSize: 120000 }),
  ]);
  assert.deepEqual(
    [...m],
    [
      ['u4', 'F'],
      ['u5', 'G'],
    ],
  );
  // even when the fork's prompt repeats an earlier text, the real (last) line wins
  const again = matchPromptRecords(
    [
      { entryId: 'c', promptId: 'F', text: 'same', byteOffset: 10 },
      { entryId: 'n', promptId: 'F', text: 'same', byteOffset: 50 },
    ],
    [rec({ anchorId: 'F', promptId: 'F', text: 'same' })],
  );
  assert.deepEqual([...again], [['n', 'F']]);
  // an id nobody has: no match (not a guess by text)
  assert.equal(matchPromptRecords(prompts, [rec({ anchorId: 'Z', promptId: 'Z', text: 'prompt one' })]).size, 0);
});

test('without prompt ids: first unmatched prompt at or after the recorded transcript size with the same text', () => {
  const prompts: TranscriptPrompt[] = [
    { entryId: 'a', text: 'continue', byteOffset: 0 },
    { entryId: 'b', text: 'fix it', byteOffset: 500 },
    { entryId: 'c', text: 'continue', byteOffset: 900 },
    { entryId: 'd', text: 'continue', byteOffset: 1500 },
  ];
  const m = matchPromptRecords(prompts, [
    rec({ anchorId: 'r1', text: 'continue', transcriptSize: 0 }),
    rec({ anchorId: 'r2', text: 'continue', transcriptSize: 700 }),
    rec({ anchorId: 'r3', text: 'continue', transcriptSize: 700 }),
    rec({ anchorId: 'r4', text: 'fix it', transcriptSize: 1000 }), // its line is not written yet
  ]);
  assert.deepEqual([...m].sort(), [
    ['a', 'r1'],
    ['c', 'r2'],
    ['d', 'r3'],
  ]);
  // records with prompt ids take their lines before position matching runs
  const mixed = matchPromptRecords(
    [
      { entryId: 'x', promptId: 'P', text: 'go', byteOffset: 0 },
      { entryId: 'y', text: 'go', byteOffset: 10 },
    ],
    [rec({ anchorId: 'old', text: 'go', transcriptSize: 0 }), rec({ anchorId: 'P', promptId: 'P', text: 'go' })],
  );
  assert.deepEqual([...mixed].sort(), [
    ['x', 'P'],
    ['y', 'old'],
  ]);
});
