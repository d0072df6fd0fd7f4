// The real Codex CLI (0.169.0), offline against our fake Responses API, with our hooks installed through
// hooks-settings: three prompts (`codex exec`, then `codex exec resume <id>` twice) whose shell commands create,
// delete, move and chmod files and whose apply_patch calls edit them. Then, through the engine: the session is listed
// for the workspace, its context is right, rewinding to the 2nd prompt gives back exactly the workspace as it was
// when that prompt was sent (every file's bytes and mode), undo puts the later state back, and the fork rollout
// "Rewind to here" wrote is continued by `codex exec resume <forkId>`.
//
// The hooks are installed by `agent-rewind hooks install codex --user` (dist/cli.js) and run `agent-rewind hook codex`.
// `codex exec` runs hooks only once trusted; the test passes --dangerously-bypass-hook-trust (see support/codex.ts).
//
// Run: node --import tsx --test test/agents/codex.e2e.ts
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureCodex } from '../../scripts/agents/codex.mjs';
import { RewindEngine } from '../../src/core/engine/engine';
import { parseSettings } from '../../src/core/settings/settings';
import type { AgentMessage } from '../../src/core/session/types';
import { readCodexSession } from '../../src/core/sources/codex';
import { CodexSource } from '../../src/core/sources/codex/codex-source';
import { runCodex, writeCodexConfig } from './support/codex';
import { startFakeOpenAI, type FakeOpenAI } from './support/fake-openai';
import { assertCliBuilt, runOurCli } from './support/our-cli';
import { agentTestFolders, removeAgentTestFolder, stateOf } from './support/test-workspace';

