// Issue 27's acceptance for `history` and `blame`: a scripted run of two sessions in one folder, ours (A, through
// `append`) and Claude Code's (B, through its hook, with its transcript), with hand edits between, a line moved by a
// shell `sed -i`, a file renamed by `mv`, and a file deleted then recreated. The expected answers are written by hand.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleCli, bundleThreadsInto, tempBase, writeTree } from '../files/helpers';
import { cliRunOf } from '../qa/cli-harness';
import { Transcript } from '../sources/claude/builder';
import type { NamedHistory } from '../../../src/core/engine';
import { changeVersions } from '../../../src/extension/commands/file-history-items';

const B = 'eeeeeeee-1111-4222-8333-444444444444';
let base: Awaited<ReturnType<typeof tempBase>>;
let cli: string;
let ws: string;
let run: (args: string[]) => ReturnType<typeof cliRunOf>;
let A: string;
let bMessage: string;

before(async () => {
  base = await tempBase('arw-history-cli-');
  cli = join(base.dir, 'cli.js');
  bundleCli(cli);
  bundleThreadsInto(base.dir);
  ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  const config = join(base.dir, 'claude');
  await writeTree(ws, { 'notes.txt': 'one\n', 'gone.txt': 'g1\n' });
  const env = { ...process.env, AGENT_REWIND_HOME: home, HOME: base.dir, CLAUDE_CONFIG_DIR: config };
  run = (args) => cliRunOf(spawnSync(process.execPath, [cli, ...args, '--home', home], { encoding: 'utf8', env, cwd: ws }));
  const hook = (input: object) => {
    const r = spawnSync(process.execPath, [cli, 'hook', 'claude'], { encoding: 'utf8', env, input: JSON.stringify({ session_id: B, cwd: ws, ...input }) });
    assert.equal(r.status, 0, r.stderr);
  };
  const t = new Transcript(B, ws);
  bMessage = t.user(null, 'tidy app.txt and rename old.txt', { promptId: 'p-1' });
  t.text(bMessage, 'msg_1', 'done');
  t.write(config, '-ws');

  A = (run(['new', '--cwd', ws, '--json']).json as { id: string }).id;
  // A's first prompt writes app.txt and old.txt
  assert.equal(run(['append', A, '--role', 'user', '--text', 'write app', '--id', 'q1', '--json']).code, 0);
  await writeFile(join(ws, 'app.txt'), 'a\nb\nc\n');
  await writeFile(join(ws, 'old.txt'), 'x\n');
  assert.equal(run(['append', A, '--role', 'assistant', '--text', 'done', '--id', 'a1', '--json']).code, 0);
  // the user adds a line by hand
  await appendFile(join(ws, 'app.txt'), 'd\n');
  // Claude Code's turn: sed -i moves the first line to the end, mv renames old.txt
  hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p-1', prompt: 'tidy app.txt and rename old.txt' });
  execFileSync('sed', ['-i', '1{h;d};$G', join(ws, 'app.txt')]);
  execFileSync('mv', [join(ws, 'old.txt'), join(ws, 'new.txt')]);
  hook({ hook_event_name: 'Stop', prompt_id: 'p-1', stop_hook_active: false });
  // A's second prompt deletes gone.txt; then the user writes it again by hand
  assert.equal(run(['append', A, '--role', 'user', '--text', 'remove gone', '--id', 'q2', '--json']).code, 0);
  await rm(join(ws, 'gone.txt'));
  assert.equal(run(['append', A, '--role', 'assistant', '--text', 'removed', '--id', 'a2', '--json']).code, 0);
  await writeFile(join(ws, 'gone.txt'), 'g2\n');
});
after(() => base.cleanup());

interface Owner {
  by: string;
  sessionId?: string;
  messageId?: string;
}
const who = (o: Owner) =>
  o.by === 'user' ? 'you' : o.by === 'turn' ? `${o.sessionId === A ? 'A' : o.sessionId === B ? 'B' : o.sessionId}:${o.messageId}` : o.by;

