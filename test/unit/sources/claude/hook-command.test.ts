import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { test, beforeEach, afterEach } from 'node:test';
import { readBounded, runAgentHook } from '../../../../src/cli/commands/hook';
import { hookLogFile } from '../../../../src/core/sources/claude/hook-log';
import { FileCheckpointer } from '../../../../src/core/files/file-checkpointer';
import { readPromptRecords } from '../../../../src/core/sources/claude/prompt-records';

let dir: string;
let home: string;
let ws: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cc-hook-'));
  home = join(dir, 'home');
  ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'A');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const stdinOf = (text: string) => Readable.from([Buffer.from(text)]);
const log = () => (existsSync(hookLogFile(home)) ? readFileSync(hookLogFile(home), 'utf8') : '');
const run = (input: unknown, env: NodeJS.ProcessEnv = {}) =>
  runAgentHook(['claude'], { stdin: stdinOf(typeof input === 'string' ? input : JSON.stringify(input)), env: { AGENT_REWIND_HOME: home, ...env } });

test('UserPromptSubmit snapshots the workspace at the prompt id and records the prompt; Stop takes the turn-end one', async () => {
  const transcript = join(dir, 't.jsonl');
  writeFileSync(transcript, 'x'.repeat(123));
  assert.equal(
    await run({ hook_event_name: 'UserPromptSubmit', session_id: 's-1', prompt_id: 'p-1', prompt: 'héllo', cwd: ws, transcript_path: transcript }),
    0,
  );
  writeFileSync(join(ws, 'b.txt'), 'B');
  assert.equal(await run({ hook_event_name: 'Stop', session_id: 's-1', prompt_id: 'p-1', cwd: ws, transcript_path: transcript, stop_hook_active: false }), 0);
  assert.equal(log(), '');
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    const snaps = await fc.listSnapshots('s-1');
    assert.deepEqual(
      snaps.map((s) => [s.anchorId, s.kind, s.files]),
      [
        ['p-1', 'user-message', 1],
        ['p-1:turn-end', 'turn-end', 2],
      ],
    );
  } finally {
    await fc.dispose();
  }
  const [r] = readPromptRecords(home, 's-1');
  assert.equal(r!.anchorId, 'p-1');
  assert.equal(r!.promptId, 'p-1');
  assert.equal(r!.transcriptSize, 123);
  assert.equal(r!.promptLength, 5);
  assert.equal(r!.cwd, ws);
});

test('CLAUDE_PROJECT_DIR wins over cwd when it is a folder; without prompt_id the anchor is generated', async () => {
  const sub = join(ws, 'sub');
  mkdirSync(sub);
  await run({ hook_event_name: 'UserPromptSubmit', session_id: 's-2', prompt: 'p', cwd: sub }, { CLAUDE_PROJECT_DIR: ws });
  assert.equal(log(), '');
  const [r] = readPromptRecords(home, 's-2');
  assert.match(r!.anchorId, /^prompt-[0-9a-f-]{36}$/);
  assert.equal(r!.promptId, undefined);
  assert.equal(r!.transcriptSize, 0);
  assert.equal(r!.workspaceRoot, ws);
});