describe('the real Codex CLI, rewound', { timeout: 600_000 }, () => {
  let dir: string;
  let bin: string;
  let fake: FakeOpenAI;
  let codexHome: string;
  let ws: string;
  let arHome: string;
  let threadId: string;
  let atPrompt2: Record<string, string>;
  let atEnd: Record<string, string>;
  let engine: RewindEngine;

  before(async () => {
    bin = await ensureCodex();
    assertCliBuilt();
    ({ dir, ws, arHome } = agentTestFolders('ar-codex-e2e-'));
    codexHome = join(dir, 'codexhome');
    fake = await startFakeOpenAI();
    writeCodexConfig(codexHome, fake.baseUrl);
    const installed = runOurCli(['hooks', 'install', 'codex', '--user', '--json'], {
      env: { ...process.env, CODEX_HOME: codexHome, AGENT_REWIND_HOME: arHome },
    });
    assert.equal(installed.status, 0, installed.stderr);
    assert.deepEqual(JSON.parse(installed.stdout).added, ['UserPromptSubmit', 'Stop']);
    const env = { AGENT_REWIND_HOME: arHome };

    // prompt 1: shell creates files, a folder and an executable
    fake.push(
      [{ exec: "mkdir -p sub && printf 'a\\n' > sub/a.txt && printf 'one\\n' > one.txt && chmod 755 one.txt && printf 'bye\\n' > gone.txt" }],
      [{ text: 'Set up.' }],
    );
    const r1 = await runCodex(bin, ['make the files'], { cwd: ws, codexHome, env });
    assert.equal(r1.code, 0, r1.stderr + r1.stdout);
    threadId = r1.threadId!;
    assert.ok(threadId);

    atPrompt2 = stateOf(ws);
    // prompt 2: shell deletes, moves and chmods; apply_patch adds and edits
    fake.push(
      [{ exec: 'rm gone.txt && mv one.txt two.txt && chmod 600 sub/a.txt' }],
      [{ patch: '*** Begin Patch\n*** Add File: new.txt\n+brand new\n*** Update File: sub/a.txt\n@@\n-a\n+A changed\n*** End Patch\n' }],
      [{ text: 'Changed.' }],
    );
    const r2 = await runCodex(bin, ['resume', threadId, 'change them'], { cwd: ws, codexHome, env });
    assert.equal(r2.code, 0, r2.stderr + r2.stdout);

    // prompt 3: apply_patch deletes, shell adds
    fake.push([{ patch: '*** Begin Patch\n*** Delete File: two.txt\n*** End Patch\n' }], [{ exec: "printf 'three\\n' > three.txt" }], [{ text: 'Done.' }]);
    const r3 = await runCodex(bin, ['resume', threadId, 'one more'], { cwd: ws, codexHome, env });
    assert.equal(r3.code, 0, r3.stderr + r3.stdout);
    atEnd = stateOf(ws);
    assert.equal(fake.unscripted.length, 0);

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? arHome : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new CodexSource({ home: codexHome })],
    });
  });
  after(async () => {
    await engine?.dispose();
    await fake?.close();
    removeAgentTestFolder(dir);
  });

  it('the hook process takes garbage, a payload without turn_id and a missing folder silently (exit 0, no output, nothing in CODEX_HOME)', () => {
    const before = stateOf(codexHome);
    const inputs = [
      '',
      'garbage \u0000',
      '[1,2,3]',
      JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: threadId, cwd: ws }),
      JSON.stringify({ hook_event_name: 'Stop', session_id: threadId, turn_id: 't', cwd: join(dir, 'gone') }),
    ];
    for (const input of inputs) {
      const r = runOurCli(['hook', 'codex'], { input, timeout: 30_000, env: { ...process.env, AGENT_REWIND_HOME: join(dir, 'bad-home') } });
      assert.equal(r.status, 0, input);
      assert.equal(r.stdout, '', input);
    }
    assert.deepEqual(stateOf(codexHome), before);
    assert.equal(
      readFileSync(join(dir, 'bad-home', 'logs', 'codex-hooks.log'), 'utf8')
        .trimEnd()
        .split('\n').length,
      5,
    );
  });

  it('the hooks fired: no problem logged', () => {
    let log = '';
    try {
      log = readFileSync(join(arHome, 'logs', 'codex-hooks.log'), 'utf8');
    } catch {
      /* no log: nothing went wrong */
    }
    assert.equal(log, '');
  });

  it('lists the session for the workspace, with the three prompts, context and hook snapshots at the prompts', async () => {
    const sessions = await engine.listSessions();
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.source, s.title]),
      [[threadId, 'codex', 'make the files']],
    );
    const file = sessions[0]!.sessionRef;
    const s = await readCodexSession(file, { home: codexHome });
    assert.deepEqual(
      s.userPrompts().map((p) => p.text),
      ['make the files', 'change them', 'one more'],
    );
    const ctx = s.buildSessionContext();
    const roles = ctx.messages.map((m: AgentMessage) => m.role);
    assert.equal(roles.filter((r) => r === 'user').length, 3);
    assert.equal(roles.filter((r) => r === 'toolResult').length, 5);
    const results = ctx.messages
      .filter((m) => m.role === 'toolResult')
      .map((m) => JSON.stringify(m.content))
      .join('\n');
    assert.match(results, /Files changed:\\n(.(?!Files changed))*M \/[^"]*sub\/a\.txt\\n@@ -1 \+1 @@/, 'apply_patch changes shown with their call');
    assert.match(results, /\\nA \/[^"]*new\.txt/);
    assert.match(results, /Files changed:\\nD \/[^"]*two\.txt/);
    const details = await engine.describeSession(file);
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId).sort(),
      s
        .userPrompts()
        .map((p) => p.entryId)
        .sort(),
    );
  });

  it('rewinds files and conversation to prompt 2: exactly the workspace then; undo gives the end state back', async () => {
    const file = (await engine.listSessions())[0]!.sessionRef;
    const before = readFileSync(file);
    const s = await readCodexSession(file, { home: codexHome });
    const p2 = s.userPrompts()[1]!;
    const outcome = await engine.applyRewind(file, p2.entryId, 'all');
    assert.deepEqual(stateOf(ws), atPrompt2);
    assert.ok(outcome.fork);
    assert.deepEqual(readFileSync(file), before, 'the rollout is never written');

    await engine.undoLastRewind(file);
    assert.deepEqual(stateOf(ws), atEnd);

    // Codex continues the fork: its history is prompt 1 only, and the fork's rollout grows
    const forkSize = statSync(outcome.fork.sessionRef).size;
    fake.push([{ text: 'Continuing from the fork.' }]);
    const seen = fake.requests.length;
    const r4 = await runCodex(bin, ['resume', outcome.fork.sessionId, 'try prompt two differently'], {
      cwd: ws,
      codexHome,
      env: { AGENT_REWIND_HOME: arHome },
    });
    assert.equal(r4.code, 0, r4.stderr + r4.stdout);
    assert.equal(r4.threadId, outcome.fork.sessionId);
    assert.ok(statSync(outcome.fork.sessionRef).size > forkSize);
    const input = JSON.stringify((fake.requests[seen]!.body as { input: unknown }).input);
    assert.ok(input.includes('make the files') && input.includes('try prompt two differently'));
    assert.ok(!input.includes('change them'), 'the fork starts before prompt 2');
    const fork = await readCodexSession(outcome.fork.sessionRef, { home: codexHome });
    assert.deepEqual(
      fork.userPrompts().map((p) => p.text),
      ['make the files', 'try prompt two differently'],
    );
    assert.equal(fork.forkedFrom?.sessionId, threadId);
  });
});
