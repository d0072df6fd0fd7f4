// The real Claude Code CLI (2.1.330, installed by scripts/agents/claude-code.mjs), offline against our scripted fake
// Messages API, with agent-rewind's hooks installed through the built CLI (dist/cli.js). The scripted model changes
// files with Bash (create, delete, mv, chmod +x) and with Write/Edit; the hooks must have snapshotted the workspace at
// every prompt, exactly. Run with `npm run test:agents` (it builds dist/ and installs Claude Code first).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FileCheckpointer } from '../../src/core/files/file-checkpointer';
import { readPromptRecords } from '../../src/core/sources/claude/prompt-records';
import { startFakeAnthropic, type FakeAnthropic, type ScriptReply } from './support/fake-anthropic';
import { claudeBin, runClaude, type ClaudeRun } from './support/claude';
import { assertCliBuilt, OUR_CLI, runOurCli } from './support/our-cli';
import { agentTestFolders, removeAgentTestFolder } from './support/test-workspace';

let dir: string;
let ws: string;
let configDir: string;
let home: string;
let fake: FakeAnthropic;
const sessionId: string = randomUUID();

before(async () => {
  assertCliBuilt();
  await claudeBin();
  ({ dir, ws, arHome: home } = agentTestFolders('ar-cc-e2e-'));
  configDir = join(dir, 'claude-config');
  mkdirSync(configDir);
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake?.close();
  removeAgentTestFolder(dir);
});

