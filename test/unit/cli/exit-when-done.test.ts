// The CLI's process ends with process.exit() once it has nothing left to do, skipping Node's teardown (a hook pays it
// at every prompt), but never before every 'beforeExit' listener has run (the detached service start) and never while
// something still keeps the event loop alive; its exit code and output are those of a natural exit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitWhenDone, type ExitingProcess } from '../../../src/cli/exit-when-done';
import { bundleCli } from '../files/helpers';

function fakeProcess(active: string[]): ExitingProcess & { events: EventEmitter; ticks: (() => void)[]; exits: number } {
  const events = new EventEmitter();
  const p = {
    events,
    ticks: [] as (() => void)[],
    exits: 0,
    prependListener: (event: 'beforeExit', listener: () => void) => events.prependListener(event, listener),
    nextTick: (fn: () => void) => void p.ticks.push(fn),
    getActiveResourcesInfo: () => [...active],
    exit: () => void p.exits++,
  };
  return p;
}

test('ends only after the other beforeExit listeners, and only when they started nothing', () => {
  // the pipe of a stderr that was written to stays open, waiting for nothing
  const active: string[] = ['PipeWrap'];
  const proc = fakeProcess(active);
  const order: string[] = [];
  proc.events.on('beforeExit', () => order.push('registered before'));
  exitWhenDone(proc);
  // registered later, as the service start is (once the snapshot is done); this one starts a read
  proc.events.on('beforeExit', () => {
    order.push(`service start (exits so far: ${proc.exits})`);
    active.push('FSReqCallback');
  });
  proc.events.emit('beforeExit');
  assert.equal(proc.exits, 0, 'not from inside the emit');
  for (const t of proc.ticks.splice(0)) t();
  assert.equal(proc.exits, 0, 'a listener started work: the loop goes on');
  assert.deepEqual(order, ['registered before', 'service start (exits so far: 0)']);
  // the read is done and the loop runs out again: this time the listeners start nothing
  active.pop();
  proc.events.removeAllListeners('beforeExit');
  exitWhenDone(proc);
  proc.events.emit('beforeExit');
  for (const t of proc.ticks.splice(0)) t();
  assert.equal(proc.exits, 1);
});

let dir: string;
let cli: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-exit-when-done-'));
  cli = bundleCli(join(dir, 'cli.js'));
  // says how the process ended: process.exit() goes through process.reallyExit, a natural exit does not
  writeFileSync(
    join(dir, 'how.cjs'),
    `const real = process.reallyExit; process.reallyExit = (code) => { require('node:fs').writeFileSync(process.env.HOW_FILE, 'process.exit ' + code); real.call(process, code); };`,
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const howFile = join(dir, 'how');
  rmSync(howFile, { force: true });
  const r = spawnSync(process.execPath, ['-r', join(dir, 'how.cjs'), cli, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, HOME: dir, AGENT_REWIND_HOME: join(dir, 'home'), AGENT_REWIND_SERVICE: 'off', HOW_FILE: howFile },
  });
  return { ...r, how: existsSync(howFile) ? readFileSync(howFile, 'utf8') : 'natural exit' };
}

test('the CLI ends through process.exit once done, with its own exit code and all of its output', () => {
  const help = run('--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: agent-rewind <command>[\s\S]*Settings used now: /);
  assert.equal(help.how, 'process.exit 0');
  const usage = run('snapshot');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /missing <session>/);
  assert.equal(usage.how, 'process.exit 2');
  const failed = run('snapshot', join(dir, 'missing.jsonl'), '--anchor', 'x');
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /session file not found/);
  assert.equal(failed.how, 'process.exit 1');
});
