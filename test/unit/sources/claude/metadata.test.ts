import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readClaudeSession } from '../../../../src/core/sources/claude';
import { Transcript, tempConfigDir } from './builder';

test('title: custom-title, else ai-title, else a summary of a leaf in this file, else the first real prompt', async (ctx) => {
  const base = () => {
    const t = new Transcript();
    const c = t.user(null, '<command-name>/clear</command-name>');
    const p = t.user(c, 'make the\nbutton blue');
    // the turn ends with a bookkeeping line: a summary naming it still names this file
    const leaf = t.system(p, 'stop_hook_summary');
    return { t, leaf };
  };
  const dir = tempConfigDir(ctx);
  let { t, leaf } = base();
  assert.equal((await readClaudeSession(t.write(dir))).title, 'make the button blue');
  t.raw({ type: 'summary', summary: 'From another file', leafUuid: 'elsewhere' });
  assert.equal((await readClaudeSession(t.write(dir))).title, 'make the button blue');
  t.raw({ type: 'summary', summary: 'Button colour', leafUuid: leaf });
  assert.equal((await readClaudeSession(t.write(dir))).title, 'Button colour');
  t.raw({ type: 'ai-title', aiTitle: 'Blue button', sessionId: t.sessionId });
  assert.equal((await readClaudeSession(t.write(dir))).title, 'Blue button');
  t.raw({ type: 'custom-title', customTitle: 'mine', sessionId: t.sessionId });
  t.raw({ type: 'ai-title', aiTitle: 'later AI title', sessionId: t.sessionId });
  assert.equal((await readClaudeSession(t.write(dir))).title, 'mine');
  ({ t, leaf } = base());
  void leaf;
  assert.equal((await readClaudeSession(t.write(dir))).createdAt, '2026-01-01T00:00:01.000Z');
});

test('prompt ids: checkpointKeysOf / promptIdOf, and userPrompts with the byte offset of each prompt line', async (ctx) => {
  const t = new Transcript();
  const p1 = t.user(null, 'héllo wörld', { promptId: 'pid-1' });
  const u = t.toolUse(p1, 'msg_A', 'toolu_1', 'Bash', { command: 'ls' });
  const r = t.toolResult(u, 'toolu_1', 'ok', { promptId: 'pid-1' });
  const p2 = t.user(r, 'second');
  const file = t.write(tempConfigDir(ctx));
  const s = await readClaudeSession(file);
  assert.deepEqual(s.checkpointKeysOf(p1), ['pid-1']);
  assert.deepEqual(s.checkpointKeysOf(p2), []);
  assert.equal(s.promptIdOf(r), 'pid-1');
  assert.equal(s.promptIdOf(u), undefined);
  const prompts = s.userPrompts();
  assert.deepEqual(
    prompts.map((x) => [x.entryId, x.promptId, x.text]),
    [
      [p1, 'pid-1', 'héllo wörld'],
      [p2, undefined, 'second'],
    ],
  );
  const bytes = readFileSync(file);
  for (const x of prompts) {
    const line = bytes.subarray(x.byteOffset, bytes.indexOf(10, x.byteOffset)).toString('utf8');
    assert.equal(JSON.parse(line).uuid, x.entryId);
    assert.equal(JSON.parse(line).timestamp, x.timestamp);
  }
  assert.ok(
    prompts[1]!.byteOffset >
      Buffer.byteLength(
        t.lines
          .slice(0, 3)
          .map((l) => JSON.stringify(l))
          .join('\n'),
      ),
  );
});

test('a --fork-session copy stamps every copied user line with the new promptId: only the last prompt keeps it', async (ctx) => {
  const t = new Transcript();
  const p1 = t.user(null, 'copied prompt', { promptId: 'new' });
  const u = t.toolUse(p1, 'msg_A', 'toolu_1', 'Bash', { command: 'ls' });
  const r1 = t.toolResult(u, 'toolu_1', 'ok', { promptId: 'new' });
  const p2 = t.user(r1, 'the fork prompt', { promptId: 'new' });
  const u2 = t.toolUse(p2, 'msg_B', 'toolu_2', 'Bash', { command: 'ls' });
  const r2 = t.toolResult(u2, 'toolu_2', 'ok', { promptId: 'new' });
  const s = await readClaudeSession(t.write(tempConfigDir(ctx)));
  assert.deepEqual(s.checkpointKeysOf(p1), []);
  assert.deepEqual(s.checkpointKeysOf(p2), ['new']);
  assert.equal(s.promptIdOf(r1), undefined);
  assert.equal(s.promptIdOf(r2), 'new');
  assert.deepEqual(
    s.userPrompts().map((x) => x.promptId),
    [undefined, 'new'],
  );
});
