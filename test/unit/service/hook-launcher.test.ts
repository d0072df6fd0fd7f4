// The launcher script's hook fast path, run with `sh` as Claude Code runs it (`<launcher> hook claude`, the hook JSON
// on stdin): answered by the service over sh + perl (perl-hook-client.ts) or, without perl, sh + curl, when it serves
// the folder, else the Node hook (marked here by a wrapper around the CLI bundle) — with the service stopped, a stale
// socket, a 409, or a project folder whose name has a newline. Bad input is answered (400), logged once, and never
// sent to Node as well; a refused secret is logged and not sent to Node either. Each client runs with a PATH that
// holds it and not the other one, so a client that could not do the job would show as Node running.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointService } from '../../../src/core/service';
import { hookSocketPath } from '../../../src/core/service/paths';
import { launcherScript } from '../../../src/core/service/launcher-script';
import { cliCheckpointerOptions } from '../../../src/core/settings/settings-file';
import { FileCheckpointer } from '../../../src/core/files';
import { readPromptRecords } from '../../../src/core/sources/claude/prompt-records';
import { bundleCli, tempBase, writeTree } from '../files/helpers';

const which = (tool: string) => {
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};
// CI installs curl (scripts/e2e/setup.mjs) and has perl, so there a missing one fails these tests instead of skipping them
const posix = process.platform !== 'win32';
const clients = {
  perl: posix && (process.env.CI === 'true' || which('perl') !== undefined),
  curl: posix && (process.env.CI === 'true' || which('curl') !== undefined),
};
type Client = keyof typeof clients;
let bundleDir: string;

/** A PATH of one folder with what the launcher runs besides its client, and that client. */
function pathFor(client: Client): string {
  const dir = join(bundleDir, `bin-${client}`);
  if (existsSync(dir)) return dir;
  mkdirSync(dir);
  for (const tool of ['mkdir', 'date', 'cat', client]) symlinkSync(which(tool)!, join(dir, tool));
  return dir;
}

before(() => {
  if (!clients.perl && !clients.curl) return;
  bundleDir = join(tmpdir(), `arw-launcher-cli-${process.pid}`);
  mkdirSync(bundleDir, { recursive: true });
  bundleCli(join(bundleDir, 'cli.js'));
  // the CLI as the launcher's Node path runs it, leaving a mark that it ran
  writeFileSync(
    join(bundleDir, 'marked-cli.js'),
    `require('node:fs').appendFileSync(process.env.ARW_TEST_MARK, process.argv.slice(2).join(' ') + '\\n');\n` +
      `require('./cli.js').runCli(process.argv.slice(2)).then((c) => (process.exitCode = c));\n`,
  );
});
after(() => bundleDir && rmSync(bundleDir, { recursive: true, force: true }));

async function setup(client: Client, served: 'ws' | 'other' | 'none') {
  const base = await tempBase('arw-launcher-');
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  const other = join(base.dir, 'other');
  await writeTree(ws, { 'a.txt': 'one\n' });
  await writeTree(other, { 'c.txt': 'three\n' });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), '{}\n');
  const logs: string[] = [];
  const service =
    served === 'none'
      ? undefined
      : new CheckpointService({
          home,
          workspaces: [served === 'ws' ? ws : other],
          checkpointer: (root) => cliCheckpointerOptions(home, root, () => {}),
          trace: true,
          log: (m) => logs.push(m),
        });
  await service?.start();
  const launcher = join(base.dir, 'agent-rewind');
  writeFileSync(launcher, launcherScript({ cliJs: join(bundleDir, 'marked-cli.js'), runtime: process.execPath, runtimeKind: 'node', writtenBy: 'test' }), {
    mode: 0o755,
  });
  const mark = join(base.dir, 'node-ran');
  /** Runs `sh <launcher> hook <agent>` as the agent would (async: the service answers from this process). */
  const hook = (agent: 'claude' | 'codex', input: string, projectDir?: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const env: NodeJS.ProcessEnv = { PATH: pathFor(client), HOME: base.dir, AGENT_REWIND_HOME: home, ARW_TEST_MARK: mark };
      if (projectDir !== undefined) env.CLAUDE_PROJECT_DIR = projectDir;
      const p = spawn('/bin/sh', [launcher, 'hook', agent], { env, cwd: ws, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (c) => (out += c));
      p.stderr.on('data', (c) => (out += c));
      p.on('close', (code) => resolve({ code, out }));
      p.stdin.end(input);
    });
  const nodeRan = () => (existsSync(mark) ? readFileSync(mark, 'utf8') : '');
  const snapshots = async (session: string) => {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    try {
      return (await fc.listSnapshots(session)).map((s) => `${s.anchorId} ${s.kind}`);
    } finally {
      await fc.dispose();
    }
  };
  const log = () => {
    const f = join(home, 'logs', 'claude-hooks.log');
    return existsSync(f) ? readFileSync(f, 'utf8') : '';
  };
  return { base, home, ws, service, logs, hook, nodeRan, snapshots, log };
}

const prompt = (ws: string, id: string) =>
  JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'sess-1', prompt_id: id, prompt: 'hi', cwd: ws, transcript_path: '' });