test('bad input is logged, one line each, exit 0, nothing snapshotted', async () => {
  const cases: [unknown, RegExp][] = [
    ['garbage', /stdin is not JSON/],
    ['', /empty stdin/],
    [[1, 2], /invalid hook input/],
    [{ hook_event_name: 'UserPromptSubmit' }, /session_id/],
    [{ hook_event_name: 'UserPromptSubmit', session_id: '../../etc', cwd: ws }, /not a usable id/],
    [{ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt_id: 'a\nb', cwd: ws }, /prompt_id/],
    [{ hook_event_name: 'UserPromptSubmit', session_id: 's', cwd: join(dir, 'gone') }, /does not exist/],
    [{ hook_event_name: 'Stop', session_id: 's', cwd: join(ws, 'a.txt') }, /not a folder/],
    [{ hook_event_name: 'Stop', session_id: 's', cwd: 'relative/path' }, /not an absolute path/],
    [{ hook_event_name: 'PreToolUse', session_id: 's', cwd: ws }, /not handled/],
  ];
  for (const [input, expected] of cases) {
    const before = log().split('\n').length;
    assert.equal(await run(input, { CLAUDE_PROJECT_DIR: join(dir, 'nope') }), 0);
    const lines = log().trimEnd().split('\n');
    assert.equal(lines.length, before, JSON.stringify(input));
    assert.match(lines.at(-1)!, expected);
    assert.match(lines.at(-1)!, /^\d{4}-\d\d-\d\dT\S+ \S+ \S+ /);
  }
  assert.equal(existsSync(join(home, 'checkpoints')), false);
  assert.equal(existsSync(join(home, 'claude')), false);
  assert.equal(await runAgentHook(['cursor'], { stdin: stdinOf('{}'), env: { AGENT_REWIND_HOME: home } }), 0);
  // no agent to log for: the hooks' common log
  assert.match(readFileSync(join(home, 'logs', 'hooks.log'), 'utf8'), /unknown agent "cursor" \(usage: agent-rewind hook claude\|codex(\|[a-z-]+)*\)/);
});

test('stdin is bounded in size and in time', async () => {
  const big = new PassThrough();
  const p = readBounded(big, 1000, 5000);
  big.write(Buffer.alloc(600));
  big.write(Buffer.alloc(600));
  assert.match((await p).problem!, /larger than 1000/);
  const open = new PassThrough();
  const started = Date.now();
  const q = await readBounded(open, 1000, 200);
  assert.match(q.problem!, /not closed within 200 ms/);
  assert.ok(Date.now() - started < 2000);
});

test('a home that cannot be written (a file stands there) does not make the hook fail nor throw', async () => {
  writeFileSync(home, 'not a folder');
  assert.equal(await run('garbage'), 0);
  assert.equal(await run({ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt_id: 'p', prompt: 'x', cwd: ws }), 0);
  assert.equal(readFileSync(home, 'utf8'), 'not a folder');
});

test('the hook process evaluates a small module graph: no catalog, no sql.js, no session layer, no other command', () => {
  const ROOT = join(__dirname, '../../../..');
  const script = join(dir, 'probe.cjs');
  const out = join(dir, 'modules.json');
  writeFileSync(
    script,
    `const { relative } = require('node:path');
const { runCli } = require(${JSON.stringify(join(ROOT, 'src/cli/main.ts'))});
runCli(['hook', 'claude']).then((code) => {
  // node_modules may be a symlink (a git worktree's): its modules are named by their real path
  const nm = require('node:fs').realpathSync(${JSON.stringify(join(ROOT, 'node_modules'))});
  const mods = Object.keys(require.cache).map((f) => (f.startsWith(nm + '/') ? 'node_modules/' + relative(nm, f) : relative(${JSON.stringify(ROOT)}, f))).filter((f) => !f.startsWith('..'));
  require('node:fs').writeFileSync(process.env.MODULE_LIST, JSON.stringify({ code, mods }));
  process.exit(0);
});
`,
  );
  const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's-probe', prompt_id: 'p', prompt: 'x', cwd: ws });
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, MODULE_LIST: out, AGENT_REWIND_HOME: home },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  const { code, mods } = JSON.parse(readFileSync(out, 'utf8')) as { code: number; mods: string[] };
  assert.equal(code, 0);
  assert.equal(log(), '');
  assert.ok(mods.includes('src/core/sources/claude/hook-handler.ts'), 'the probe sees the handler');
  assert.ok(mods.includes('src/core/files/file-checkpointer.ts'));
  assert.ok(
    mods.some((f) => f.startsWith('node_modules/zod/')),
    'the probe sees libraries',
  );
  // the engine's settings modules are leaves (home, store-dir): the hook composes its checkpointer options as the
  // extension and the CLI do; the rest of the engine stays out
  const unwanted = mods.filter((f) =>
    /^src\/core\/(catalog|session)\/|^src\/core\/engine\/(?!settings(-file|-source)?\.ts$)|^src\/cli\/commands\/(?!hook\.ts|index\.ts)|^node_modules\/(sql\.js|markdown-it|proper-lockfile)\//.test(
      f,
    ),
  );
  assert.deepEqual(unwanted, []);
});
