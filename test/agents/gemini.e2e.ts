// The real Gemini CLI (0.61.0), offline against our fake Gemini REST API, with our hooks installed by
// `agent-rewind hooks install gemini` into the project's .gemini/settings.json: three prompts in one session (`gemini
// -p`, then `--resume <id>` twice) whose shell commands create, delete, move and chmod files and whose write_file and
// replace calls edit them. Then, through the CLI (dist/cli.js), as a person would: `sessions` lists the session for
// the workspace, `context` shows the prompts, `rewind-files` to the 2nd prompt gives back exactly the workspace as it
// was when that prompt was sent (every file's bytes and mode), `undo-rewind` puts the later state back, and none of
// it changes a byte of Gemini's own files; `rewind` writes the fork that `gemini --resume <forkId>` continues.
//
// Run: npm run test:agents -- gemini
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureGeminiCli } from '../../scripts/agents/gemini-cli.mjs';
import { readGeminiSession } from '../../src/core/sources/gemini/reader';
import { lastUserText, startFakeGemini, type FakeGemini } from './support/fake-gemini';
import { runGemini, writeGeminiSettings } from './support/gemini';
import { assertCliBuilt, runOurCli } from './support/our-cli';
import { agentTestFolders, removeAgentTestFolder, stateOf } from './support/test-workspace';

/** A line of `agent-rewind sessions --json`. */
interface Listed {
  id: string;
  file: string;
  title: string;
  source: string;
  cwd: string;
}

