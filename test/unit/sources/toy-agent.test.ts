// A new agent plugs in without a line of production code naming it (issue 21): the toy agent of
// test/support/toy-agent (every session a row of ONE SQLite database, named by a ref `<database>#<id>`, a hook
// script) is loaded through $AGENT_REWIND_AGENT_MODULES, and then its hooks are installed and run through the CLI's
// main(), and its sessions are listed, searched, shown, previewed, rewound and undone through the engine the extension
// runs and through the CLI. A change to one session's row refreshes that session (its stamp moved) and not the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { RewindEngine } from '../../../src/core/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { agentById, agentModulesFromEnv, foreignSources, loadAgentModules, registerAgent, unregisterAgent } from '../../../src/core/sources/registry';
import { runAgentHook } from '../../../src/cli/commands/hook';
import { Catalog } from '../../../src/core/catalog';
import { SessionSources } from '../../../src/core/sources/session-sources';
import { agent as toyAgent, appendToyMessage, toyDatabase, writeToySession } from '../../support/toy-agent/agent';

const ROOT = resolve(__dirname, '../../..');
const TOY_MODULE = join(ROOT, 'test/support/toy-agent/agent.ts');

/** Runs the test with the toy agent loaded and its environment set; removes both after. */
function withToyAgent(t: { after(fn: () => void | Promise<void>): void }): { dir: string; env: NodeJS.ProcessEnv } {
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
  return { dir, env };
}

test('a toy agent from the test tree is listed, searched, shown, previewed, rewound and undone, its hooks installed and run', async (t) => {
  const { dir, env } = withToyAgent(t);
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
  const ref = await writeToySession(join(dir, 'toy'), {
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

  // nothing of it is a file per session: one database holds every session, and the ref names its row
  assert.deepEqual(readdirSync(join(dir, 'toy')), ['toy.db']);
  assert.equal(ref, `${toyDatabase(join(dir, 'toy'))}#toy-1`);

  // the engine the extension runs: listed, shown with its own name, searched, previewed, rewound and undone
  const settings = parseSettings((k) => (k === 'home' ? home : undefined), env);
  const engine = new RewindEngine({ settings, workspaceRoots: [ws], foreignSources, warn: () => {} });
  t.after(() => engine.dispose());
  const sessions = await engine.listSessions();
  assert.deepEqual(
    sessions.map((s) => [s.sessionId, s.source]),
    [['toy-1', 'toy']],
  );
  assert.equal(sessions[0]!.sessionRef, ref);
  const { model, items } = await engine.loadTranscript(ref);
  assert.equal(model.sourceLabel, 'Toy Agent');
  assert.deepEqual(model.readOnly, { agent: 'Toy Agent' });
  assert.equal(items.length, 4);
  const hits = await engine.searchMessages('zebra');
  assert.deepEqual(
    hits.map((h) => [h.sessionRef, h.entryId]),
    [[ref, 'u2']],
  );
  assert.equal(await engine.sessionFileOf(ref), toyDatabase(join(dir, 'toy')), 'the file to reveal is the database');
  const preview = await engine.previewRewind(ref, 'u2');
  assert.ok(preview.conversation.ok && preview.conversation.fork?.agent === 'Toy Agent', JSON.stringify(preview.conversation));
  const outcome = await engine.applyRewind(ref, 'u2', 'all');
  assert.deepEqual(outcome.filesChanged, ['a.txt']);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'second\n');
  assert.ok(outcome.fork, 'a new toy session holds the conversation before u2');
  assert.equal(outcome.fork.sessionRef, `${toyDatabase(join(dir, 'toy'))}#${outcome.fork.sessionId}`, 'the fork is a new row of the same database');
  assert.deepEqual(
    (await engine.view(outcome.fork.sessionRef)).getEntries().map((e) => e.id),
    ['u1', 'a1'],
  );
  await engine.undoLastRewind(ref);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'third\n');

  // the CLI (fresh processes: the module comes from the variable), naming the session by its id or its ref
  const json = (r: ReturnType<typeof cli>) => {
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as unknown;
  };
  const listed = json(cli('sessions', '--cwd', ws, '--json')) as { id: string; ref: string; file: string; source: string }[];
  assert.deepEqual(
    listed.filter((s) => s.id === 'toy-1').map((s) => [s.ref, s.file, s.source]),
    [[ref, toyDatabase(join(dir, 'toy')), 'toy']],
  );
  const found = json(cli('search', 'zebra', '--cwd', ws, '--json')) as { ref: string; entryId: string }[];
  assert.deepEqual(
    found.map((h) => [h.ref, h.entryId]),
    [[ref, 'u2']],
  );
  const shown = json(cli('tree', 'toy-1', '--json')) as { sessionId: string; entries: unknown[] };
  assert.equal(shown.sessionId, 'toy-1');
  assert.equal(shown.entries.length, 4);
  const dryRun = cli('rewind-files', ref, 'u1', '--dry-run');
  assert.equal(dryRun.status, 0, dryRun.stderr);
  assert.match(dryRun.stdout, /a\.txt/);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'third\n', 'the preview wrote nothing');
  const rewound = json(cli('rewind', 'toy-1', 'u1', '--files', '--json')) as { sessionRef: string; filesChanged: string[] };
  assert.deepEqual(rewound.filesChanged, ['a.txt']);
  assert.match(rewound.sessionRef, /toy\.db#/);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'first\n');
  const undone = cli('undo-rewind', ref);
  assert.equal(undone.status, 0, undone.stderr);
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'third\n');
});