for (const client of ['perl', 'curl'] as const) {
  test(
    `${client}: the service answers the hook over sh + ${client}, Node never starts; a refused secret is logged`,
    { skip: !clients[client], timeout: 60_000 },
    async () => {
      const t = await setup(client, 'ws');
      try {
        await writeFile(join(t.ws, 'a.txt'), 'changed\n');
        assert.deepEqual(await t.hook('claude', prompt(t.ws, 'p-1'), t.ws), { code: 0, out: '' });
        const stop = JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1', prompt_id: 'p-1', cwd: t.ws });
        assert.deepEqual(await t.hook('claude', stop, t.ws), { code: 0, out: '' });
        const codex = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'cx-1', turn_id: 'turn-1', cwd: t.ws });
        assert.deepEqual(await t.hook('codex', codex), { code: 0, out: '' });
        assert.equal(t.nodeRan(), '');
        assert.equal(t.logs.filter((l) => /^hook (claude|codex) \S+ ok /.test(l)).length, 3, t.logs.join('\n'));
        assert.deepEqual(await t.snapshots('sess-1'), ['p-1 user-message', 'p-1:turn-end turn-end']);
        assert.deepEqual(await t.snapshots('cx-1'), ['turn-1 user-message']);
        assert.equal(readPromptRecords(t.home, 'sess-1').length, 1);
        // bad input: answered (400), logged once, not handed to Node as well
        assert.deepEqual(await t.hook('claude', '{oops', t.ws), { code: 0, out: '' });
        assert.equal(t.nodeRan(), '');
        assert.equal((t.log().match(/stdin is not JSON/g) ?? []).length, 1);
        // a secret the service does not know: 401, logged, no snapshot, no Node
        writeFileSync(join(t.home, 'service', 'secret'), 'not-the-secret\n', { mode: 0o600 });
        assert.deepEqual(await t.hook('claude', prompt(t.ws, 'p-2'), t.ws), { code: 0, out: '' });
        assert.equal(t.nodeRan(), '');
        assert.match(t.log(), /refused the secret/);
        assert.deepEqual(await t.snapshots('sess-1'), ['p-1 user-message', 'p-1:turn-end turn-end']);
      } finally {
        await t.service?.stop();
        await t.base.cleanup();
      }
    },
  );

  test(
    `${client}: no service, a stale socket, a 409, a project folder with a newline: the Node hook takes the snapshot`,
    { skip: !clients[client], timeout: 120_000 },
    async () => {
      const none = await setup(client, 'none');
      try {
        assert.deepEqual(await none.hook('claude', prompt(none.ws, 'p-1'), none.ws), { code: 0, out: '' });
        assert.equal(none.nodeRan(), 'hook claude\n');
        // a socket file nobody listens on (a service killed outright): the client cannot connect, Node runs
        mkdirSync(join(none.home, 'service'), { recursive: true, mode: 0o700 });
        const listener = spawn(process.execPath, [
          '-e',
          `require('node:net').createServer().listen(${JSON.stringify(hookSocketPath(none.home))}, () => console.log('up'))`,
        ]);
        await new Promise((r) => listener.stdout.once('data', r));
        listener.kill('SIGKILL');
        await new Promise((r) => listener.once('exit', r));
        assert.ok(existsSync(hookSocketPath(none.home)));
        assert.deepEqual(await none.hook('claude', prompt(none.ws, 'p-2'), none.ws), { code: 0, out: '' });
        assert.equal(none.nodeRan(), 'hook claude\nhook claude\n');
        assert.deepEqual(await none.snapshots('sess-1'), ['p-1 user-message', 'p-2 user-message']);
        assert.equal(none.log(), '');
      } finally {
        await none.base.cleanup();
      }

      const elsewhere = await setup(client, 'other'); // the service runs, but for another folder: 409, then Node
      try {
        assert.deepEqual(await elsewhere.hook('claude', prompt(elsewhere.ws, 'p-1'), elsewhere.ws), { code: 0, out: '' });
        assert.equal(elsewhere.nodeRan(), 'hook claude\n');
        assert.ok(
          elsewhere.logs.some((l) => /^hook claude - not-served /.test(l)),
          elsewhere.logs.join('\n'),
        );
        assert.deepEqual(await elsewhere.snapshots('sess-1'), ['p-1 user-message']);
        assert.equal(readPromptRecords(elsewhere.home, 'sess-1').length, 1, 'the prompt is recorded once');
      } finally {
        await elsewhere.service?.stop();
        await elsewhere.base.cleanup();
      }

      const served = await setup(client, 'ws'); // served, but the project folder's name cannot go on one line: Node
      try {
        assert.deepEqual(await served.hook('claude', prompt(served.ws, 'p-1'), `${served.ws}\nx`), { code: 0, out: '' });
        assert.equal(served.nodeRan(), 'hook claude\n');
        assert.equal(served.logs.filter((l) => l.startsWith('hook ')).length, 0);
        assert.deepEqual(await served.snapshots('sess-1'), ['p-1 user-message']);
      } finally {
        await served.service?.stop();
        await served.base.cleanup();
      }
    },
  );
}