describe('the real Gemini CLI, rewound', { timeout: 600_000 }, () => {
  let dir: string;
  let bin: string;
  let fake: FakeGemini;
  let cliHome: string;
  let geminiHome: string;
  let ws: string;
  let arHome: string;
  let sessionId: string;
  let atPrompt2: Record<string, string>;
  let atEnd: Record<string, string>;
  const env = () => ({ ...process.env, GEMINI_CLI_HOME: cliHome, AGENT_REWIND_HOME: arHome });
  const ours = (args: string[]) => {
    const r = runOurCli(args, { env: env(), cwd: ws });
    assert.equal(r.status, 0, `agent-rewind ${args.join(' ')}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  const gemini = async (prompt: string, resume?: string) => {
    const r = await runGemini(bin, ['-p', prompt, ...(resume ? ['--resume', resume] : [])], {
      cwd: ws,
      cliHome,
      baseUrl: fake.baseUrl,
      env: { AGENT_REWIND_HOME: arHome },
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return r;
  };

  before(async () => {
    bin = await ensureGeminiCli();
    assertCliBuilt();
    ({ dir, ws, arHome } = agentTestFolders('ar-gemini-e2e-'));
    cliHome = join(dir, 'ghome');
    geminiHome = join(cliHome, '.gemini');
    writeGeminiSettings(cliHome);
    fake = await startFakeGemini();
    const installed = JSON.parse(ours(['hooks', 'install', 'gemini', '--cwd', ws, '--json']));
    assert.deepEqual(installed.added, ['BeforeAgent', 'AfterAgent']);

    // prompt 1: the shell creates files, a folder and an executable
    fake.push(
      [
        {
          call: 'run_shell_command',
          args: { command: "mkdir -p sub && printf 'a\\n' > sub/a.txt && printf 'one\\n' > one.txt && chmod 755 one.txt && printf 'bye\\n' > gone.txt" },
        },
      ],
      [{ text: 'Set up.' }],
    );
    sessionId = (await gemini('P1 make the files')).sessionId!;
    assert.ok(sessionId);

    atPrompt2 = stateOf(ws);
    // prompt 2: the shell deletes, moves and chmods; write_file adds a file and replace edits one
    fake.push(
      [{ call: 'run_shell_command', args: { command: 'rm gone.txt && mv one.txt two.txt && chmod 600 sub/a.txt' } }],
      [{ call: 'write_file', args: { file_path: join(ws, 'new.txt'), content: 'brand new\n' } }],
      [{ call: 'replace', args: { file_path: join(ws, 'sub', 'a.txt'), instruction: 'change a', old_string: 'a', new_string: 'A changed' } }],
      [{ text: 'Changed.' }],
    );
    await gemini('P2 change them', sessionId);

    // prompt 3: replace edits, the shell adds and deletes
    fake.push(
      [{ call: 'replace', args: { file_path: join(ws, 'new.txt'), instruction: 'edit', old_string: 'brand', new_string: 'quite' } }],
      [{ call: 'run_shell_command', args: { command: "printf 'three\\n' > three.txt && rm two.txt" } }],
      [{ text: 'Done.' }],
    );
    await gemini('P3 one more', sessionId);
    atEnd = stateOf(ws);
    assert.equal(fake.unscripted.length, 0);
    assert.notDeepEqual(atEnd, atPrompt2);
  });
  after(async () => {
    await fake?.close();
    removeAgentTestFolder(dir);
  });

  it('the hooks fired at every prompt and turn end: no problem logged', () => {
    const log = join(arHome, 'logs', 'gemini-hooks.log');
    assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', '');
    const records = readFileSync(join(arHome, 'gemini', 'prompts', `${sessionId}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(records.length, 3);
  });

  it("sessions, context, rewind-files to prompt 2 and undo-rewind through the CLI; Gemini's files are not changed by a byte", async () => {
    const geminiBefore = stateOf(geminiHome);
    const listed = JSON.parse(ours(['sessions', '--cwd', ws, '--json'])) as Listed[];
    assert.deepEqual(
      listed.map((s) => [s.id, s.source, s.title, s.cwd]),
      [[sessionId, 'gemini', 'P1 make the files', ws]],
    );
    const file = listed[0]!.file;
    const context = ours(['context', sessionId]);
    for (const p of ['P1 make the files', 'P2 change them', 'P3 one more']) assert.ok(context.includes(p), `context shows ${p}:\n${context}`);
    assert.match(context, /A changed/, 'the edit of prompt 2 is shown');

    const session = await readGeminiSession(file, { home: geminiHome });
    const prompts = session.userPrompts();
    assert.deepEqual(
      prompts.map((p) => p.text),
      ['P1 make the files', 'P2 change them', 'P3 one more'],
    );
    const p2 = prompts[1]!.entryId;
    const dry = JSON.parse(ours(['rewind-files', sessionId, p2, '--dry-run', '--json']));
    assert.equal(dry.canRewind, true, JSON.stringify(dry));
    ours(['rewind-files', sessionId, p2, '--json']);
    assert.deepEqual(stateOf(ws), atPrompt2);
    ours(['undo-rewind', sessionId, '--json']);
    assert.deepEqual(stateOf(ws), atEnd);
    assert.deepEqual(stateOf(geminiHome), geminiBefore, "Gemini's own files are as they were");
  });

  it('rewind writes a fork that `gemini --resume <forkId>` continues from before prompt 2; the original stays as it was', async () => {
    const listed = JSON.parse(ours(['sessions', '--cwd', ws, '--json'])) as Listed[];
    const file = listed.find((s) => s.id === sessionId)!.file;
    const original = readFileSync(file);
    const session = await readGeminiSession(file, { home: geminiHome });
    const p2 = session.userPrompts()[1]!.entryId;
    const out = JSON.parse(ours(['rewind', sessionId, p2, '--json']));
    const forkId: string = out.fork?.sessionId ?? out.conversation?.sessionId ?? out.sessionId;
    assert.ok(forkId, JSON.stringify(out));
    assert.deepEqual(readFileSync(file), original, 'the original session is never written');

    fake.push([{ text: 'Continuing from the fork.' }]);
    const seen = fake.requests.length;
    const r = await gemini('P2 done differently', forkId);
    assert.equal(r.sessionId, forkId);
    assert.equal(r.response, 'Continuing from the fork.');
    const main = fake.requests.slice(seen).find((q) => q.replyIndex >= 0)!;
    assert.equal(lastUserText(main.body), 'P2 done differently');
    const sent = JSON.stringify(main.body.contents);
    assert.ok(sent.includes('P1 make the files'), 'the fork carries prompt 1');
    assert.ok(!sent.includes('P2 change them') && !sent.includes('P3 one more'), 'the fork starts before prompt 2');
    const forkListing = (JSON.parse(ours(['sessions', '--cwd', ws, '--json'])) as Listed[]).find((s) => s.id === forkId)!;
    assert.equal(forkListing.title, 'Fork: P1 make the files');
    const forkFile = forkListing.file;
    const fork = await readGeminiSession(forkFile, { home: geminiHome });
    assert.deepEqual(
      fork.userPrompts().map((p) => p.text),
      ['P1 make the files', 'P2 done differently'],
    );
    assert.ok(statSync(forkFile).size > 0);
  });
});
