// The real Claude Code CLI (2.1.330), offline against the scripted fake Messages API, with NO agent-rewind hooks
// installed and CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1: the only checkpoints are Claude Code's own file history
// (file-history-snapshot / file-history-delta lines, backups under <config>/file-history/<session>/). Over three
// prompts Write creates files at the top, in an existing subfolder and in new nested subfolders, Edit changes a file
// that was there before and one Claude made, and Bash makes a file Claude's history does not see. `rewind-files` to
// each prompt must put back exactly the files Claude Code's history covers (as they were when that prompt was sent),
// leave the Bash-made file as it is now, and its preview must say what it cannot cover. Run with
// `npm run test:agents -- own-history`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic, type ScriptReply } from './support/fake-anthropic';
import { claudeBin, runClaude, type ClaudeRun } from './support/claude';
import { assertCliBuilt, runOurCli } from './support/our-cli';
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
  ({ dir, ws, arHome: home } = agentTestFolders('ar-cc-own-'));
  configDir = join(dir, 'claude-config');
  mkdirSync(join(ws, 'src'));
  mkdirSync(configDir);
  writeFileSync(join(ws, 'src', 'main.js'), 'console.log("main");\n');
  writeFileSync(join(ws, 'notes.txt'), 'notes from before\n');
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake?.close();
  removeAgentTestFolder(dir);
});

function cli(args: string[]) {
  const r = runOurCli(args, { cwd: ws, timeout: 60_000, env: { ...process.env, AGENT_REWIND_HOME: home, CLAUDE_CONFIG_DIR: configDir } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Every file under the workspace (bytes), folders left out: a rewind keeps a folder a restored file left empty. */
function files(root = ws): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (lstatSync(join(root, r)).isDirectory()) walk(r);
      else out[r] = readFileSync(join(root, r), 'utf8');
    }
  };
  walk('');
  return out;
}

function assertOk(run: ClaudeRun, what: string) {
  assert.equal(run.timedOut, false, `${what}: timed out\n${run.stderr}`);
  assert.equal(run.exitCode, 0, `${what}: exit ${run.exitCode}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.equal(run.json?.is_error, false, `${what}: ${run.stdout}`);
  assert.equal(fake.pending(), 0, `${what}: scripted replies left over`);
}

const tool = (name: string, input: Record<string, unknown>): ScriptReply => [{ tool_use: { name, input } }];
const say = (text: string): ScriptReply => [{ text }];
const at = (rel: string) => join(ws, rel);

test("without hooks, rewind-files to each prompt restores exactly what Claude Code's own history covers, subfolders included", async () => {
  const prompts = ['one: a readme and a helper', 'two: docs and an edit', 'three: more edits'];
  const before: Record<string, string>[] = [];
  /** The files Write/Edit touched from each prompt on (what Claude Code's history covers). */
  const touched: string[][] = [];

  before.push(files());
  touched.push(['README.md', 'src/util.js']);
  fake.push(
    tool('Write', { file_path: at('README.md'), content: '# Project\n' }),
    tool('Write', { file_path: at('src/util.js'), content: 'export const util = 1;\n' }),
    say('Prompt 1 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[0]!, sessionId }), 'prompt 1');

  before.push(files());
  touched.push(['docs/guide/intro.md', 'src/main.js', 'src/lib/deep.js']);
  fake.push(
    tool('Write', { file_path: at('docs/guide/intro.md'), content: 'intro\n' }),
    tool('Read', { file_path: at('src/main.js') }),
    tool('Edit', { file_path: at('src/main.js'), old_string: '"main"', new_string: '"main, edited"' }),
    tool('Write', { file_path: at('src/lib/deep.js'), content: 'deep\n' }),
    [{ tool_use: { name: 'Bash', input: { command: "printf 'by bash\\n' > bash-made.txt", description: 'scripted' } } }],
    say('Prompt 2 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[1]!, resume: sessionId }), 'prompt 2');

  before.push(files());
  touched.push(['README.md', 'src/util.js', 'docs/guide/intro.md', 'docs/api.md']);
  fake.push(
    tool('Read', { file_path: at('README.md') }),
    tool('Edit', { file_path: at('README.md'), old_string: '# Project', new_string: '# Project, edited' }),
    tool('Write', { file_path: at('src/util.js'), content: 'export const util = 3;\n' }),
    tool('Write', { file_path: at('docs/guide/intro.md'), content: 'intro, rewritten\n' }),
    tool('Write', { file_path: at('docs/api.md'), content: 'api\n' }),
    say('Prompt 3 done.'),
  );
  assertOk(await runClaude({ cwd: ws, configDir, baseUrl: fake.baseUrl, prompt: prompts[2]!, resume: sessionId }), 'prompt 3');
  const final = files();
  assert.deepEqual(
    fake.toolResults().filter((r) => r.is_error),
    [],
  );
  assert.equal(final['bash-made.txt'], 'by bash\n');
  assert.equal(final['src/lib/deep.js'], 'deep\n');
  assert.ok(!existsSync(join(ws, '.claude', 'settings.local.json')), 'no hooks are installed');

  const transcript = readdirSync(join(configDir, 'projects'))
    .map((d) => join(configDir, 'projects', d, `${sessionId}.jsonl`))
    .find((f) => existsSync(f))!;
  const lines = readFileSync(transcript, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.ok(
    lines.some((l) => l.type === 'file-history-delta' && l.trackingPath === 'src/util.js'),
    'Claude Code records the subfolder file by a relative tracking path',
  );
  const promptUuids = lines.filter((j) => j.type === 'user' && typeof j.message?.content === 'string' && !j.isMeta).map((j) => j.uuid as string);
  assert.equal(promptUuids.length, 3);

  for (let k = 0; k < 3; k++) {
    // what Claude Code's history can put back: every file Write/Edit touched from prompt k on, as it was then;
    // everything else (the Bash-made file) as it is now
    const expected = { ...final };
    for (const path of new Set(touched.slice(k).flat())) {
      if (path in before[k]!) expected[path] = before[k]![path]!;
      else delete expected[path];
    }
    const preview = cli(['rewind-files', transcript, promptUuids[k]!, '--dry-run', '--json']);
    assert.equal(preview.code, 0, preview.stderr);
    const p = preview.json();
    assert.equal(p.canRewind, true, preview.stdout);
    assert.match(p.note ?? '', /Bash/, 'the preview says what Claude Code’s own checkpoint does not cover');
    const differing = Object.keys({ ...expected, ...final }).filter((f) => expected[f] !== final[f]);
    assert.deepEqual([...(p.filesChanged as string[])].sort(), differing.sort(), `prompt ${k + 1}: the preview lists what the rewind changes`);

    const rf = cli(['rewind-files', transcript, promptUuids[k]!, '--json']);
    assert.equal(rf.code, 0, rf.stderr);
    assert.deepEqual(files(), expected, `prompt ${k + 1}: exactly the files Claude Code's history covers are put back`);
    const undo = cli(['undo-rewind', transcript, '--json']);
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(files(), final, `prompt ${k + 1}: undo brings the later state back`);
  }
});
