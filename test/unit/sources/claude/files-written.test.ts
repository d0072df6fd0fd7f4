// Claude Code's files written per prompt (SourceAdapter.filesWrittenByTurn): its transcript's Write, Edit, MultiEdit
// and NotebookEdit calls, each given to the prompt whose turn made it (across tool results), nothing for Bash or Read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaudeSource } from '../../../../src/core/sources/claude/claude-source';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { tempConfigDir, Transcript } from './builder';

test("each prompt's turn claims the files its Write/Edit/MultiEdit/NotebookEdit calls wrote; Bash and Read claim nothing", async (t) => {
  const tr = new Transcript(undefined, '/work/proj');
  const p1 = tr.user(null, 'make a.txt');
  let at = tr.toolUse(p1, 'm1', 't1', 'Write', { file_path: '/work/proj/a.txt', content: 'a' });
  at = tr.toolResult(at, 't1', 'ok');
  at = tr.toolUse(at, 'm2', 't2', 'Read', { file_path: '/work/proj/b.txt' });
  at = tr.toolResult(at, 't2', 'b');
  at = tr.toolUse(at, 'm3', 't3', 'Edit', { file_path: 'rel/c.txt', old_string: 'x', new_string: 'y' });
  at = tr.toolResult(at, 't3', 'ok');
  at = tr.text(at, 'm4', 'done');
  const p2 = tr.user(at, 'run the build');
  at = tr.toolUse(p2, 'm5', 't5', 'Bash', { command: 'echo hi > d.txt' });
  at = tr.toolResult(at, 't5', '');
  const p3 = tr.user(at, 'notebook and multi');
  at = tr.toolUse(p3, 'm6', 't6', 'MultiEdit', { file_path: '/work/proj/e.txt', edits: [] });
  at = tr.toolResult(at, 't6', 'ok');
  at = tr.toolUse(at, 'm7', 't7', 'NotebookEdit', { notebook_path: '/work/proj/n.ipynb', new_source: '' });
  tr.toolResult(at, 't7', 'ok');
  const file = tr.write(tempConfigDir(t));
  const view = await readClaudeSession(file);
  const written = await new ClaudeSource({ configDirs: [] }).filesWrittenByTurn(view);
  assert.deepEqual(Object.fromEntries(written), {
    [p1]: ['/work/proj/a.txt', '/work/proj/rel/c.txt'],
    [p3]: ['/work/proj/e.txt', '/work/proj/n.ipynb'],
  });
});
