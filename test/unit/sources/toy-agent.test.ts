// A new agent plugs in without a line of production code naming it (issue 21): the toy agent of
// test/support/toy-agent (sessions as rows of SQLite files, a hook script) is loaded through
// $AGENT_REWIND_AGENT_MODULES, and then its hooks are installed and run through the CLI's main(), its sessions listed
// by the CLI, and listed, searched, shown, previewed, rewound and undone through the engine the extension runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { RewindEngine } from '../../../src/core/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { agentById, agentModulesFromEnv, foreignSources, loadAgentModules, unregisterAgent } from '../../../src/core/sources/registry';
import { runAgentHook } from '../../../src/cli/commands/hook';
import { writeToySession } from '../../support/toy-agent/agent';

const ROOT = resolve(__dirname, '../../..');
const TOY_MODULE = join(ROOT, 'test/support/toy-agent/agent.ts');

test('a toy agent from the test tree is listed, searched, shown, previewed, rewound and undone, its hooks installed and run', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-toy-'));
  const env = {
    ...process.env,
    AGENT_REWIND_AGENT_MODULES: TOY_MODULE,
    TOY_AGENT_HOME: join(dir, 'toy'),
    HOME: dir,
    AGENT_REWIND_SERVICE: 'off',
    AGENT_REWIND_HOME: '',
  };
  const saved = { modules: process.env.AGENT_REWIND_AGENT_MODULES, toy: process.env.TOY_AGENT_HOME, service: process.env.AGENT_REWIND_SERVICE };
  Object.assign(process.env, { AGENT_REWIND_AGENT_MODULES: TOY_MODULE, TOY_AGENT_HOME: join(dir, 'toy'), AGENT_REWIND_SERVICE: 'off' });
  t.after(() => {
    for (const [k, v] of [
      ['AGENT_REWIND_AGENT_MODULES', saved.modules],
      ['TOY_AGENT_HOME', saved.toy],
      ['AGENT_REWIND_SERVICE', saved.service],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    unregisterAgent('toy');
    rmSync(dir, { recursive: true, force: true });
  });
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(ws, { recursive: true });
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args, '--home', home], { cwd: ROOT, env, encoding: 'utf8' });

  // the registry knows nothing of it until the module is loaded
  assert.equal(agentById('toy'), undefined);
  await loadAgentModules(agentModulesFromEnv());
  assert.equal(agentById('toy')?.displayName, 'Toy Agent');

  // hooks: installed by the CLI (a script in the workspace), then run as the script runs them, one per prompt
  const installed = cli('hooks', 'install', 'toy', '--cwd', ws, '--no-baseline', '--command', join(dir, 'launcher'), '--json');
  assert.equal(installed.status, 0, installed.stderr);
  assert.match(readFileSync(join(ws, '.toy', 'hook.sh'), 'utf8'), /'hook' 'toy'/);
  const hook = (messageId: string) =>
    runAgentHook(['toy', '--home', home], {
      stdin: Readable.from([Buffer.from(JSON.stringify({ session_id: 'toy-1', message_id: messageId, cwd: ws }))]),
      env: {},
    });
  writeFileSync(join(ws, 'a.txt'), 'first\n');
  assert.equal(await hook('u1'), 0);
  writeFileSync(join(ws, 'a.txt'), 'second\n');
  assert.equal(await hook('u2'), 0);
  writeFileSync(join(ws, 'a.txt'), 'third\n');
  assert.equal(existsSync(join(home, 'logs', 'toy-hooks.log')), false, 'no hook problem');

  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
  const file = await writeToySession(join(dir, 'toy'), {
    id: 'toy-1',
    cwd: ws,
    title: 'Toy session',
    created: at(0),
    messages: [
      { id: 'u1', parentId: null, role: 'user', text: 'write the first line', at: at(1) },
      { id: 'a1', parentId: 'u1', role: 'assistant', text: 'done: first', at: at(2) },
      { id: 'u2', parentId: 'a1', role: 'user', text: 'make it the zebra line', at: at(3) },
      { id: 'a2', parentId: 'u2', role: 'assistant', text: 'done: second', at: at(4) },
    ],
  });

  // listed by the CLI (a fresh process: the module comes from the variable)
  const listed = cli('sessions', '--cwd', ws, '--json');
  assert.equal(listed.status, 0, listed.stderr);
  assert.ok(listed.stdout.includes('"toy-1"') && listed.stdout.includes('"toy"'), listed.stdout);

  // the engine the extension runs: listed, shown with its own name, searched, previewed, rewound and undone
  const settings = parseSettings((k) => (k === 'home' ? home : undefined), env);
  const engine = new RewindEngine({ settings, workspaceRoots: [ws], foreignSources, warn: () => {} });
  t.after(() => engine.dispose());
  const sessions = await engine.listSessions();
  assert.deepEqual(
    sessions.map((s) => [s.sessionId, s.source]),
    [['toy-1', 'toy']],
  );
  const { model, items } = await engine.loadTranscript(file);
  assert.equal(model.sourceLabel, 'Toy Agent');
  assert.deepEqual(model.readOnly, { agent: 'Toy Agent' });
  assert.equal(items.length, 4);
  const hits = await engine.searchMessages('zebra');
  assert.deepEqual(
    hits.map((h) => [h.sessionRef, h.entryId]),
    [[file, 'u2']],
  );
  const preview = await engine.previewRewind(file, 'u2');
  assert.ok(preview.conversation.ok && preview.conversation.fork?.agent === 'Toy Agent', JSON.stringify(preview.conversation));
  const outcome = await engine.applyRewind(file, 'u2', 'all');
  assert.deepEqual(outcome.filesChanged, ['a.txt']);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'second\n');
  assert.ok(outcome.fork && existsSync(outcome.fork.sessionRef), 'a new toy session holds the conversation before u2');
  await engine.undoLastRewind(file);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'third\n');
});
