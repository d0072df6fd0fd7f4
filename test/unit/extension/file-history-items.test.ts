// "File History Across Agents": each change of a file becomes a picker row naming its agent, session title, prompt
// text and when; a row whose prompt is known targets that user message (open it, restore the file to before it); and
// every change's whole file before and after is rebuilt exactly from the file now and the history's diffs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTwoFilesPatch } from 'diff';
import type { NamedHistory } from '../../../src/core/engine';
import { changeVersions, fileHistoryItems, restorePaths, restoreText, whenText, type PromptInfo } from '../../../src/extension/commands/file-history-items';

type Entry = NamedHistory['entries'][number];

/** A change as the engine describes it (the same diff call as src/core/files/file-history.ts). */
function change(owner: Entry['owner'], before: string | null, after: string | null, at: string, over: Partial<Entry> = {}): Entry {
  const status: Entry['status'] = before === null ? 'added' : after === null ? 'deleted' : 'modified';
  return {
    owner,
    status,
    path: 'src/app.ts',
    at,
    insertions: 1,
    deletions: 0,
    binary: false,
    diff: createTwoFilesPatch(before === null ? '/dev/null' : 'src/app.ts', after === null ? '/dev/null' : 'src/app.ts', before ?? '', after ?? ''),
    ...over,
  };
}

const claude = {
  by: 'turn',
  sessionId: 'c0ffee00-1111',
  prompt: 'anchor-9',
  messageId: 'msg-9',
  sessionRef: '/h/claude/c0ffee00.jsonl',
  agent: 'claude',
} as const;
const ours = { by: 'turn', sessionId: 'abcd1234-2222', prompt: 'u1', messageId: 'u1', sessionRef: '/h/pi/abcd.jsonl', agent: 'pi' } as const;
const v1 = 'a\nb\n';
const v2 = 'a\nb\nc\n';
const v3 = 'a\nB\nc'; // no newline at the end
const now = new Date('2026-11-27T12:00:00.000Z');

const history: NamedHistory = {
  path: 'src/app.ts',
  entries: [
    change({ by: 'user' }, v3, v3 + '\nmine\n', 'now'),
    change(claude, v2, v3, '2026-11-27T11:55:00.000Z'),
    change(ours, v1, v2, '2026-11-26T09:00:00.000Z'),
    change({ by: 'several', sessions: ['abcd1234-2222', 'c0ffee00-1111'] }, null, v1, '2026-11-01T09:00:00.000Z'),
  ],
};
const infos = new Map<string, PromptInfo>([
  ['/h/claude/c0ffee00.jsonl\u0000msg-9', { agent: 'Claude Code', title: 'Rename the flag', text: 'make b upper case' }],
  ['/h/pi/abcd.jsonl\u0000u1', { agent: 'pi', title: 'Add c', text: 'append c' }],
]);
const infoOf = (t: { sessionRef: string; entryId: string }) => infos.get(`${t.sessionRef}\u0000${t.entryId}`);

describe('file history items', () => {
  it('labels each change with its agent, session title, prompt text and when, newest first', () => {
    const items = fileHistoryItems(history, infoOf, now);
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.detail]),
      [
        ['$(account) You (outside any agent turn)', 'since the last snapshot', 'modified, +1 −0'],
        ['$(hubot) Claude Code · Rename the flag', '5 min ago', '“make b upper case” — modified, +1 −0'],
        ['$(hubot) pi · Add c', '1 day ago', '“append c” — modified, +1 −0'],
        ['$(organization) Several sessions at once (abcd1234, c0ffee00)', '26 days ago', 'added, +1 −0'],
      ],
    );
  });

  it('targets the user message of a prompt it knows, and nothing for the user or several sessions', () => {
    const items = fileHistoryItems(history, infoOf, now);
    assert.deepEqual(
      items.map((i) => i.prompt),
      [undefined, { sessionRef: '/h/claude/c0ffee00.jsonl', entryId: 'msg-9' }, { sessionRef: '/h/pi/abcd.jsonl', entryId: 'u1' }, undefined],
    );
    assert.deepEqual(
      items.map((i) => i.index),
      [0, 1, 2, 3],
    );
  });

  it('names a prompt whose session could not be read by its agent, session and message id', () => {
    const [item] = fileHistoryItems({ path: 'x', entries: [change(claude, v1, v2, 'now')] }, () => undefined, now);
    assert.equal(item?.label, '$(hubot) claude · session c0ffee00');
    assert.equal(item?.detail, 'prompt msg-9 — modified, +1 −0');
  });

  it('rebuilds the whole file before and after every change from the file now', () => {
    assert.deepEqual(changeVersions(history.entries, v3 + '\nmine\n'), [
      { before: v3, after: v3 + '\nmine\n' },
      { before: v2, after: v3 },
      { before: v1, after: v2 },
      { before: null, after: v1 },
    ]);
  });

  it('a deleted file: absent after, its content before', () => {
    assert.deepEqual(changeVersions([change(ours, v2, null, 'now')], null), [{ before: v2, after: null }]);
  });

  it('shows nothing rather than a guess once a diff cannot be undone (binary, cut, or not matching the file)', () => {
    const binary = { ...history.entries[1]!, binary: true, diff: '' };
    assert.deepEqual(changeVersions([history.entries[0]!, binary, history.entries[2]!], v3 + '\nmine\n'), [
      { before: v3, after: v3 + '\nmine\n' },
      undefined,
      undefined,
    ]);
    assert.deepEqual(changeVersions(history.entries, 'something else entirely\n'), [undefined, undefined, undefined, undefined]);
  });

  it('says when in words a person reads', () => {
    assert.equal(whenText('2026-11-27T11:59:30.000Z', now), 'just now');
    assert.equal(whenText('2026-11-27T09:00:00.000Z', now), '3 h ago');
    assert.equal(whenText('2026-09-01T09:00:00.000Z', now), '2026-09-01');
  });

  it('restores a renamed file under the name it had before the prompt, as well as clearing the new one', () => {
    const renamed: NamedHistory = {
      path: 'new.txt',
      entries: [
        change({ by: 'user' }, 'x\n', 'y\n', 'now', { path: 'new.txt' }),
        change(claude, 'x\n', 'x\n', '2026-11-27T11:55:00.000Z', { path: 'new.txt', status: 'renamed', from: 'old.txt' }),
        change(ours, null, 'x\n', '2026-11-26T09:00:00.000Z', { path: 'old.txt' }),
      ],
    };
    assert.deepEqual(restorePaths(renamed, 0), ['new.txt']);
    assert.deepEqual(restorePaths(renamed, 1), ['new.txt', 'old.txt']);
    assert.deepEqual(restorePaths(renamed, 2), ['new.txt', 'old.txt']);
  });

  it('says what the restore does to each file', () => {
    assert.equal(
      restoreText([
        { path: 'new.txt', status: 'added', insertions: 1, deletions: 0, binary: false },
        { path: 'old.txt', status: 'deleted', insertions: 0, deletions: 1, binary: false },
        { path: 'app.js', status: 'modified', insertions: 2, deletions: 1, binary: false },
      ]),
      'new.txt did not exist then: it will be deleted.\nold.txt will be brought back.\napp.js will be rewritten (1 line brought back, 2 removed).',
    );
  });
});
