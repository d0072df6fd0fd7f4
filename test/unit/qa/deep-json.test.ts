// No recursion bounded by the depth of a session's JSON: content nested 10,000 deep (a tool call's arguments, a
// message's content) made `context` fail with "Maximum call stack size exceeded" (JSON.parse takes any depth; what
// comes after it — JSON.stringify, structured clones, our walks — recurses). The rule (src/core/json-depth.ts): an
// array or object starting deeper than MAX_JSON_DEPTH levels is kept as a string of its own JSON text.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { capJsonDepth, MAX_JSON_DEPTH, nestsDeeperThan, parseBoundedJson } from '../../../src/core/json-depth';
import { Transcript } from '../sources/claude/builder';
import { Rollout } from '../sources/codex/builder';
import { cliHarness } from './cli-harness';

const DEPTH = 10_000;
/** `{"k":{"k":…{"k":"bottom"}…}}` nested `depth` objects deep, and an array `[[…[1, "a]"]…]]` as deep. */
const deepObjectText = (depth: number) => '{"k":'.repeat(depth - 1) + '{"k":"bottom"}' + '}'.repeat(depth - 1);
const deepArrayText = (depth: number) => '['.repeat(depth) + '1,"a]\\"["' + ']'.repeat(depth);

test('parseBoundedJson: values within the bound are what JSON.parse gives; deeper ones are their own JSON text', () => {
  const shallow = '{"a":[1,{"b":"x]}\\"{"}],"c":null}';
  assert.deepEqual(parseBoundedJson(shallow), JSON.parse(shallow));
  const atBound = deepObjectText(MAX_JSON_DEPTH);
  assert.deepEqual(parseBoundedJson(atBound), JSON.parse(atBound), 'exactly MAX_JSON_DEPTH levels are kept as they are');

  const text = `{"tool":"x","input":${deepObjectText(DEPTH)},"after":[${deepArrayText(DEPTH)}],"tail":"}]"}`;
  const v = parseBoundedJson(text) as Record<string, unknown>;
  assert.equal(nestsDeeperThan(v), false);
  assert.equal(v.tool, 'x');
  assert.equal(v.tail, '}]', 'what follows a cut value is read as usual');
  // walk down "input" to the bound: there the rest is a string holding its exact JSON text
  let at: unknown = v.input;
  let depth = 2;
  while (typeof at === 'object' && at !== null) {
    at = (at as { k: unknown }).k;
    depth++;
  }
  assert.equal(depth, MAX_JSON_DEPTH + 1);
  assert.equal(at, deepObjectText(DEPTH - MAX_JSON_DEPTH + 1));
  assert.doesNotThrow(() => JSON.stringify(v));
  assert.doesNotThrow(() => structuredClone(v));
  assert.equal(capJsonDepth(shallow), shallow);
});

function piSession(file: string, cwd: string): void {
  const lines = [
    { type: 'session', version: 3, id: 'deep-json', timestamp: '2026-01-01T00:00:00.000Z', cwd },
    { type: 'message', id: 'u1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'go deep' } },
  ].map((l) => JSON.stringify(l));
  lines.push(
    `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":${deepObjectText(DEPTH)}},{"type":"text","text":"deep reply"}]}}`,
  );
  writeFileSync(file, lines.join('\n') + '\n');
}

test('the CLI reads sessions whose content is nested 10,000 deep: ours, Claude Code and Codex', (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const pi = cli.newSession('deep').file;
  piSession(pi, cli.work);

  const claude = new Transcript('12121212-2222-4333-8444-555555555555', cli.work);
  const p = claude.user(null, 'go deep');
  const a = claude.toolUse(p, 'msg_1', 'toolu_1', 'Write', { file_path: join(cli.work, 'x'), content: 'x' });
  const r1 = claude.toolResult(a, 'toolu_1', 'ok');
  const p2 = claude.user(r1, 'second prompt');
  const claudeText = claude
    .toString()
    .replace('{"file_path"', `{"deep":${deepObjectText(DEPTH)},"file_path"`)
    .replace('"content":"go deep"', `"content":[{"type":"text","text":"go deep"},{"type":"text","text":"x","extra":${deepObjectText(DEPTH)}}]`);
  // where the CLI finds them (HOME is the harness's folder), so that search reads them too
  const claudeDir = join(cli.dir, '.claude', 'projects', '-work');
  mkdirSync(claudeDir, { recursive: true });
  const claudeFile = join(claudeDir, `${claude.sessionId}.jsonl`);
  writeFileSync(claudeFile, claudeText);

  const codex = new Rollout('01a20aad-def5-7222-afbb-0000000000dd', cli.work).turn('go deep');
  codex.item({ type: 'function_call', name: 'exec_command', arguments: `{"cmd":"ls","deep":${deepObjectText(DEPTH)}}`, call_id: 'call_1' });
  codex.item({ type: 'function_call_output', call_id: 'call_1', output: 'ok' });
  const codexFile = codex.say('deep reply').end().write(join(cli.dir, '.codex'));

  for (const file of [pi, claudeFile, codexFile]) {
    for (const args of [
      ['context', file, '--json'],
      ['context', file],
      ['tree', file, '--json'],
      ['tree', file],
      ['branches', file],
    ]) {
      const r = cli.run(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr.slice(0, 500)}`);
      assert.doesNotMatch(r.stderr, /call stack/);
    }
    const ctx = cli.run(['context', file, '--json']);
    assert.match(ctx.stdout, /go deep/);
  }
  // a fork copies the deep line whole: its own bytes, with the fork's sessionId and mark appended
  const rw = cli.run(['rewind', claudeFile, p2, '--json']);
  assert.equal(rw.code, 0, rw.stderr.slice(0, 500));
  const fork = rw.json as { sessionId: string; sessionRef: string };
  const forkLines = readFileSync(fork.sessionRef, 'utf8').split('\n').filter(Boolean);
  const deepLine = forkLines.find((l) => l.includes('"deep":'))!;
  assert.ok(deepLine.includes(`"deep":${deepObjectText(DEPTH)}`), 'the deep value is copied as it was');
  const parsed = JSON.parse(deepLine) as { sessionId: string; forkedFrom: { sessionId: string } };
  assert.deepEqual([parsed.sessionId, parsed.forkedFrom.sessionId], [fork.sessionId, claude.sessionId]);
  const forkContext = cli.run(['context', fork.sessionRef, '--json']);
  assert.equal(forkContext.code, 0, forkContext.stderr.slice(0, 500));

  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dirname(cli.bundle), 'sql-wasm.wasm')); // the catalog's engine, as the build ships it
  const search = cli.run(['search', 'deep', '--all', '--json']);
  assert.equal(search.code, 0, search.stderr.slice(0, 500));
  assert.doesNotMatch(search.stderr, /call stack/);
  assert.match(search.stdout, /go deep/);
});
