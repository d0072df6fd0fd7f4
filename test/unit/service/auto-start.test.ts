// Issue 26, item 1: the checkpoint service starts itself. A hook (through the launcher, as Claude Code runs it) that
// finds no service serving its folder takes its snapshot itself and starts `serve --auto` in the background; the next
// hooks are answered by that service (its request counter and pid say so), which stops by itself once idle, and
// `serve --status` / `--stop` show and stop it. Off with the setting and with either environment variable. Two hooks
// of two folders at the same moment end with one service serving both. Runs the built CLI (dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { launcherScript } from '../../../src/core/service/launcher-script';
import { hookSocketPath, socketPath } from '../../../src/core/service/paths';
import { FileCheckpointer } from '../../../src/core/files';
import { tempBase, writeTree } from '../files/helpers';

const CLI = resolve(__dirname, '../../../dist/cli.js');

interface Setup {
  dir: string;
  home: string;
  ws: string;
  other: string;
  cleanup(): Promise<void>;
  hook(prompt: string, folder?: string, env?: NodeJS.ProcessEnv): Promise<void>;
  cli(args: string[], env?: NodeJS.ProcessEnv): { code: number | null; out: string };
  status(): Record<string, unknown>;
  serviceLog(): string;
}

async function setup(config: Record<string, unknown>): Promise<Setup> {
  assert.ok(existsSync(CLI), 'dist/cli.js is built (npm run build)');
  const base = await tempBase('arw-autostart-');
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  const other = join(base.dir, 'other');
  await writeTree(ws, { 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
  await writeTree(other, { 'c.txt': 'three\n' });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const launcher = join(base.dir, 'agent-rewind');
  writeFileSync(launcher, launcherScript({ cliJs: CLI, runtime: process.execPath, runtimeKind: 'node', writtenBy: 'test' }), { mode: 0o755 });
  // the test runner turns auto-start off for every other test: here it is what is tested
  const baseEnv = (): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: base.dir, AGENT_REWIND_HOME: home };
    delete env.AGENT_REWIND_SERVICE_AUTOSTART;
    delete env.AGENT_REWIND_SERVICE;
    return env;
  };
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...baseEnv(), ...env }, encoding: 'utf8', cwd: base.dir });
    return { code: r.status, out: r.stdout + r.stderr };
  };
  return {
    dir: base.dir,
    home,
    ws,
    other,
    async cleanup() {
      // whatever a failed assertion left running
      cli(['serve', '--stop']);
      await base.cleanup();
    },
    hook: (prompt, folder = ws, env = {}) =>
      new Promise<void>((done, fail) => {
        const input = JSON.stringify({
          hook_event_name: 'UserPromptSubmit',
          session_id: 'sess-1',
          prompt_id: prompt,
          prompt: 'hi',
          cwd: folder,
          transcript_path: '',
        });
        const p = spawn('/bin/sh', [launcher, 'hook', 'claude'], {
          env: { ...baseEnv(), CLAUDE_PROJECT_DIR: folder, ...env },
          cwd: folder,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        p.stdout.on('data', (c) => (out += c));
        p.stderr.on('data', (c) => (out += c));
        p.on('close', (code) => (code === 0 && out === '' ? done() : fail(new Error(`hook exited ${code}: ${out}`))));
        p.stdin.end(input);
      }),
    cli,
    status() {
      const r = cli(['serve', '--status', '--json']);
      assert.equal(r.code, 0, r.out);
      return JSON.parse(r.out) as Record<string, unknown>;
    },
    serviceLog() {
      const f = join(home, 'logs', 'service.log');
      return existsSync(f) ? readFileSync(f, 'utf8') : '';
    },
  };
}

async function until<T>(what: string, fn: () => T | undefined | false, ms = 20_000): Promise<T> {
  const t = Date.now();
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function snapshotted(home: string, ws: string, anchor: string, rel: string): Promise<string | undefined> {
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return (await fc.readFileAtAnchor('sess-1', anchor, rel))?.toString();
  } finally {
    await fc.dispose();
  }
}

test(
  'the first hook starts the service; the next hooks are answered by it; it stops by itself when idle; serve --status and --stop show and stop it',
  { timeout: 120_000 },
  async () => {
    // 3 s idle time: long enough for the hooks below, short enough to wait out
    const t = await setup({ checkpointService: { idleMinutes: 0.05 } });
    try {
      assert.equal(t.status().running, false);
      await t.hook('p-1');
      assert.equal(await snapshotted(t.home, t.ws, 'p-1', 'a.txt'), 'one\n', 'the first hook took its snapshot itself');
      const first = await until('the auto-started service', () => {
        const s = t.status();
        return s.running === true && (s.workspaces as string[]).length === 1 && s;
      });
      assert.equal(first.origin, 'auto');
      assert.deepEqual(first.workspaces, [realpathSync(t.ws)]);
      assert.equal(first.idleMs, 3_000);
      assert.ok(typeof first.rssBytes === 'number' && first.rssBytes > 0);
      if (process.platform === 'linux') {
        // a young generation sized for a long-lived process (service-heap.ts)
        const argv = readFileSync(`/proc/${String(first.pid)}/cmdline`, 'utf8').split('\0');
        assert.ok(argv.includes('--max-semi-space-size=1'), argv.join(' '));
        // and the C allocator's fixed thresholds (service-heap.ts)
        const env = readFileSync(`/proc/${String(first.pid)}/environ`, 'utf8').split('\0');
        assert.ok(env.includes('MALLOC_MMAP_THRESHOLD_=131072') && env.includes('MALLOC_TRIM_THRESHOLD_=131072'), 'the allocator settings');
      }
      const before = first.requests as number;
      // the next hooks: through the launcher's fast path to this service (the same pid counts them)
      for (const [i, text] of [
        [2, 'two\n'],
        [3, 'three\n'],
      ] as const) {
        await writeFile(join(t.ws, 'a.txt'), text);
        await t.hook(`p-${i}`);
        assert.equal(await snapshotted(t.home, t.ws, `p-${i}`, 'a.txt'), text);
      }
      const used = t.status();
      assert.equal(used.pid, first.pid);
      assert.equal((used.requests as number) - before, 2, 'both later hooks were answered by the service');
      const human = t.cli(['serve', '--status']);
      assert.match(human.out, new RegExp(`pid ${String(first.pid)}, started .* by a hook or command`));
      assert.match(human.out, /memory: \d+\.\d MB resident/);
      assert.match(human.out, /idle: stops after 3 s without a request \(\d s left\)/);
      // idle: it stops by itself, removing its sockets
      await until('the idle stop', () => t.status().running === false, 15_000);
      assert.match(t.serviceLog(), /idle for 3 s: stopping/);
      assert.equal(existsSync(socketPath(t.home)), false);
      assert.equal(existsSync(hookSocketPath(t.home)), false);
      // started again by the next hook, and stopped by --stop
      await t.hook('p-4');
      const again = await until('the second auto-start', () => {
        const s = t.status();
        return s.running === true && s;
      });
      assert.notEqual(again.pid, first.pid);
      const stopped = t.cli(['serve', '--stop']);
      assert.equal(stopped.code, 0, stopped.out);
      assert.match(stopped.out, new RegExp(`stopped the checkpoint service \\(pid ${String(again.pid)}\\)`));
      assert.equal(t.status().running, false);
      assert.match(t.cli(['serve', '--stop']).out, /no checkpoint service runs for this home/);
    } finally {
      await t.cleanup();
    }
  },
);

test(
  'auto-start is off with agentRewind.checkpointService.autoStart false, AGENT_REWIND_SERVICE_AUTOSTART=off or AGENT_REWIND_SERVICE=off',
  { timeout: 120_000 },
  async () => {
    for (const [name, config, env] of [
      ['the setting', { 'agentRewind.checkpointService.autoStart': false }, {}],
      ['AGENT_REWIND_SERVICE_AUTOSTART=off', {}, { AGENT_REWIND_SERVICE_AUTOSTART: 'off' }],
      ['AGENT_REWIND_SERVICE=off', {}, { AGENT_REWIND_SERVICE: 'off' }],
    ] as const) {
      const t = await setup(config);
      try {
        await t.hook('p-1', t.ws, env);
        assert.equal(await snapshotted(t.home, t.ws, 'p-1', 'a.txt'), 'one\n', name);
        // a started service says so in its log within a second here (the positive test above waits for it the same way)
        await new Promise((r) => setTimeout(r, 2_500));
        assert.equal(t.status().running, false, name);
        assert.equal(t.serviceLog(), '', name);
        assert.match(t.cli(['serve', '--status'], env).out, /auto-start: off/, name);
      } finally {
        await t.cleanup();
      }
    }
  },
);

test('two hooks of two folders at the same moment, no service running: one service starts and serves both', { timeout: 180_000 }, async () => {
  for (let i = 0; i < 3; i++) {
    // a short idle time: a service a failed assertion left behind goes away by itself
    const t = await setup({ checkpointService: { idleMinutes: 1 } });
    try {
      await Promise.all([t.hook('p-1', t.ws), t.hook('p-1', t.other)]);
      const both = await until('one service serving both folders', () => {
        const s = t.status();
        return s.running === true && (s.workspaces as string[]).length === 2 && s;
      });
      assert.deepEqual((both.workspaces as string[]).sort(), [realpathSync(t.other), realpathSync(t.ws)].sort(), `try ${i}`);
      // the other starter found it running and asked it to serve its folder instead
      const log = t.serviceLog();
      assert.equal((log.match(/ started for /g) ?? []).length, 1, `try ${i}: ${log}`);
      const before = both.requests as number;
      await writeFile(join(t.other, 'c.txt'), 'changed\n');
      await t.hook('p-2', t.other);
      assert.equal(await snapshotted(t.home, t.other, 'p-2', 'c.txt'), 'changed\n');
      assert.equal((t.status().requests as number) - before, 1, `try ${i}: the added folder's hook went to the service`);
    } finally {
      await t.cleanup();
    }
  }
});
