import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { buildTranscriptItems, oneLine, previewOf, toTranscriptItem } from '../../../src/core/transcript/transcript';
import type { SessionEntry } from '../../../src/core/session/types';

const at = '2026-01-25T10:00:00.000Z';
const msg = (id: string, parentId: string | null, message: Record<string, unknown>): SessionEntry =>
  ({ type: 'message', id, parentId, timestamp: at, message }) as SessionEntry;

describe('transcript rows', () => {
  it('maps every chat entry of a real pi session to one row, in order, skipping non-chat entries', () => {
    const lines = readFileSync(resolve(__dirname, '../../../../shared/fixtures/pi/simple-session.v3.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const entries = lines.slice(1) as SessionEntry[];
    const items = buildTranscriptItems(entries, {});
    const chat = entries.filter((e) => e.type === 'message');
    assert.deepEqual(
      items.map((i) => i.entryId),
      chat.map((e) => e.id),
    );
    assert.equal(items[0]!.kind, 'user');
    assert.equal(items[0]!.markdown, 'Hello, help me with something');
    const withCall = items.find((i) => i.entryId === '00000004')!;
    assert.equal(withCall.kind, 'assistant');
    assert.match(withCall.markdown, /Let me read that file\.[\s\S]*\*\*read\*\* `\/home\/will\/test.txt`/);
    const result = items.find((i) => i.entryId === '00000005')!;
    assert.equal(result.kind, 'toolResult');
    assert.equal(result.title, 'read');
  });

  it('gives tool-only assistant messages, bash runs, summaries and compactions their own kinds', () => {
    const rows = buildTranscriptItems(
      [
        msg('a', null, { role: 'assistant', content: [{ type: 'toolCall', id: 't', name: 'edit', arguments: { path: 'x' } }] }),
        msg('b', 'a', { role: 'bashExecution', command: 'rm -rf build', output: 'boom', exitCode: 1 }),
        { type: 'branch_summary', id: 'c', parentId: 'b', timestamp: at, fromId: 'b', summary: 'tried A' } as SessionEntry,
        { type: 'compaction', id: 'd', parentId: 'c', timestamp: at, summary: 'so far' } as SessionEntry,
        { type: 'model_change', id: 'e', parentId: 'd', timestamp: at, model: 'x' } as SessionEntry,
        { type: 'custom_message', id: 'f', parentId: 'e', timestamp: at, customType: 'rewind-report', content: 'hidden', display: false } as SessionEntry,
        { type: 'custom_message', id: 'g', parentId: 'f', timestamp: at, customType: 'note', content: 'shown', display: true } as SessionEntry,
      ],
      {},
    );
    assert.deepEqual(
      rows.map((r) => [r.entryId, r.kind]),
      [
        ['a', 'toolCall'],
        ['b', 'bash'],
        ['c', 'branchSummary'],
        ['d', 'compaction'],
        ['g', 'custom'],
      ],
    );
    assert.equal(rows[0]!.title, 'edit');
    assert.equal(rows[1]!.isError, true, 'a failing shell command is flagged');
    assert.equal(rows[4]!.title, 'note');
  });

  it('marks branch points, labels and file checkpoints', () => {
    const rows = buildTranscriptItems([msg('u1', null, { role: 'user', content: 'hi' }), msg('u2', 'u1', { role: 'user', content: 'again' })], {
      otherBranchesAt: new Map([['u1', [{ name: 'main', headEntryId: 'x9' }]]]),
      fileCheckpoints: new Map([['u1', 4]]),
      fileCheckpointsKnown: true,
      labelOf: (id) => (id === 'u2' ? 'important' : undefined),
    });
    assert.deepEqual(rows[0]!.otherBranches, [{ name: 'main', headEntryId: 'x9' }]);
    assert.deepEqual(rows[0]!.fileCheckpoint, { files: 4 });
    assert.equal(rows[1]!.fileCheckpoint, null, 'no snapshot for that message');
    assert.equal(rows[1]!.label, 'important');
    assert.ok(!('label' in rows[0]!));
  });

  it('keeps a tool result from closing its code fence early', () => {
    const row = toTranscriptItem(
      msg('r', null, { role: 'toolResult', toolName: 'read', content: [{ type: 'text', text: 'a\n```\n<script>x</script>' }] }),
      {},
    )!;
    assert.match(row.markdown, /^````\n/);
    assert.match(row.markdown, /\n````$/);
  });

  it('previews entries on one short line', () => {
    assert.equal(oneLine('  a\n\n b  '), 'a b');
    assert.equal(oneLine('x'.repeat(100)).length, 80);
    assert.equal(previewOf(msg('u', null, { role: 'user', content: [{ type: 'image', data: '', mimeType: 'image/png' }] })), '[image]');
    assert.equal(previewOf({ type: 'label', id: 'l', parentId: null, timestamp: at, targetId: 'u' } as SessionEntry), '(label)');
  });

  it('shows tools as tools: an edit as a diff, a write with its path, a shell call as its command, the name once', () => {
    const call = (id: string, name: string, args: unknown) => ({ type: 'toolCall', id, name, arguments: args });
    const rows = buildTranscriptItems(
      [
        msg('e', null, {
          role: 'assistant',
          content: [call('1', 'Edit', { file_path: '/p/a.ts', old_string: 'const a = 1;', new_string: 'const a = 2;\nconst b = 3;' })],
        }),
        msg('e2', 'e', { role: 'toolResult', toolCallId: '1', toolName: 'Edit', content: [{ type: 'text', text: 'ok' }] }),
        msg('w', 'e2', { role: 'assistant', content: [call('2', 'write', { path: 'notes.md', content: '# Notes\n' })] }),
        msg('w2', 'w', { role: 'toolResult', toolCallId: '2', toolName: 'write', content: [{ type: 'text', text: 'ok' }] }),
        msg('b', 'w2', { role: 'assistant', content: [call('3', 'Bash', { command: 'rm -rf build', description: 'Clean the build' })] }),
        msg('b2', 'b', { role: 'toolResult', toolCallId: '3', toolName: 'Bash', content: [{ type: 'text', text: '' }] }),
        msg('x', 'b2', {
          role: 'assistant',
          content: [{ type: 'text', text: 'Now both:' }, call('4', 'read', { path: 'x.txt' }), call('5', 'exec_command', { cmd: 'ls -la' })],
        }),
        msg('y', 'x', { role: 'assistant', content: [{ type: 'text', text: 'moving on' }] }),
      ],
      {},
    );
    const [edit, , write, , bash, , mixed] = rows;
    assert.equal(edit!.title, 'Edit');
    assert.equal(edit!.markdown, '`/p/a.ts`\n\n```diff\n-const a = 1;\n+const a = 2;\n+const b = 3;\n```');
    assert.equal(write!.markdown, '`notes.md`\n\n```markdown\n# Notes\n\n```');
    assert.equal(bash!.markdown, '*Clean the build*\n\n```sh\n$ rm -rf build\n```');
    assert.ok(!bash!.markdown.includes('Bash'), 'the name is the row title only');
    assert.match(mixed!.markdown, /^Now both:\n\n\*\*read\*\* `x.txt`\n\n\*\*exec_command\*\*\n\n```sh\n\$ ls -la\n```$/);
    assert.equal(mixed!.notice, '2 tool calls never ran', 'calls without results, with messages after them');
    assert.equal(edit!.notice, undefined);
    // one-line previews (trees, quick picks, the preview's lists) never show markdown source
    assert.equal(
      previewOf(msg('b', null, { role: 'assistant', content: [call('3', 'Bash', { command: 'rm -rf build', description: 'Clean the build' })] })),
      'Bash: Clean the build $ rm -rf build',
    );
    assert.equal(previewOf(msg('r', null, { role: 'toolResult', toolName: 'Bash', content: [{ type: 'text', text: 'done' }] })), 'done');
    // paths inside the session's folder are shown relative to it
    const inWs = buildTranscriptItems([msg('w', null, { role: 'assistant', content: [call('9', 'Write', { file_path: '/ws/src/a.ts', content: 'x' })] })], {
      cwd: '/ws',
    });
    assert.match(inWs[0]!.markdown, /^`src\/a.ts`\n\n```ts\n/);
  });

  it('marks aborted and failed replies, and keeps what the user typed as typed', () => {
    const rows = buildTranscriptItems(
      [
        msg('u', null, { role: 'user', content: 'Traceback:\n  File "a.py", line 3\n    x = 1/0' }),
        msg('a', 'u', { role: 'assistant', content: [], stopReason: 'aborted' }),
        msg('b', 'a', { role: 'assistant', content: [{ type: 'text', text: '' }], stopReason: 'error', errorMessage: 'overloaded_error: try again' }),
      ],
      {},
    );
    assert.equal(rows[0]!.preformatted, true);
    assert.equal(rows[0]!.markdown, 'Traceback:\n  File "a.py", line 3\n    x = 1/0');
    assert.equal(rows[1]!.notice, 'aborted');
    assert.match(rows[1]!.markdown, /stopped before it said anything/);
    assert.equal(rows[2]!.notice, 'error: overloaded_error: try again');
    assert.equal(rows[2]!.isError, true);
  });
});
