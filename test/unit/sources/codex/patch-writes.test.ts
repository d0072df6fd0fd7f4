// Codex's files written per prompt (SourceAdapter.filesWrittenByTurn): the headers of its apply_patch calls' patches
// (added, updated, deleted, moved to), whichever way the call came in the rollout, each given to the prompt whose turn
// made it; a shell command's own writes are not in the rollout and claim nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodexSource, readCodexSession } from '../../../../src/core/sources/codex';
import { patchPaths } from '../../../../src/core/sources/codex/patch-writes';
import { Rollout } from './builder';

const PATCH = [
  '*** Begin Patch',
  '*** Add File: src/new.ts',
  '+export const a = 1;',
  '+*** Add File: not-a-header.txt',
  '*** Update File: README.md',
  '*** Move to: docs/README.md',
  '@@',
  '-old',
  '+new',
  '*** End of File',
  '*** Delete File: old.txt',
  '*** End Patch',
  '',
].join('\n');

test('a patch names the files its Add, Update, Delete and Move to headers name, and no line of a hunk', () => {
  assert.deepEqual(patchPaths(PATCH), ['src/new.ts', 'README.md', 'docs/README.md', 'old.txt']);
  assert.deepEqual(patchPaths('*** Begin Patch\r\n*** Update File: a b.txt\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n'), ['a b.txt']);
  assert.deepEqual(patchPaths('*** Begin Patch\n*** End Patch\n'), []);
});

test("each prompt's turn claims the files its apply_patch calls wrote (custom, function and shell calls); other shell commands claim nothing", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ar-codex-writes-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const home = join(dir, 'codexhome');
  const r = new Rollout(undefined, '/work/proj').turn('make the parser');
  // 0.169's freeform call, as it writes it; the change event says the same files by absolute path
  r.patch(PATCH, { '/work/proj/src/new.ts': { type: 'add', content: 'export const a = 1;\n' } });
  r.shell('echo hi > shell.txt', '');
  r.say('done').end();
  r.turn('and the rest');
  // the older function-style apply_patch, and a shell call running apply_patch in another folder
  r.item({
    type: 'function_call',
    name: 'apply_patch',
    arguments: JSON.stringify({ input: '*** Begin Patch\n*** Add File: lib/x.ts\n+x\n*** End Patch\n' }),
    call_id: 'fc1',
  });
  r.item({ type: 'function_call_output', call_id: 'fc1', output: 'Success.' });
  r.item({
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['apply_patch', '*** Begin Patch\n*** Update File: y.ts\n@@\n-a\n+b\n*** End Patch\n'], workdir: '/work/proj/pkg' }),
    call_id: 'fc2',
  });
  r.item({ type: 'function_call_output', call_id: 'fc2', output: 'Success.' });
  r.item({
    type: 'function_call',
    name: 'exec_command',
    arguments: JSON.stringify({ cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../outside.txt\n+o\n*** End Patch\nEOF\n" }),
    call_id: 'fc3',
  });
  r.item({ type: 'function_call_output', call_id: 'fc3', output: 'Success.' });
  r.say('ok').end();
  r.turn('just run the tests');
  r.shell('npm test', 'ok');
  r.say('green').end();
  const view = await readCodexSession(r.write(home), { home });
  const prompts = view
    .getEntries()
    .filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'user')
    .map((e) => e.id);
  assert.equal(prompts.length, 3);
  const written = await new CodexSource({ home }).filesWrittenByTurn(view);
  assert.deepEqual(Object.fromEntries(written), {
    [prompts[0]!]: ['/work/proj/src/new.ts', '/work/proj/README.md', '/work/proj/docs/README.md', '/work/proj/old.txt'],
    // a path out of the folder is returned as the patch names it: the rewind keeps only those inside its workspace
    [prompts[1]!]: ['/work/proj/lib/x.ts', '/work/proj/pkg/y.ts', '/work/outside.txt'],
  });
});