test('blame: per line the prompt that last changed it (a line sed -i moved is the mover’s), or you', () => {
  const app = run(['blame', 'app.txt', '--json']);
  assert.equal(app.code, 0, app.stderr);
  const lines = (app.json as { lines: { text: string; owner: Owner }[] }).lines;
  assert.deepEqual(
    lines.map((l) => [l.text, who(l.owner)]),
    [
      ['b', 'A:q1'],
      ['c', 'A:q1'],
      ['d', 'you'],
      ['a', `B:${bMessage}`],
    ],
  );
  const renamed = run(['blame', 'new.txt', '--json']).json as { lines: { text: string; owner: Owner }[] };
  assert.deepEqual(
    renamed.lines.map((l) => [l.text, who(l.owner)]),
    [['x', 'A:q1']],
    'the line keeps its author through the mv',
  );
  const recreated = run(['blame', 'gone.txt', '--json']).json as { lines: { text: string; owner: Owner }[] };
  assert.deepEqual(
    recreated.lines.map((l) => [l.text, who(l.owner)]),
    [['g2', 'you']],
  );
  const notes = run(['blame', 'notes.txt', '--json']).json as { lines: { text: string; owner: Owner }[] };
  assert.deepEqual(
    notes.lines.map((l) => [l.text, who(l.owner)]),
    [['one', 'you']],
    'older than every snapshot: nobody’s turn',
  );
  const human = run(['blame', 'app.txt']);
  assert.match(human.stdout, new RegExp(`^claude session ${B}, prompt ${bMessage}\\s+4  a$`, 'm'));
  assert.match(human.stdout, /^you\s+3 {2}d$/m);
});

test('history: the prompts (any agent) that changed a file, newest first, with diffs; renames and a delete-then-recreate', () => {
  const app = run(['history', 'app.txt', '--json']);
  assert.equal(app.code, 0, app.stderr);
  const entries = (
    app.json as { entries: { owner: Owner; status: string; insertions: number; deletions: number; diff: string; from?: string; path: string }[] }
  ).entries;
  assert.deepEqual(
    entries.map((e) => [who(e.owner), e.status, e.insertions, e.deletions]),
    [
      [`B:${bMessage}`, 'modified', 1, 1],
      ['you', 'modified', 1, 0],
      ['A:q1', 'added', 3, 0],
    ],
  );
  assert.match(entries[0]!.diff, /^-a$/m);
  assert.match(entries[0]!.diff, /^\+a$/m);
  assert.equal((entries[0]!.owner as { sessionId?: string }).sessionId, B);

  const renamed = (run(['history', 'new.txt', '--json']).json as { entries: { owner: Owner; status: string; from?: string; path: string }[] }).entries;
  assert.deepEqual(
    renamed.map((e) => [who(e.owner), e.status, e.from ?? '', e.path]),
    [
      [`B:${bMessage}`, 'renamed', 'old.txt', 'new.txt'],
      ['A:q1', 'added', '', 'old.txt'],
    ],
  );
  const gone = (run(['history', 'gone.txt', '--json']).json as { entries: { owner: Owner; status: string; at: string }[] }).entries;
  assert.deepEqual(
    gone.map((e) => [who(e.owner), e.status, e.at === 'now']),
    // the user's recreation came after the last snapshot; A's deletion shows at its turn end
    [
      ['you', 'added', true],
      ['A:q2', 'deleted', false],
    ],
  );
  const human = run(['history', 'app.txt']);
  assert.match(human.stdout, new RegExp(`^\\S+Z  claude session ${B}, prompt ${bMessage}\\n  modified app\\.txt  \\+1 −1`, 'm'));
  assert.match(run(['history', 'new.txt']).stdout, /renamed old\.txt → new\.txt {2}\+0 −0/);
});

test('File History Across Agents rebuilds each change’s whole file, before and after, from the history’s diffs', async () => {
  const versionsOf = async (path: string) => {
    const h = run(['history', path, '--json']).json as NamedHistory;
    const now = await readFile(join(ws, path), 'utf8').catch(() => null);
    return changeVersions(h.entries, now);
  };
  assert.deepEqual(await versionsOf('app.txt'), [
    { before: 'a\nb\nc\nd\n', after: 'b\nc\nd\na\n' },
    { before: 'a\nb\nc\n', after: 'a\nb\nc\nd\n' },
    { before: null, after: 'a\nb\nc\n' },
  ]);
  assert.deepEqual(await versionsOf('new.txt'), [
    { before: 'x\n', after: 'x\n' },
    { before: null, after: 'x\n' },
  ]);
  assert.deepEqual(await versionsOf('gone.txt'), [
    { before: null, after: 'g2\n' },
    { before: 'g1\n', after: null },
  ]);
});
