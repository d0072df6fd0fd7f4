// A fresh CLI process evaluates only the command table and the one command it runs (issue 4: the CLI's start-up
// cost). Each test also runs a command, to show that its probe does see a module once it is evaluated.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');
/** What every start-up may evaluate: main, the command table and what they use to print help and errors. */
const START_UP_SOURCES = [
  'src/cli/command.ts',
  'src/cli/commands/index.ts',
  'src/cli/exit-when-done.ts', // the end without Node's teardown; imports nothing
  'src/cli/main.ts',
  'src/cli/stdout.ts',
  'src/cli/terminal-text.ts',
  'src/core/files/store/compaction-handoff.ts',
  'src/core/home.ts',
  'src/core/service/service-starter.ts', // the slot a snapshot hands its folder to for the service's auto-start; imports nothing
  'src/core/settings/settings-source.ts',
  'src/shared/display-path.ts', // terminal-text shows a name's stray bytes as \xNN with it; it imports nothing
];
/** tsx and the esbuild it compiles with: loaded by the test's own process, not by the CLI. */
const LOADER_PACKAGES = /^node_modules\/(tsx|esbuild|get-tsconfig|resolve-pkg-maps)\//;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-lazy-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI from source in a fresh process (through tsx, so every module is its own file) and lists the
 *  modules it evaluated, relative to the repository, after each of the given command lines in turn. */
function modulesAfter(...commandLines: string[][]): string[][] {
  const script = join(dir, 'list-modules.cjs');
  writeFileSync(
    script,
    `const { relative } = require('node:path');
const { runCli } = require(${JSON.stringify(join(ROOT, 'src/cli/main.ts'))});
const silent = () => true;
process.stdout.write = silent;
process.stderr.write = silent;
(async () => {
  const lists = [];
  for (const argv of ${JSON.stringify(commandLines)}) {
    await runCli(argv);
    lists.push(Object.keys(require.cache).map((f) => relative(${JSON.stringify(ROOT)}, f)).filter((f) => !f.startsWith('..')).sort());
  }
  require('node:fs').writeFileSync(process.env.MODULE_LIST, JSON.stringify(lists));
})();
`,
  );
  const out = join(dir, 'modules.json');
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, MODULE_LIST: out, HOME: dir, AGENT_REWIND_HOME: '' },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(readFileSync(out, 'utf8'));
}

const appModules = (list: string[]) => list.filter((f) => !LOADER_PACKAGES.test(f));

test('--help and an unknown command evaluate the command table only, no command module, core or library', () => {
  const missing = join(dir, 'missing.jsonl');
  const [help, unknown, snapshot] = modulesAfter(['--help'], ['no-such-command'], ['snapshot', missing, '--anchor', 'x', '--home', join(dir, 'home')]);
  assert.deepEqual(appModules(help!), START_UP_SOURCES);
  // an unknown command also evaluates the help module, for the command meant (it imports nothing)
  assert.deepEqual(appModules(unknown!), [...START_UP_SOURCES, 'src/cli/command-help.ts'].sort());
  // the probe sees what a command evaluates: snapshot's module and the session's
  for (const m of ['src/cli/commands/snapshot.ts', 'src/core/session/session-manager.ts']) assert.ok(snapshot!.includes(m), `${m} not evaluated by snapshot`);
  // …but not the engine, the catalog or the service's server, and the file checkpointer only once there is a session
  // to snapshot (the service client loads it when the service does not answer)
  assert.deepEqual(
    snapshot!.filter((f) => /^src\/core\/(engine\/engine|catalog\/|service\/server|files\/file-checkpointer)/.test(f)),
    [],
  );
  // …nor the modules of other commands, nor sql.js, which only the catalog needs
  assert.deepEqual(
    snapshot!.filter((f) => /^src\/cli\/commands\/(?!snapshot\.ts|index\.ts)/.test(f)),
    [],
  );
  assert.deepEqual(
    snapshot!.filter((f) => /^node_modules\/(proper-lockfile|graceful-fs|sql\.js)\//.test(f)),
    [],
  );
});

test('every entry of the command table loads a command whose usage starts with its name', async () => {
  const { commands } = await import('../../../src/cli/commands/index');
  assert.ok(commands.length > 0);
  assert.deepEqual(
    commands.map((c) => c.name),
    [...commands.map((c) => c.name)].sort(),
    'the table is alphabetical',
  );
  for (const entry of commands) {
    const command = await entry.load();
    assert.equal(typeof command.run, 'function', entry.name);
    assert.ok(command.usage === entry.name || command.usage.startsWith(`${entry.name} `), `${entry.name}: usage "${command.usage}"`);
  }
});

test('the bundled CLI (as esbuild builds it) requires no Node module core needs before a command runs', () => {
  const bundle = join(dir, 'cli.cjs');
  bundleCli(bundle);
  // every require() the bundle makes goes through Module._load: the built-in modules a module needs show when it runs
  const hook = join(dir, 'record-requires.cjs');
  writeFileSync(
    hook,
    `const Module = require('node:module');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (parent && parent.filename === ${JSON.stringify(bundle)}) seen.add(request.replace(/^node:/, ''));
  return load.call(this, request, parent, ...rest);
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.REQUIRE_LIST, JSON.stringify([...seen].sort())));
`,
  );
  const requiresOf = (args: string[]): string[] => {
    const out = join(dir, 'requires.json');
    spawnSync(process.execPath, ['--require', hook, bundle, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, REQUIRE_LIST: out, HOME: dir, AGENT_REWIND_HOME: '' },
    });
    return JSON.parse(readFileSync(out, 'utf8'));
  };
  const coreNeeds = ['crypto', 'fs/promises', 'zlib'];
  const help = requiresOf(['--help']);
  assert.ok(help.includes('util'), `the hook saw nothing: ${help.join(', ')}`);
  assert.deepEqual(
    help.filter((m) => coreNeeds.includes(m)),
    [],
  );
  // a user message appended with checkpointing on: a snapshot of its folder
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  const created = spawnSync(process.execPath, [bundle, 'new', '--cwd', ws, '--home', join(dir, 'home'), '--json'], {
    encoding: 'utf8',
    env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: '', AGENT_REWIND_SERVICE: 'off' },
  });
  assert.equal(created.status, 0, created.stderr);
  const id = (JSON.parse(created.stdout) as { id: string }).id;
  const snapshot = requiresOf(['append', id, '--role', 'user', '--text', 'hi', '--home', join(dir, 'home'), '--json']);
  assert.deepEqual(
    snapshot.filter((m) => coreNeeds.includes(m)),
    coreNeeds,
  );
  // graceful-fs requires 'constants': nothing a snapshot runs loads it (the session lock is core/file-lock.ts)
  assert.ok(!snapshot.includes('constants'), snapshot.join(', '));
});