/** The agent-rewind CLI, built, with this test's home. */
function cli(args: string[], opts: { cwd?: string } = {}) {
  const r = runOurCli(args, { cwd: opts.cwd ?? ws, timeout: 60_000, env: { ...process.env, AGENT_REWIND_HOME: home, CLAUDE_CONFIG_DIR: configDir } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Every file and symlink under the workspace: bytes (or link target) and mode; folders by mode. */
type State = Record<string, { kind: 'file' | 'dir' | 'symlink'; mode: number; data?: string }>;
function captureState(root = ws): State {
  const out: State = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const p = join(root, r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = { kind: 'symlink', mode: 0, data: readlinkSync(p) };
      else if (st.isDirectory()) {
        out[r] = { kind: 'dir', mode: st.mode & 0o777 };
        walk(r);
      } else out[r] = { kind: 'file', mode: st.mode & 0o777, data: readFileSync(p).toString('base64') };
    }
  };
  walk('');
  return out;
}

function assertOk(run: ClaudeRun, what: string) {
  assert.equal(run.timedOut, false, `${what}: timed out\n${run.stderr}`);
  assert.equal(run.exitCode, 0, `${what}: exit ${run.exitCode}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.equal(run.json?.is_error, false, `${what}: ${run.stdout}`);
  assert.deepEqual(
    fake.unscripted.map((r) => r.url),
    [],
    `${what}: Claude Code asked for more replies than scripted`,
  );
  assert.equal(fake.pending(), 0, `${what}: scripted replies left over`);
}

const hookLog = (inHome = home) => {
  const f = join(inHome, 'logs', 'claude-hooks.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};

const bash = (command: string): ScriptReply => [{ tool_use: { name: 'Bash', input: { command, description: 'scripted' } } }];
const tool = (name: string, input: Record<string, unknown>): ScriptReply => [{ tool_use: { name, input } }];
const say = (text: string): ScriptReply => [{ text }];

function transcriptFile(id = sessionId): string {
  const projects = join(configDir, 'projects');
  for (const d of readdirSync(projects)) {
    const f = join(projects, d, `${id}.jsonl`);
    if (existsSync(f)) return f;
  }
  throw new Error(`no transcript for ${id} under ${projects}`);
}

/** The typed prompts of a transcript: uuid, promptId, text, in file order. */
function promptLines(file: string): { uuid: string; promptId?: string; text: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((j) => j.type === 'user' && typeof j.message?.content === 'string' && !j.isMeta)
    .map((j) => ({ uuid: j.uuid, promptId: j.promptId, text: j.message.content }));
}

let statesBefore: State[] = [];
let finalState: State;
const prompts = ['first: create some files', 'second: move things around and edit', 'third: finish'];

test('hooks installed through the CLI snapshot every prompt exactly, Bash changes included; restore and undo', async () => {
  const inst = cli(['hooks', 'install', 'claude', '--cwd', ws, '--json']);
  assert.equal(inst.code, 0, inst.stderr);
  assert.deepEqual(inst.json().added, ['UserPromptSubmit', 'Stop']);
  assert.equal(inst.json().file, join(ws, '.claude', 'settings.local.json'));
  assert.equal(inst.json().baseline.files, 1, 'the baseline snapshot holds the new settings file');
  const again = cli(['hooks', 'install', 'claude', '--cwd', ws, '--json', '--no-baseline']);
  assert.deepEqual([again.code, again.json().written, again.json().alreadyPresent, again.json().baseline], [0, false, ['UserPromptSubmit', 'Stop'], undefined]);

  const env = { AGENT_REWIND_HOME: home };

  // prompt 1: Bash creates files and a folder, Write adds one
  statesBefore.push(captureState());
  fake.push(
    [
      say('Creating files.')[0]!,
      ...bash(
        "mkdir -p src docs && printf 'alpha\\n' > a.txt && printf 'beta\\n' > b.txt && printf 'echo x\\n' > src/x.sh && printf 'doc\\n' > docs/readme.md",
      ),
    ],
    tool('Write', { file_path: join(ws, 'c.txt'), content: 'one\ntwo\nthree\n' }),
    say('Prompt 1 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[0]!, sessionId, env }), 'prompt 1');

  // prompt 2: Bash deletes, moves, makes executable, symlinks; Read + Edit; Write
  statesBefore.push(captureState());
  fake.push(
    bash('rm b.txt && mv a.txt src/a-moved.txt && chmod +x src/x.sh && ln -s c.txt link-to-c && rm -r docs'),
    tool('Read', { file_path: join(ws, 'c.txt') }),
    tool('Edit', { file_path: join(ws, 'c.txt'), old_string: 'two', new_string: 'TWO' }),
    tool('Write', { file_path: join(ws, 'src', 'new.ts'), content: 'export const n = 1;\n' }),
    say('Prompt 2 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[1]!, resume: sessionId, env }), 'prompt 2');

  // prompt 3: more of both
  statesBefore.push(captureState());
  fake.push(
    bash("printf 'more\\n' >> c.txt && chmod 600 src/a-moved.txt && rm link-to-c"),
    tool('Write', { file_path: join(ws, 'd.txt'), content: 'd\n' }),
    say('Prompt 3 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[2]!, resume: sessionId, env }), 'prompt 3');
  finalState = captureState();

  // the tools really ran (and the states differ where the test relies on it)
  assert.equal(fake.toolResults().length, 8, JSON.stringify(fake.toolResults()));
  assert.deepEqual(
    fake.toolResults().filter((r) => r.is_error),
    [],
  );
  assert.notDeepEqual(statesBefore[1], statesBefore[2]);
  assert.equal(statesBefore[2]!['src/x.sh']!.mode & 0o111, 0o111);
  assert.equal(statesBefore[1]!['src/x.sh']!.mode & 0o111, 0);

  assert.equal(hookLog(), '', 'the hook logged problems');

  // one prompt record per prompt, and their prompt ids are the transcript's promptIds
  const transcript = transcriptFile();
  const lines = promptLines(transcript);
  assert.deepEqual(
    lines.map((l) => l.text),
    prompts,
  );
  const records = readPromptRecords(home, sessionId);
  assert.deepEqual(
    records.map((r) => r.promptId),
    lines.map((l) => l.promptId),
  );
  for (const r of records) assert.deepEqual([r.anchorId, r.transcriptPath, r.workspaceRoot, r.cwd], [r.promptId, transcript, ws, ws]);
  assert.equal(records[0]!.transcriptSize, 0, 'a new session has no transcript yet when the first prompt is submitted');
  assert.ok(records[1]!.transcriptSize > 0);

  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    const snaps = await fc.listSnapshots(sessionId);
    for (const l of lines) {
      assert.ok(
        snaps.some((s) => s.anchorId === l.promptId && s.kind === 'user-message'),
        `no snapshot for prompt ${l.text}`,
      );
      assert.ok(
        snaps.some((s) => s.anchorId === `${l.promptId}:turn-end` && s.kind === 'turn-end'),
        `no turn-end snapshot for prompt ${l.text}`,
      );
    }
    // restore prompt 2's snapshot: exactly the workspace as it was when prompt 2 was sent
    const anchor = lines[1]!.promptId!;
    const preview = await fc.rewindFiles(sessionId, anchor, { dryRun: true, anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    assert.equal(preview.canRewind, true, preview.error);
    assert.deepEqual(preview.userModified, [], 'nothing was changed by hand after the last turn');
    await fc.rewindFiles(sessionId, anchor, { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    assert.deepEqual(captureState(), statesBefore[1]);
    // undo brings the later state back
    await fc.undoLastRewind(sessionId);
    assert.deepEqual(captureState(), finalState);
    // and the first prompt's snapshot is the empty workspace plus our settings file
    await fc.rewindFiles(sessionId, lines[0]!.promptId!, { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    assert.deepEqual(captureState(), statesBefore[0]);
    await fc.undoLastRewind(sessionId);
    assert.deepEqual(captureState(), finalState);
  } finally {
    await fc.dispose();
  }
  assert.equal(hookLog(), '');
});

// ── needs the Claude Code transcript reader + engine integration (main, after the merge) ─────────────────────────
test('CLI on the Claude Code transcript: sessions, branches, context, rewind-files + undo, rewind → a fork Claude resumes', async () => {
  assert.ok(finalState, 'the first test ran');
  const transcript = transcriptFile();
  const lines = promptLines(transcript);
  const userUuid2 = lines[1]!.uuid;

  const sessions = cli(['sessions', '--cwd', ws, '--json']);
  assert.equal(sessions.code, 0, sessions.stderr);
  const listed = sessions.json() as { id: string; file: string; source?: string }[];
  assert.ok(
    listed.some((s) => s.id === sessionId && s.file === transcript),
    sessions.stdout,
  );

  const branches = cli(['branches', transcript, '--json']);
  assert.equal(branches.code, 0, branches.stderr);
  assert.ok(Array.isArray(branches.json()) && branches.json().length >= 1);
  const context = cli(['context', transcript, '--json']);
  assert.equal(context.code, 0, context.stderr);
  const ctxText = context.stdout;
  for (const p of prompts) assert.ok(ctxText.includes(p), `context lacks "${p}"`);

  const rf = cli(['rewind-files', transcript, userUuid2, '--json']);
  assert.equal(rf.code, 0, rf.stderr);
  assert.equal(rf.json().canRewind, true, rf.stdout);
  assert.deepEqual(captureState(), statesBefore[1]);
  const undo = cli(['undo-rewind', transcript, '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(captureState(), finalState);

  const rw = cli(['rewind', transcript, userUuid2, '--json']);
  assert.equal(rw.code, 0, rw.stderr);
  const fork = rw.json() as { sessionId: string; sessionRef: string };
  assert.ok(fork.sessionId && fork.sessionId !== sessionId, rw.stdout);
  assert.ok(existsSync(fork.sessionRef));
  const forkSizeBefore = statSync(fork.sessionRef).size;
  const forkPrompts = promptLines(fork.sessionRef).map((l) => l.text);
  assert.deepEqual(forkPrompts, [prompts[0]], 'the fork holds the conversation up to just before prompt 2');

  fake.push(tool('Write', { file_path: join(ws, 'fork.txt'), content: 'from the fork\n' }), say('Fork prompt done.'));
  // this prompt's hooks with the checkpoint service running: the launcher `hooks install` wrote answers them with
  // sh + perl through the service's hook endpoint (its trace says so), no Node hook process
  const serve = spawn(process.execPath, [OUR_CLI, 'serve', '--workspace', ws, '--verbose', '--idle-minutes', '0'], {
    env: { ...process.env, AGENT_REWIND_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let serveLog = '';
  serve.stderr.on('data', (c) => (serveLog += c));
  await new Promise<void>((ok, fail) => {
    serve.stdout.on('data', (c: Buffer) => c.toString().includes('socket:') && ok());
    serve.once('exit', () => fail(new Error(`serve stopped: ${serveLog}`)));
  });
  const run = await runClaude({
    cwd: ws,
    configDir,
    baseUrl: fake.baseUrl,
    prompt: 'continue in the fork',
    resume: fork.sessionId,
    env: { AGENT_REWIND_HOME: home },
  });
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  assert.equal((serveLog.match(/hook claude \S+ ok /g) ?? []).length, 2, `UserPromptSubmit and Stop through the hook endpoint:\n${serveLog}`);
  assert.doesNotMatch(serveLog, / snapshot \S+ ok /, 'no hook went through a Node process');
  assertOk(run, 'fork prompt');
  assert.equal(run.json?.session_id, fork.sessionId);
  assert.ok(statSync(fork.sessionRef).size > forkSizeBefore, 'the fork transcript grew');
  assert.deepEqual(
    promptLines(fork.sessionRef).map((l) => l.text),
    [prompts[0], 'continue in the fork'],
  );
  assert.equal(readFileSync(join(ws, 'fork.txt'), 'utf8'), 'from the fork\n');
  assert.equal(hookLog(), '');
});

// ── the hook on bad input: exit 0, nothing printed, bounded time, nothing written in Claude Code's folders ────────
function runHook(
  hookHome: string,
  stdin: Buffer | string | 'open',
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolveRun) => {
    const started = Date.now();
    const child = spawn(process.execPath, [OUR_CLI, 'hook', 'claude'], {
      env: { ...process.env, AGENT_REWIND_HOME: hookHome, CLAUDE_CONFIG_DIR: configDir, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolveRun({ code, stdout, stderr, ms: Date.now() - started });
    });
    if (stdin === 'open') child.stdin.write('{"hook_event_name":"UserPromptSubmit",');
    else child.stdin.end(stdin);
  });
}

function treeSignature(d: string): string {
  if (!existsSync(d)) return '';
  return (readdirSync(d, { recursive: true }) as string[])
    .sort()
    .map((f) => {
      const st = lstatSync(join(d, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join('\n');
}

test("hook claude on bad input: exit 0, silent, bounded, nothing changed in Claude Code's folders", async () => {
  mkdirSync(ws, { recursive: true });
  const badHome = join(dir, 'bad-input-home'); // its own log, so the other tests' "log is empty" checks stand
  const beforeConfig = treeSignature(configDir);
  const beforeWs = treeSignature(ws);
  const logBefore = hookLog(badHome).split('\n').filter(Boolean).length;
  const cases: [string, Buffer | string | 'open', RegExp][] = [
    ['garbage', 'this is { not json', /stdin is not JSON/],
    ['empty', '', /empty stdin/],
    ['no prompt_id, no cwd', JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'bad-1', prompt: 'x' }), /no workspace/],
    ['workspace is a file', JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'bad-2', prompt: 'x', cwd: join(ws, 'c.txt') }), /not a folder/],
    ['huge', Buffer.alloc(33 * 1024 * 1024, 0x20), /larger than/],
    ['stdin left open', 'open', /not closed within/],
  ];
  let expectedLines = logBefore;
  for (const [name, input, expected] of cases) {
    const r = await runHook(badHome, input, { CLAUDE_PROJECT_DIR: join(dir, 'no-such-project') });
    assert.equal(r.code, 0, `${name}: exit ${r.code}`);
    assert.equal(r.stdout, '', `${name}: stdout`);
    assert.equal(r.stderr, '', `${name}: stderr`);
    assert.ok(r.ms < 15_000, `${name}: took ${r.ms} ms`);
    expectedLines++;
    const lines = hookLog(badHome).split('\n').filter(Boolean);
    assert.equal(lines.length, expectedLines, `${name}: one log line`);
    assert.match(lines.at(-1)!, expected, name);
  }
  // without a prompt_id the snapshot is still taken, under a generated anchor
  const ok = await runHook(badHome, JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'no-prompt-id', prompt: 'x', cwd: ws }));
  assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, '', '']);
  assert.match(readPromptRecords(badHome, 'no-prompt-id')[0]!.anchorId, /^prompt-/);
  assert.equal(hookLog(badHome).split('\n').filter(Boolean).length, expectedLines);
  assert.equal(treeSignature(configDir), beforeConfig, "Claude Code's config folder changed");
  assert.equal(treeSignature(ws), beforeWs, 'the workspace changed');
});

test("--fork-session: the hook snapshots under the fork's new session id, at the fork's own prompt id", async () => {
  assert.ok(finalState, 'the first test ran');
  const before = captureState();
  fake.push(bash("printf 'forked\\n' > forked.txt && rm d.txt"), say('Fork done.'));
  const run = await runClaude({
    cwd: ws,
    configDir,
    baseUrl: fake.baseUrl,
    prompt: 'a prompt in a fork',
    resume: sessionId,
    forkSession: true,
    env: { AGENT_REWIND_HOME: home },
  });
  assertOk(run, 'fork prompt');
  const forkId = run.json!.session_id!;
  assert.ok(forkId && forkId !== sessionId);
  assert.equal(hookLog(), '');
  const forkPrompts = promptLines(transcriptFile(forkId));
  const own = forkPrompts.at(-1)!;
  assert.equal(own.text, 'a prompt in a fork');
  // Claude Code gives the copied prompt lines the fork's prompt id too: the record matches the last of them
  assert.ok(forkPrompts.filter((p) => p.promptId === own.promptId).length > 1, 'copied lines share the fork prompt id (2.1.330)');
  const [rec] = readPromptRecords(home, forkId);
  assert.equal(rec!.promptId, own.promptId);
  assert.equal(rec!.transcriptSize, 0, 'the fork transcript did not exist yet');
  // a copied (earlier) prompt of the fork rewinds from the origin's snapshot of it, as the origin would (right after
  // the fork's turn, so nothing counts as changed by hand since)
  const forkState = captureState();
  const copied = forkPrompts.find((p) => p.text === prompts[1])!;
  assert.equal(copied.uuid, promptLines(transcriptFile()).find((p) => p.text === prompts[1])!.uuid, 'same uuid as in the origin');
  const rf = cli(['rewind-files', transcriptFile(forkId), copied.uuid, '--json']);
  assert.equal(rf.code, 0, rf.stderr);
  assert.equal(rf.json().canRewind, true, rf.stdout);
  assert.equal(rf.json().note, undefined, "the origin's snapshot, not Claude Code's own file history");
  assert.deepEqual(captureState(), statesBefore[1]);
  const undo = cli(['undo-rewind', transcriptFile(forkId), '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(captureState(), forkState);
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    assert.ok((await fc.listSnapshots(forkId)).some((s) => s.anchorId === own.promptId && s.kind === 'user-message'));
    await fc.rewindFiles(forkId, own.promptId!, { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    assert.deepEqual(captureState(), before);
  } finally {
    await fc.dispose();
  }
});
