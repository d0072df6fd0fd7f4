// The session CLI commands, run as real processes: JSON on stdout only, messages on stderr, exit codes 0 / 1 / 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sessionDirFor } from '../../../src/core/session/paths';
import { cliRunOf } from '../qa/cli-harness';
import { bundleCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');
const FIXTURES = resolve(ROOT, '../shared/fixtures/pi');
let dir: string;
let cli: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cli-'));
  // one bundle of src/cli/main.ts, so each call starts in ~0.1 s instead of going through tsx
  cli = join(dir, 'cli.cjs');
  bundleCli(cli);
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function run(args: string[], opts: { cwd?: string; tsx?: boolean } = {}): Run {
  const argv = opts.tsx ? ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args] : [cli, ...args];
  // HOME points at the temp dir too, so ~/.pi and ~/.omp are the test's own
  return cliRunOf(
    spawnSync(process.execPath, argv, { cwd: opts.cwd ?? dir, encoding: 'utf8', env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: '' }, input: '' }),
  );
}

test('new → append → context → tree → sessions, all with --json', () => {
  const home = join(dir, 'h1');
  const created = run(['new', '--cwd', '/proj/x', '--title', 'Demo', '--json', '--home', home]);
  assert.equal(created.code, 0, created.stderr);
  assert.deepEqual(Object.keys(created.json), ['id', 'file']);
  assert.ok(created.json.file.startsWith(sessionDirFor(join(home, 'sessions'), '/proj/x')));
  const { id, file } = created.json;

  const u = run(['append', id, '--role', 'user', '--text', 'hello', '--id', 'u1', '--json', '--home', home]);
  assert.equal(u.code, 0, u.stderr);
  assert.equal(u.stderr, '');
  assert.deepEqual(
    { ...u.json, timestamp: 0, message: { ...u.json.message, timestamp: 0 } },
    { type: 'message', id: 'u1', parentId: null, timestamp: 0, message: { role: 'user', content: 'hello', timestamp: 0 } },
  );
  const a = run(['append', file, '--role', 'assistant', '--text', 'hi there', '--json', '--home', home]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.json.parentId, 'u1');
  assert.match(a.json.id, /^[0-9a-f]{8}$/);

  const ctx = run(['context', id, '--json', '--home', home]);
  assert.equal(ctx.code, 0, ctx.stderr);
  assert.deepEqual(
    ctx.json.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant'],
  );
  assert.equal(ctx.json.thinkingLevel, 'off');
  assert.equal(ctx.json.mode, 'none');
  assert.deepEqual(ctx.json.models, {});
  const early = run(['context', id, '--leaf', 'u1', '--json', '--home', home]);
  assert.equal(early.json.messages.length, 1);

  const tree = run(['tree', id, '--json', '--home', home]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.equal(tree.json.leafId, a.json.id);
  assert.deepEqual(tree.json.entries, [
    { id: 'u1', parentId: null, type: 'message', role: 'user', preview: 'hello' },
    { id: a.json.id, parentId: 'u1', type: 'message', role: 'assistant', preview: 'hi there' },
  ]);
  const human = run(['tree', id, '--home', home]);
  assert.match(human.stdout, /^- u1 user: hello\n\* [0-9a-f]{8} assistant: hi there\nleaf: /);

  const list = run(['sessions', '--cwd', '/proj/x', '--json', '--home', home]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(
    list.json.map((s: any) => [s.id, s.title, s.entryCount, s.source, s.file]),
    [[id, 'Demo', 2, 'agent-rewind', file]],
  );
});

test('sessions also finds pi and oh-my-pi sessions of the folder; context opens them in place', () => {
  const home = join(dir, 'h2');
  const cwd = '/home/will/projects/test-project';
  const piDir = sessionDirFor(join(dir, '.pi/agent/sessions'), cwd);
  mkdirSync(piDir, { recursive: true });
  const piFile = join(piDir, '2026-01-25T10-00-00-000Z_compact-sess.jsonl');
  copyFileSync(join(FIXTURES, 'session-with-compaction.v3.jsonl'), piFile);
  const ompDir = sessionDirFor(join(dir, '.omp/agent/sessions'), cwd);
  mkdirSync(ompDir, { recursive: true });
  copyFileSync(join(FIXTURES, 'simple-session.v3.jsonl'), join(ompDir, '2026-01-25T10-00-00-000Z_simple.jsonl'));
  const list = run(['sessions', '--cwd', cwd, '--json', '--home', home]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(list.json.map((s: any) => s.source).sort(), ['omp', 'pi']);
  const ctx = run(['context', piFile, '--json', '--home', home]);
  assert.deepEqual(
    ctx.json.messages.map((m: any) => m.role),
    ['compactionSummary', 'user', 'assistant', 'user', 'assistant'],
  );
});

test('usage errors exit 2, failures exit 1, with the reason on stderr and nothing on stdout', () => {
  const home = join(dir, 'h3');
  const { id } = run(['new', '--json', '--home', home]).json;
  const cases: [string[], number, RegExp][] = [
    [['append', id, '--text', 'x'], 2, /missing --role/],
    [['append', id, '--role', 'system', '--text', 'x'], 2, /--role must be user or assistant/],
    [['append', id, '--role', 'user'], 2, /missing --text/],
    [['append', '--role', 'user', '--text', 'x'], 2, /missing <session>/],
    [['context', id, '--bogus'], 2, /unknown option --bogus\n/],
    [['context', 'no-such-id'], 1, /no session with id "no-such-id"/],
    [['context', join(dir, 'missing.jsonl')], 1, /session file not found/],
    [['context', id, '--leaf', 'zzzz'], 1, /no entry "zzzz"/],
    [['append', id, '--role', 'user', '--text', 'x', '--id', 'bad id!'], 1, /invalid entry id/],
  ];
  for (const [args, code, message] of cases) {
    const r = run([...args, '--json', '--home', home]);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '', args.join(' '));
  }
  run(['append', id, '--role', 'user', '--text', 'x', '--id', 'dup', '--home', home]);
  const dup = run(['append', id, '--role', 'user', '--text', 'y', '--id', 'dup', '--json', '--home', home]);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /already exists/);
});

test('a file without a valid header is refused and left untouched; skipped lines are warned about on stderr', () => {
  const home = join(dir, 'h4');
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, 'garbage\n');
  const r = run(['append', bad, '--role', 'user', '--text', 'x', '--json', '--home', home]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not a session file/);
  assert.equal(readFileSync(bad, 'utf8'), 'garbage\n');

  const { file } = run(['new', '--json', '--home', home]).json;
  writeFileSync(file, readFileSync(file, 'utf8') + '{oops\n');
  const ctx = run(['context', file, '--json', '--home', home]);
  assert.equal(ctx.code, 0);
  assert.match(ctx.stderr, /:2: skipped \(invalid JSON/);
  assert.deepEqual(ctx.json.messages, []);
});

test('the source entry point works through tsx as documented', () => {
  const r = run(['new', '--json', '--home', join(dir, 'h5')], { tsx: true, cwd: ROOT });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.json.id);
});