test("a change to one toy session's row refreshes that session and not the others that share its database", async (t) => {
  const { dir, env } = withToyAgent(t);
  // the module may be loaded already (the test above): register its agent again
  if (!agentById('toy')) registerAgent(toyAgent);
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(ws, { recursive: true });
  const toy = join(dir, 'toy');
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
  const session = (id: string, text: string) =>
    writeToySession(toy, { id, cwd: ws, title: id, created: at(0), messages: [{ id: `${id}-u1`, parentId: null, role: 'user', text, at: at(1) }] });
  const a = await session('toy-a', 'about apples');
  const b = await session('toy-b', 'about bananas');

  const settings = parseSettings((k) => (k === 'home' ? home : undefined), env);
  const engine = new RewindEngine({ settings, workspaceRoots: [ws], foreignSources, warn: () => {} });
  t.after(() => engine.dispose());
  assert.equal((await engine.listSessions()).length, 2);
  const db = toyDatabase(toy);
  assert.deepEqual(
    engine.sessionFolders().filter((f) => f.source === 'toy'),
    [{ path: toy, source: 'toy', pattern: 'toy.db' }],
  );
  assert.deepEqual(await engine.changedSessions([db]), [], 'the database seen as listed: no session changed');
  assert.equal((await engine.view(a)).getEntries().length, 1);

  await appendToyMessage(toy, 'toy-a', { id: 'toy-a-a1', parentId: 'toy-a-u1', role: 'assistant', text: 'apples are red', at: at(2) });
  assert.deepEqual(await engine.changedSessions([db]), [a], 'only the session whose row changed');
  assert.equal((await engine.view(a)).getEntries().length, 2, 'and it is read afresh');
  assert.deepEqual(await engine.changedSessions([db]), [], 'a change is reported once');

  // the catalog keys on ref and stamp too: one session reindexed, the other left as it was
  const sources = new SessionSources(foreignSources(settings));
  const catalog = await Catalog.open({ home, openForeign: (r) => sources.open(r), stampOf: (r) => sources.stamp(r) });
  t.after(() => catalog.close());
  const listings = () => sources.list({ settings, workspaceRoots: [ws], warn: () => {} });
  const refs = async () => (await listings()).map((l) => ({ ref: l.sessionRef, source: l.source, modifiedMs: l.modifiedMs }));
  assert.deepEqual(await catalog.refresh(await refs()), { indexed: 2, removed: 0, unchanged: 0, failed: [] });
  await appendToyMessage(toy, 'toy-b', { id: 'toy-b-a1', parentId: 'toy-b-u1', role: 'assistant', text: 'bananas are yellow', at: at(3) });
  assert.deepEqual(await catalog.refresh(await refs()), { indexed: 1, removed: 0, unchanged: 1, failed: [] });
  assert.deepEqual(
    catalog.search('yellow').map((h) => h.ref),
    [b],
  );
});
