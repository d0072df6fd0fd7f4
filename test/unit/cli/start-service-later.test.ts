// Issue 26, item 1: the first hook of a session must not get slower because it starts the checkpoint service. The
// detached `serve --auto` is spawned once the hook's process has nothing left to do (its snapshot written, its stat
// index saved), one per home with every folder the process snapshotted, and the start evaluates none of the service's
// own modules in the hook's process. (auto-start.test.ts runs the whole thing through the built CLI.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess, type spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { startServiceLater, type StarterProcess } from '../../../src/cli/start-service-later';
import { SERVICE_NODE_ARGS } from '../../../src/core/service/service-heap';

const ROOT = resolve(__dirname, '../../..');

interface Spawned {
  command: string;
  args: readonly string[];
  options: { detached?: boolean; stdio?: unknown; env?: NodeJS.ProcessEnv };
}

function fakeProcess(script = '/opt/agent-rewind/dist/cli.js'): StarterProcess & { spawned: Spawned[]; exitWhenIdle(): void } {
  const events = new EventEmitter();
  const spawned: Spawned[] = [];
  const fakeSpawn = ((command: string, args: readonly string[], options: Spawned['options']) => {
    spawned.push({ command, args, options });
    const child = new EventEmitter() as ChildProcess;
    child.unref = () => undefined;
    return child;
  }) as unknown as typeof spawn;
  return {
    script,
    once: (event, listener) => events.once(event, listener),
    spawn: fakeSpawn,
    spawned,
    exitWhenIdle: () => events.emit('beforeExit'),
  };
}

/** Runs `fn` with auto-start as the user has it by default (the test runner turns it off for every other test). */
function withAutoStartOn(fn: (home: string) => void): void {
  const saved = { a: process.env.AGENT_REWIND_SERVICE_AUTOSTART, s: process.env.AGENT_REWIND_SERVICE };
  delete process.env.AGENT_REWIND_SERVICE_AUTOSTART;
  delete process.env.AGENT_REWIND_SERVICE;
  const home = mkdtempSync(join(tmpdir(), 'ar-start-later-'));
  try {
    fn(home);
  } finally {
    if (saved.a !== undefined) process.env.AGENT_REWIND_SERVICE_AUTOSTART = saved.a;
    if (saved.s !== undefined) process.env.AGENT_REWIND_SERVICE = saved.s;
    rmSync(home, { recursive: true, force: true });
  }
}

test('the service is spawned once the process has nothing left to do: one detached serve --auto per home, with every folder', () => {
  withAutoStartOn((home) => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ checkpointService: { idleMinutes: 7 } }));
    const proc = fakeProcess();
    startServiceLater(home, '/work/a', proc);
    startServiceLater(home, '/work/b', proc);
    startServiceLater(home, '/work/a', proc);
    assert.deepEqual(proc.spawned, [], 'nothing is spawned while the process still works (the hook saves its stat index after its snapshot)');
    proc.exitWhenIdle();
    assert.equal(proc.spawned.length, 1);
    const { command, args, options } = (proc.spawned as Spawned[])[0]!;
    assert.equal(command, process.execPath);
    assert.deepEqual(args, [
      ...SERVICE_NODE_ARGS,
      '/opt/agent-rewind/dist/cli.js',
      'serve',
      '--auto',
      '--workspace',
      '/work/a',
      '--workspace',
      '/work/b',
      '--idle-minutes',
      '7',
      '--home',
      home,
    ]);
    assert.equal(options.detached, true, 'its own session: the agent ending the hook process group does not end it');
    assert.equal(options.stdio, 'ignore', 'it holds none of the hook pipes the agent waits on');
    assert.equal(options.env?.MALLOC_MMAP_THRESHOLD_, '131072');
    // 'beforeExit' comes again whenever the loop empties: the start is not repeated
    proc.exitWhenIdle();
    assert.equal(proc.spawned.length, 1);
  });
});

test('no service is spawned with auto-start off, or from a process that is not the CLI', () => {
  withAutoStartOn((home) => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ 'agentRewind.checkpointService.autoStart': false }));
    const off = fakeProcess();
    startServiceLater(home, '/work/a', off);
    off.exitWhenIdle();
    assert.deepEqual(off.spawned, []);
  });
  withAutoStartOn((home) => {
    const notCli = fakeProcess('/usr/lib/node_modules/some-test-runner.js');
    startServiceLater(home, '/work/a', notCli);
    notCli.exitWhenIdle();
    assert.deepEqual(notCli.spawned, []);
  });
});

test("starting the service evaluates none of the service's own modules in the snapshot's process", () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-start-later-modules-'));
  try {
    const out = join(dir, 'modules.json');
    const script = join(dir, 'list.cjs');
    writeFileSync(
      script,
      `require(${JSON.stringify(join(ROOT, 'src/cli/start-service-later.ts'))});
require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache)));`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const modules = (JSON.parse(readFileSync(out, 'utf8')) as string[]).map((f) => relative(ROOT, f));
    assert.ok(modules.includes('src/cli/start-service-later.ts'), modules.join(', '));
    assert.deepEqual(
      modules.filter((f) => f.startsWith('src/core/service/') && f !== 'src/core/service/service-heap.ts'),
      [],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
