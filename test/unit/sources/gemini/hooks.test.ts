// Gemini CLI hooks: the settings merge (BeforeAgent / AfterAgent in a settings.json) and the handler, run as
// `agent-rewind hook gemini` runs it, with its snapshot tied to the prompt through the transcript's size and text.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runAgentHook } from '../../../../src/cli/commands/hook';
import { FileCheckpointer } from '../../../../src/core/files/file-checkpointer';
import { snapshotsByEntry } from '../../../../src/core/sources/file-anchors';
import { GeminiSource } from '../../../../src/core/sources/gemini/gemini-source';
import { geminiHooksInstalled, installGeminiHooks, uninstallGeminiHooks } from '../../../../src/core/sources/gemini/hooks-settings';
import { readPromptRecords } from '../../../../src/core/sources/prompt-records';
import { GeminiLog } from './builder';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-gemini-hooks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('Gemini CLI hooks settings', () => {
  const launcher = { command: '/opt/agent rewind/bin/agent-rewind' };

  it("installs into the user's settings merged with what is there, idempotent; uninstall removes only ours, byte for byte", () => {
    const ghome = join(dir, 'u');
    const env = { GEMINI_CLI_HOME: ghome };
    mkdirSync(join(ghome, '.gemini'), { recursive: true });
    const other = { type: 'command', name: 'mine', command: 'echo hi', timeout: 5000 };
    const original =
      JSON.stringify(
        {
          security: { auth: { selectedType: 'gemini-api-key' } },
          hooks: { BeforeAgent: [{ hooks: [other] }], BeforeTool: [{ matcher: '.*', hooks: [other] }] },
        },
        null,
        2,
      ) + '\n';
    const file = join(ghome, '.gemini', 'settings.json');
    writeFileSync(file, original);
    const first = installGeminiHooks({ scope: 'user', env }, launcher);
    assert.deepEqual(first.added, ['BeforeAgent', 'AfterAgent']);
    const s = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(s.security, { auth: { selectedType: 'gemini-api-key' } });
    assert.deepEqual(s.hooks.BeforeTool, [{ matcher: '.*', hooks: [other] }]);
    assert.equal(s.hooks.BeforeAgent.length, 2);
    assert.deepEqual(s.hooks.AfterAgent[0].hooks[0], {
      type: 'command',
      name: 'agent-rewind',
      command: "'/opt/agent rewind/bin/agent-rewind' hook gemini",
      timeout: 30000,
    });
    assert.deepEqual(geminiHooksInstalled({ scope: 'user', env }), ['BeforeAgent', 'AfterAgent']);
    const text = readFileSync(file, 'utf8');
    const again = installGeminiHooks({ scope: 'user', env }, launcher);
    assert.deepEqual(again.alreadyPresent, ['BeforeAgent', 'AfterAgent']);
    assert.equal(again.written, false);
    assert.equal(readFileSync(file, 'utf8'), text);
    const gone = uninstallGeminiHooks({ scope: 'user', env });
    assert.deepEqual(gone.removed.sort(), ['AfterAgent', 'BeforeAgent']);
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('project scope writes .gemini/settings.json; a handler named like ours with another command is not ours; bad files are refused untouched', () => {
    const ws = join(dir, 'ws');
    mkdirSync(join(ws, '.gemini'), { recursive: true });
    const lookalike = { type: 'command', name: 'agent-rewind', command: 'echo not ours' };
    writeFileSync(join(ws, '.gemini', 'settings.json'), JSON.stringify({ hooks: { AfterAgent: [{ hooks: [lookalike] }] } }));
    installGeminiHooks({ scope: 'workspace', workspace: ws }, launcher);
    uninstallGeminiHooks({ scope: 'workspace', workspace: ws });
    assert.deepEqual(JSON.parse(readFileSync(join(ws, '.gemini', 'settings.json'), 'utf8')), { hooks: { AfterAgent: [{ hooks: [lookalike] }] } });
    const bad = join(dir, 'bad');
    mkdirSync(join(bad, '.gemini'), { recursive: true });
    writeFileSync(join(bad, '.gemini', 'settings.json'), '{ // a comment\n "a": 1 }');
    assert.throws(() => installGeminiHooks({ scope: 'workspace', workspace: bad }, launcher), /not valid JSON/);
    assert.equal(readFileSync(join(bad, '.gemini', 'settings.json'), 'utf8'), '{ // a comment\n "a": 1 }');
    assert.throws(() => installGeminiHooks({ scope: 'workspace', workspace: join(dir, 'none') }, launcher), /does not exist/);
  });
});

describe('agent-rewind hook gemini', () => {
  const stdinOf = (text: string) => Readable.from([Buffer.from(text)]);
  const logOf = (home: string) => (existsSync(join(home, 'logs', 'gemini-hooks.log')) ? readFileSync(join(home, 'logs', 'gemini-hooks.log'), 'utf8') : '');

  it('BeforeAgent snapshots the workspace and records the prompt; the reader ties it to the prompt recorded after that size; AfterAgent takes the turn-end one', async () => {
    const home = join(dir, 'arhome');
    const ghome = join(dir, 'g', '.gemini');
    const ws = join(dir, 'proj');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'A');
    const run = (input: unknown, env: NodeJS.ProcessEnv = {}) =>
      runAgentHook(['gemini'], { stdin: stdinOf(JSON.stringify(input)), env: { AGENT_REWIND_HOME: home, ...env } });
    // the same prompt text twice: each snapshot belongs to the prompt recorded after the size its hook saw
    const log = new GeminiLog(undefined, ws);
    const p1 = log.prompt('again');
    log.reply('one');
    let file = log.write(ghome, 'proj');
    const base = { session_id: log.sessionId, transcript_path: file, cwd: ws, timestamp: new Date().toISOString() };
    assert.equal(await run({ ...base, hook_event_name: 'BeforeAgent', prompt: 'again' }, { GEMINI_PROJECT_DIR: ws }), 0);
    const p2 = log.prompt('again');
    writeFileSync(join(ws, 'b.txt'), 'B');
    log.reply('two');
    file = log.write(ghome, 'proj');
    assert.equal(await run({ ...base, hook_event_name: 'AfterAgent', prompt: 'again', prompt_response: 'two' }), 0);
    assert.equal(logOf(home), '');
    const [record] = readPromptRecords(home, 'gemini', log.sessionId);
    assert.ok(record!.transcriptSize > 0);
    const session = await new GeminiSource({ home: ghome, recordsHome: home }).open(file);
    assert.deepEqual(session.checkpointKeysOf(p1), []);
    assert.deepEqual(session.checkpointKeysOf(p2), [record!.anchorId]);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    try {
      const snaps = await fc.listSnapshots(log.sessionId);
      assert.deepEqual(
        snaps.map((s) => [s.kind, s.files]),
        [
          ['user-message', 1],
          ['turn-end', 2],
        ],
      );
      assert.deepEqual([...(await snapshotsByEntry(session, fc)).keys()], [p2]);
    } finally {
      await fc.dispose();
    }
  });

  it('bad input is logged, never thrown, and exits 0: not JSON, a session id with path parts, a folder that is gone; other events are logged as not handled', async () => {
    const home = join(dir, 'arhome');
    const run = (input: string) => runAgentHook(['gemini'], { stdin: stdinOf(input), env: { AGENT_REWIND_HOME: home } });
    assert.equal(await run('{nope'), 0);
    assert.equal(await run(JSON.stringify({ hook_event_name: 'BeforeAgent', session_id: '../../etc', cwd: dir })), 0);
    assert.equal(await run(JSON.stringify({ hook_event_name: 'BeforeAgent', session_id: 's', cwd: join(dir, 'gone') })), 0);
    assert.equal(await run(JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 's', cwd: dir })), 0);
    const lines = logOf(home).trim().split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /stdin is not JSON/);
    assert.match(lines[1]!, /not a usable id/);
    assert.match(lines[2]!, /not an existing absolute folder/);
    assert.match(lines[3]!, /BeforeTool is not handled/);
    assert.equal(existsSync(join(home, 'gemini')), false, 'no prompt record written');
  });
});
