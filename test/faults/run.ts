// Standing fault-injection suite (`npm run test:faults`): the built CLI (dist/cli.js) runs as real child processes
// while this runner kills them (SIGKILL) at random moments, damages the store, makes a path unwritable in the middle
// of a restore, swaps a folder for a symlink while a restore runs, lets two CLI processes write one session at once,
// snapshots and restores files named with bytes that are not valid UTF-8, has a dry run and the real rewind after it
// agree on a damaged store or a folder swapped for a symlink, and hands the readers hostile session files (paths out
// of the agent's folders, FIFOs, deep nesting, a spaced layout). After every trial it checks what the product
// promises (RELIABILITY.md):
//   - the workspace is exactly the state before or the state after the interrupted operation (bytes and modes);
//   - nothing outside the workspace changed (a sentinel folder beside it);
//   - every acknowledged session entry is in the session file;
//   - every acknowledged snapshot restores exactly, or (after store damage) is refused with a clear error;
//   - the next command works.
// Bounded: AGENT_REWIND_FAULT_TRIALS trials per kind (default 3: 70 trials, about 6 minutes, so that CI stays under 30 minutes; each
// run draws a new seed, so the runs add up; 10 or more for a soak). Each kind runs in a process of its own, two at a
// time (AGENT_REWIND_FAULT_PARALLEL; one runs them in this process), the slowest first: a trial mostly waits for one
// CLI process, so two keep two cores busy. AGENT_REWIND_FAULT_SEED replays a run, and a kind alone
// (AGENT_REWIND_FAULT_KINDS) with the same seed replays that kind's trials. Prints `N passed, M failed` and the counts of trials, kills, corruptions, races.
import { isUtf8 } from 'node:buffer';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join, relative, resolve } from 'node:path';
import { nameFromBytes } from '../../src/core/files/file-names';
import { displayPath } from '../../src/shared/display-path';
import { FileCheckpointer } from '../../src/core/files/file-checkpointer';
import { launcherScript } from '../../src/core/service/launcher-script';

const ROOT = resolve(__dirname, '../..');
const PER_KIND = Math.max(1, Number(process.env.AGENT_REWIND_FAULT_TRIALS ?? 3));
const SEED = Number(process.env.AGENT_REWIND_FAULT_SEED ?? Date.now() % 1_000_000);
const KEEP = process.env.AGENT_REWIND_FAULT_KEEP === '1';

// ── randomness (seeded, so a failing run can be replayed) ─────────────────────────────────────────────────────────
let state = SEED >>> 0 || 1;
function rand(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

// ── the CLI ───────────────────────────────────────────────────────────────────────────────────────────────────────
const BIN = mkdtempSync(join(tmpdir(), 'arw-faults-bin-'));
function installCli(): string {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build (npm run test:faults does)');
  for (const f of ['cli.js', 'cli-bundle.js', 'blob-thread-main.js', 'compaction-thread-main.js', 'sql-wasm.wasm'])
    if (existsSync(join(dist, f))) copyFileSync(join(dist, f), join(BIN, f));
  chmodSync(BIN, 0o755);
  for (const f of readdirSync(BIN)) chmodSync(join(BIN, f), 0o755);
  return join(BIN, 'cli.js');
}
const CLI = installCli();

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  json: any;
}
interface Who {
  uid?: number;
  gid?: number;
}
// no checkpoint service started behind a trial's back (the auto-service kind turns it on for its own)
const envFor = (t: Trial) => ({ ...process.env, HOME: t.base, AGENT_REWIND_HOME: '', AGENT_REWIND_DEBUG: '', AGENT_REWIND_SERVICE_AUTOSTART: 'off' });

/** Preloaded into a CLI process to stop it between two of its file-system steps (step trials). */
const KILL_AT_STEP = join(__dirname, 'kill-at-step.cjs');

function cli(t: Trial, args: string[], who: Who = t.who, stepEnv: Record<string, string> = {}): Run {
  const pre = Object.keys(stepEnv).length ? ['--require', KILL_AT_STEP] : [];
  const r = spawnSync(process.execPath, [...pre, CLI, ...args, '--home', t.home], {
    cwd: t.base,
    encoding: 'utf8',
    env: { ...envFor(t), ...stepEnv },
    timeout: 120_000,
    ...who,
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', json };
}

function cliChild(t: Trial, args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [CLI, ...args, '--home', t.home], { cwd: t.base, env: envFor(t), stdio: ['ignore', 'pipe', 'pipe'], ...t.who });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((res) =>
    child.on('close', (code, signal) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      res({ code, signal, stdout, stderr, json });
    }),
  );
  return { child, done };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ── workspaces ────────────────────────────────────────────────────────────────────────────────────────────────────
/** A path's bytes, exactly: its text when valid UTF-8, else its bytes in hex. */
const shown = (b: Buffer) => (isUtf8(b) ? b.toString('utf8') : `hex:${b.toString('hex')}`);

/** Every path under root: type, mode and content hash (or link target), sorted. Names (and link targets) are read as
 *  bytes, so a name that is not valid UTF-8 is compared exactly. */
function fingerprint(root: string): string[] {
  const out: string[] = [];
  const stack: Buffer[] = [Buffer.alloc(0)];
  const under = (rel: Buffer) => Buffer.concat([Buffer.from(root), rel.length ? Buffer.from('/') : Buffer.alloc(0), rel]);
  while (stack.length) {
    const rel = stack.pop()!;
    for (const name of readdirSync(under(rel), { encoding: 'buffer' })) {
      const r = rel.length ? Buffer.concat([rel, Buffer.from('/'), name]) : name;
      const p = under(r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.push(`${shown(r)} -> ${shown(readlinkSync(p, { encoding: 'buffer' }))}`);
      else if (st.isDirectory()) {
        out.push(`${shown(r)}/ ${(st.mode & 0o7777).toString(8)}`);
        stack.push(r);
      } else out.push(`${shown(r)} ${(st.mode & 0o7777).toString(8)} ${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`);
    }
  }
  return out.sort();
}
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
function diffOf(a: string[], b: string[]): string {
  const sa = new Set(a);
  const sb = new Set(b);
  return [...a.filter((x) => !sb.has(x)).map((x) => `-${x}`), ...b.filter((x) => !sa.has(x)).map((x) => `+${x}`)].slice(0, 8).join(', ');
}

function text(lines: number): string {
  let s = '';
  for (let i = 0; i < lines; i++) s += `line ${i} ${int(1e9).toString(36)}\n`;
  return s;
}

function writeInitial(ws: string): void {
  for (let d = 0; d < 6; d++) {
    mkdirSync(join(ws, `dir${d}`, 'sub'), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(ws, `dir${d}`, f % 4 === 0 ? `sub/f${f}.txt` : `f${f}.txt`), text(5 + int(60)));
  }
  writeFileSync(join(ws, 'bin.dat'), Buffer.from(Array.from({ length: 4096 }, () => int(256))));
  writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(ws, 'run.sh'), 0o755);
  symlinkSync('dir0/f1.txt', join(ws, 'link'));
}

/** Files that share lines, as source files do: compaction trains its dictionary on them (store-compaction.ts). */
function writeShared(ws: string): void {
  const pool = Array.from({ length: 24 }, (_, i) => `import { helper${i} } from '../lib/helper${i}';`);
  mkdirSync(join(ws, 'shared'), { recursive: true });
  for (let f = 0; f < 30; f++) writeFileSync(join(ws, 'shared', `s${f}.ts`), Array.from({ length: 40 }, () => pick(pool)).join('\n') + '\n');
}

/** The agent's work between two user messages: edits, deletions, new files, a mode change, a new folder. */
function agentWork(ws: string): void {
  for (let d = 0; d < 6; d++) {
    for (let f = 1; f < 20; f += 2) if (f % 4 !== 0) writeFileSync(join(ws, `dir${d}`, `f${f}.txt`), text(5 + int(60)));
    if (existsSync(join(ws, `dir${d}`, 'f2.txt'))) unlinkSync(join(ws, `dir${d}`, 'f2.txt'));
    writeFileSync(join(ws, `dir${d}`, `new${int(1000)}.txt`), text(10));
  }
  mkdirSync(join(ws, 'added', 'deep'), { recursive: true });
  writeFileSync(join(ws, 'added', 'deep', 'x.ts'), text(30));
  chmodSync(join(ws, 'run.sh'), 0o700);
}

// ── trials ────────────────────────────────────────────────────────────────────────────────────────────────────────
interface Trial {
  kind: string;
  n: number;
  base: string;
  ws: string;
  home: string;
  sentinel: string;
  sentinelPrint: string[];
  session: string;
  who: Who;
  /** Acknowledged entries (their command exited 0). */
  entries: string[];
  /** Acknowledged user-message snapshots and the workspace they hold. */
  snapshots: Map<string, string[]>;
  problems: string[];
  corrupted: boolean;
}

const totals = { trials: 0, passed: 0, failed: 0, kills: 0, corruptions: 0, races: 0 };
const failures: string[] = [];

function newTrial(kind: string, n: number, who: Who = {}): Trial {
  const base = mkdtempSync(join(tmpdir(), `arw-fault-${kind}-`));
  chmodSync(base, 0o755);
  const ws = join(base, 'ws');
  const sentinel = join(base, 'sentinel');
  mkdirSync(ws);
  mkdirSync(sentinel);
  writeFileSync(join(sentinel, 'keep.txt'), 'outside the workspace: never written\n');
  mkdirSync(join(sentinel, 'dir3'));
  writeFileSync(join(sentinel, 'dir3', 'f1.txt'), 'sentinel copy\n');
  writeInitial(ws);
  const t: Trial = {
    kind,
    n,
    base,
    ws,
    home: join(base, 'home'),
    sentinel,
    sentinelPrint: fingerprint(sentinel),
    session: '',
    who,
    entries: [],
    snapshots: new Map(),
    problems: [],
    corrupted: false,
  };
  return t;
}

function must(_t: Trial, what: string, r: Run): Run {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}${r.signal ? ` ${r.signal}` : ''}): ${r.stderr.trim().slice(0, 400)}`);
  return r;
}

/** A session with two acknowledged user-message snapshots: u1 (the initial files) and u2 (after the agent's work). */
function history(t: Trial, work: (ws: string) => void = agentWork): void {
  const made = must(t, 'new', cli(t, ['new', '--cwd', t.ws, '--json']));
  t.session = made.json.file;
  appendUser(t, 'u1');
  work(t.ws);
  must(t, 'append a1', cli(t, ['append', t.session, '--role', 'assistant', '--text', 'did it', '--id', 'a1', '--json']));
  t.entries.push('a1');
  appendUser(t, 'u2');
}

function appendUser(t: Trial, id: string): void {
  const print = fingerprint(t.ws);
  must(t, `append ${id}`, cli(t, ['append', t.session, '--role', 'user', '--text', `message ${id}`, '--id', id, '--json']));
  t.entries.push(id);
  t.snapshots.set(id, print);
}

const clear = (message: string) => message.trim().length > 0 && !/\n\s+at |Maximum call stack|TypeError|ReferenceError|undefined is not/.test(message);

/** The promises every trial ends with. `workspaceOneOf`: the states the workspace may be in after recovery. */
function checkInvariants(t: Trial, workspaceOneOf?: { name: string; print: string[] }[]): void {
  // recovery runs in the first command that takes the store lock: gc is one that changes nothing else
  const gc = cli(t, ['gc']);
  if (gc.code !== 0) t.problems.push(`gc after the fault failed: ${gc.stderr.trim().slice(0, 300)}`);
  if (workspaceOneOf) {
    const now = fingerprint(t.ws);
    if (!workspaceOneOf.some((s) => same(s.print, now)))
      t.problems.push(
        `the workspace is neither ${workspaceOneOf.map((s) => s.name).join(' nor ')}: ${workspaceOneOf.map((s) => `vs ${s.name}: ${diffOf(s.print, now)}`).join(' | ')}`,
      );
  }
  if (!same(fingerprint(t.sentinel), t.sentinelPrint))
    t.problems.push(`something outside the workspace changed: ${diffOf(t.sentinelPrint, fingerprint(t.sentinel))}`);
  const tree = cli(t, ['tree', t.session, '--json']);
  if (tree.code !== 0) t.problems.push(`the session cannot be read: ${tree.stderr.trim().slice(0, 300)}`);
  else {
    const ids = new Set<string>(tree.json.entries.map((e: { id: string }) => e.id));
    const lost = t.entries.filter((e) => !ids.has(e));
    if (lost.length) t.problems.push(`acknowledged entries lost: ${lost.join(', ')}`);
    const orphans = tree.json.entries.filter((e: { parentId: string | null }) => e.parentId !== null && !ids.has(e.parentId));
    if (orphans.length) t.problems.push(`entries whose parent is missing: ${orphans.map((e: { id: string }) => e.id).join(', ')}`);
  }
  // every acknowledged snapshot restores exactly (or, after damage to the store, is refused with a clear error)
  for (const [anchor, print] of t.snapshots) {
    // the whole snapshot: the user's changes and other sessions' (issue 27's attribution keeps them by default) too
    const r = cli(t, ['rewind-files', t.session, anchor, '--overwrite-user-modified', '--include-other-sessions', '--json']);
    if (r.code === 0) {
      const now = fingerprint(t.ws);
      if (!same(now, print)) t.problems.push(`the snapshot of ${anchor} restored something else: ${diffOf(print, now)}`);
    } else if (!t.corrupted) t.problems.push(`the acknowledged snapshot of ${anchor} does not restore: ${r.stderr.trim().slice(0, 300)}`);
    else if (!clear(r.stderr)) t.problems.push(`the snapshot of ${anchor} is refused without a clear error: ${r.stderr.trim().slice(0, 300)}`);
  }
  // and the next commands work
  const id = `next${t.entries.length}`;
  const next = cli(t, ['append', t.session, '--role', 'user', '--text', 'after the fault', '--id', id, '--json']);
  if (next.code !== 0) t.problems.push(`the next append failed: ${next.stderr.trim().slice(0, 300)}`);
  const gc2 = cli(t, ['gc']);
  if (gc2.code !== 0) t.problems.push(`the next gc failed: ${gc2.stderr.trim().slice(0, 300)}`);
}

/** How long an uninterrupted command of each kind took (the first trial of a kind runs without a kill). */
const durations = new Map<string, number>();

async function killDuring(t: Trial, key: string, args: string[]): Promise<{ killed: boolean; run: Run }> {
  const d = durations.get(key);
  const started = Date.now();
  const { child, done } = cliChild(t, args);
  let killed = false;
  if (d !== undefined) {
    const at = 20 + rand() * d * 1.1;
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) {
        killed = child.kill('SIGKILL');
      }
    }, at);
    const run = await done;
    clearTimeout(timer);
    if (killed) totals.kills++;
    return { killed: killed && run.signal === 'SIGKILL', run };
  }
  const run = await done;
  durations.set(key, Date.now() - started);
  return { killed: false, run };
}

/** A file's content changed in place with its size, mode and mtime kept, as `cp -p` / `touch -r` leave it. */
function editKeepingStamps(t: Trial, rel: string, how: 'touch-r' | 'cp-p'): void {
  const file = join(t.ws, rel);
  const old = readFileSync(file);
  const changed = Buffer.from(old);
  for (let i = 0; i < changed.length; i += 7) changed[i] = changed[i] === 0x78 ? 0x79 : 0x78;
  const ref = join(t.base, `stamp-${int(1e9)}`);
  if (how === 'touch-r') {
    spawnSync('cp', ['-p', file, ref]); // its stamps, before the edit
    writeFileSync(file, changed);
    spawnSync('touch', ['-r', ref, file]);
  } else {
    writeFileSync(ref, changed); // a backup of the same size with other content
    spawnSync('touch', ['-r', file, ref]);
    spawnSync('cp', ['-p', ref, file]);
  }
  rmSync(ref, { force: true });
}

/** `agent-rewind serve` for the trial's workspace; resolves once it listens (its first line says so) or exits. */
async function startService(t: Trial): Promise<{ child: ChildProcess; done: Promise<Run>; listening: boolean }> {
  const svc = cliChild(t, ['serve', '--workspace', t.ws, '--idle-minutes', '0']);
  let out = '';
  const listening = await new Promise<boolean>((resolve) => {
    svc.child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('socket:')) resolve(true);
    });
    void svc.done.then(() => resolve(false));
    setTimeout(() => resolve(false), 20_000);
  });
  return { ...svc, listening };
}

async function stopService(svc: { child: ChildProcess; done: Promise<Run> }): Promise<Run> {
  svc.child.kill('SIGCONT');
  svc.child.kill('SIGTERM');
  return svc.done;
}

const sockOf = (t: Trial) => join(t.home, 'service', 'sock');

const kinds: Record<string, (t: Trial) => Promise<void>> = {
  async 'kill-append'(t) {
    history(t);
    const print = fingerprint(t.ws);
    const { killed, run } = await killDuring(t, 'append', ['append', t.session, '--role', 'user', '--text', 'killed?', '--id', 'k1', '--json']);
    if (!killed && run.code === 0) {
      t.entries.push('k1');
      t.snapshots.set('k1', print);
    }
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  async 'kill-snapshot'(t) {
    history(t);
    writeFileSync(join(t.ws, 'dir1', 'f1.txt'), text(40));
    must(t, 'append u3', cli(t, ['append', t.session, '--role', 'user', '--text', 'u3', '--id', 'u3', '--no-snapshot', '--json']));
    t.entries.push('u3');
    const print = fingerprint(t.ws);
    const { killed, run } = await killDuring(t, 'snapshot', ['snapshot', t.session, '--anchor', 'u3', '--json']);
    if (!killed && run.code === 0) t.snapshots.set('u3', print);
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  async 'kill-rewind'(t) {
    history(t);
    const before = fingerprint(t.ws);
    const { killed, run } = await killDuring(t, 'rewind', ['rewind-files', t.session, 'u1', '--json']);
    if (!killed && run.code !== 0) t.problems.push(`the rewind failed without a kill: ${run.stderr.trim().slice(0, 300)}`);
    checkInvariants(t, [
      { name: 'before the rewind', print: before },
      { name: 'after the rewind', print: t.snapshots.get('u1')! },
    ]);
  },
  async 'kill-undo'(t) {
    history(t);
    const before = fingerprint(t.ws);
    must(t, 'rewind', cli(t, ['rewind-files', t.session, 'u1', '--json']));
    const rewound = fingerprint(t.ws);
    const { killed, run } = await killDuring(t, 'undo', ['undo-rewind', t.session, '--json']);
    if (!killed && run.code !== 0) t.problems.push(`the undo failed without a kill: ${run.stderr.trim().slice(0, 300)}`);
    checkInvariants(t, [
      { name: 'rewound (undo not applied)', print: rewound },
      { name: 'undone', print: before },
    ]);
  },
  async 'kill-gc'(t) {
    history(t);
    must(t, 'rewind', cli(t, ['rewind-files', t.session, 'u1', '--json']));
    must(t, 'undo', cli(t, ['undo-rewind', t.session, '--json'])); // leaves garbage for gc
    const print = fingerprint(t.ws);
    await killDuring(t, 'gc', ['gc', '--json']);
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  async 'timeline-damage'(t) {
    // the folder's timeline (issue 27) is an index of the snapshot records: damaged, cut short or lost, the dry run
    // must still say who changed each file exactly as before, gc must write it whole again, and nothing else changes
    history(t);
    agentWork(t.ws);
    must(t, 'append a2', cli(t, ['append', t.session, '--role', 'assistant', '--text', 'did more', '--id', 'a2', '--json']));
    t.entries.push('a2');
    writeFileSync(join(t.ws, 'by-hand.txt'), text(5)); // after the turn ended: the user's
    const print = fingerprint(t.ws);
    const who = (when: string): string[] => {
      const r = cli(t, ['rewind-files', t.session, 'u1', '--dry-run', '--json']);
      if (r.code !== 0) {
        t.problems.push(`the dry run ${when} failed: ${r.stderr.trim().slice(0, 300)}`);
        return [];
      }
      return (r.json.files as { path: string; changedBy?: string }[]).map((f) => `${f.path}:${f.changedBy}`);
    };
    const before = who('before the damage');
    if (!before.some((w) => w.endsWith(':this-session')) || !before.some((w) => w.endsWith(':user')))
      t.problems.push(`the dry run does not tell the agent's files from the user's: ${before.join(' ')}`);
    // and each changed file's history and blame, which read the timeline's changed-path index too
    const changedFiles = [...new Set(before.map((w) => w.slice(0, w.lastIndexOf(':'))))].slice(0, 4);
    const histories = (when: string): string => {
      const out: string[] = [];
      for (const f of changedFiles)
        for (const command of ['history', 'blame']) {
          const r = cli(t, [command, join(t.ws, f), '--workspace', t.ws, '--json']);
          if (r.code !== 0) t.problems.push(`${command} ${f} ${when} failed: ${r.stderr.trim().slice(0, 300)}`);
          out.push(r.stdout);
        }
      return out.join('\n');
    };
    const historiesBefore = histories('before the damage');
    const store = readdirSync(join(t.home, 'checkpoints')).map((d) => join(t.home, 'checkpoints', d))[0]!;
    const file = join(store, 'timeline.jsonl');
    const index = join(store, 'timeline-changes.jsonl');
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
    const how = pick(['flip', 'truncate', 'delete', 'garbage'] as const);
    const which = pick(['timeline', 'index', 'both'] as const);
    (t as Trial & { note?: string }).note = `${how} ${which}`;
    const damage = (f: string) => {
      if (how === 'delete') unlinkSync(f);
      else if (how === 'truncate') truncateSync(f, int(statSync(f).size));
      else if (how === 'garbage') writeFileSync(f, readFileSync(f, 'utf8') + '0badc0de {"session":"x"\n', { flag: 'w' });
      else {
        const buf = readFileSync(f);
        const at = int(buf.length);
        buf[at] = buf[at] === 0x30 ? 0x31 : 0x30;
        writeFileSync(f, buf);
      }
    };
    if (which !== 'index') damage(file);
    if (which !== 'timeline' && existsSync(index)) damage(index);
    const damaged = who(`after the timeline was damaged (${how} ${which})`);
    if (damaged.join(' ') !== before.join(' ')) t.problems.push(`after ${how} the dry run says ${damaged.join(' ')} instead of ${before.join(' ')}`);
    if (histories(`after ${how} ${which}`) !== historiesBefore) t.problems.push(`after ${how} ${which} history or blame of ${changedFiles.join(', ')} changed`);
    const gc = cli(t, ['gc']);
    if (gc.code !== 0) t.problems.push(`gc after the damage failed: ${gc.stderr.trim().slice(0, 300)}`);
    const mended = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
    if (mended !== lines) t.problems.push(`gc left the timeline with ${mended} points where it had ${lines}`);
    const after = who('after gc');
    if (after.join(' ') !== before.join(' ')) t.problems.push(`after gc the dry run says ${after.join(' ')} instead of ${before.join(' ')}`);
    if (histories('after gc') !== historiesBefore) t.problems.push(`after gc history or blame of ${changedFiles.join(', ')} changed`);
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  async 'kill-compaction'(t) {
    // gc compacts what it keeps (store-compaction.ts): killed while the blobs are recompressed, or while the new packs
    // are put in place and the old removed, the store must still hold every snapshot
    writeShared(t.ws);
    history(t);
    agentWork(t.ws);
    appendUser(t, 'u3');
    const print = fingerprint(t.ws);
    await killDuring(t, 'compaction', ['gc', '--json']);
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  async 'corrupt-compacted'(t) {
    // damage to a compacted pack or its index: as with any pack, what survives restores and what does not is refused
    // with a clear error; damage to one of the two copies of its dictionary loses nothing
    writeShared(t.ws);
    history(t);
    must(t, 'gc', cli(t, ['gc', '--json']));
    const packs = join(readdirSync(join(t.home, 'checkpoints')).map((d) => join(t.home, 'checkpoints', d))[0]!, 'packs');
    const compacted = readdirSync(packs).filter((n) => /-c\.(pack|idx)$/.test(n));
    if (compacted.length === 0) throw new Error('gc left no compacted pack');
    const pack = join(
      packs,
      compacted.find((n) => n.endsWith('.pack'))!,
    );
    const packBuf = readFileSync(pack);
    if ((packBuf.readUInt32BE(8 + 40) & 8) === 0) throw new Error('the compacted pack does not start with its dictionary');
    // the dictionary is written first (the magic (8) and its header (44), then its bytes) and again last
    const dictLength = packBuf.readUInt32BE(8 + 32);
    const lastDict = packBuf.length - dictLength;
    if (lastDict < 52 || !packBuf.subarray(8, 52).equals(packBuf.subarray(lastDict - 44, lastDict)))
      throw new Error('the compacted pack does not end with a copy of its dictionary');
    const how = pick(['flip', 'flip-dictionary', 'flip-last-dictionary', 'truncate-dictionary', 'truncate', 'delete'] as const);
    const dictOnly = how.endsWith('-dictionary');
    const victim = dictOnly ? pack : join(packs, pick(compacted));
    const size = statSync(victim).size;
    if (how === 'delete') unlinkSync(victim);
    else if (how === 'truncate') truncateSync(victim, int(Math.max(1, size)));
    else if (how === 'truncate-dictionary') truncateSync(victim, lastDict - 44 + int(44 + dictLength));
    else {
      const buf = readFileSync(victim);
      const at = how === 'flip' ? int(buf.length) : (how === 'flip-dictionary' ? 52 : lastDict) + int(dictLength);
      if (buf.length) buf[at]! ^= 1 << int(8);
      writeFileSync(victim, buf);
    }
    // one copy of the dictionary damaged: every snapshot must still restore exactly
    t.corrupted = !dictOnly;
    totals.corruptions++;
    (t as Trial & { note?: string }).note = `${how} ${relative(t.home, victim)}`;
    appendUser(t, 'after-damage');
    checkInvariants(t);
  },
  async corruption(t) {
    history(t);
    must(t, 'rewind', cli(t, ['rewind-files', t.session, 'u1', '--json'])); // an undo record and a pre-restore snapshot
    const storeRoot = join(t.home, 'checkpoints');
    const files: string[] = [];
    const stack = [storeRoot];
    while (stack.length) {
      const d = stack.pop()!;
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) stack.push(p);
        else if (!name.endsWith('.lock') && name !== 'lock') files.push(p);
      }
    }
    const targets = files.filter((f) => /\.(pack|idx|json|bin)$/.test(f));
    const victim = pick(targets);
    const size = statSync(victim).size;
    const how = pick(['flip', 'truncate', 'delete'] as const);
    if (how === 'delete') unlinkSync(victim);
    else if (how === 'truncate') truncateSync(victim, int(Math.max(1, size)));
    else {
      const buf = readFileSync(victim);
      if (buf.length) buf[int(buf.length)]! ^= 1 << int(8);
      writeFileSync(victim, buf);
    }
    t.corrupted = true;
    totals.corruptions++;
    (t as Trial & { note?: string }).note = `${how} ${relative(t.home, victim)}`;
    // the next snapshot works
    appendUser(t, 'after-damage');
    checkInvariants(t);
  },
  async 'preview-agrees'(t) {
    // the dry run says what the real run then does: after damage the real run repairs (under the store lock) before it
    // plans, and a folder on the way may be a symlink now. Both run as fresh CLI processes, as a user runs them
    history(t);
    const packDir = join(t.home, 'checkpoints');
    const store = readdirSync(packDir).find((d) => existsSync(join(packDir, d, 'packs')))!;
    const packs = join(packDir, store, 'packs');
    const names = readdirSync(packs).filter((n) => n.endsWith('.pack'));
    const pack = join(packs, pick(names)).slice(0, -5);
    const how = pick(['delete-idx', 'truncate-idx', 'flip-idx', 'truncate-pack', 'flip-pack', 'marker', 'symlinked-parent', 'symlinked-parent'] as const);
    if (how === 'symlinked-parent') {
      const dir = pick(['dir3', 'dir3/sub', 'dir0/sub']);
      rmSync(join(t.ws, dir), { recursive: true });
      symlinkSync(t.sentinel, join(t.ws, dir));
      (t as Trial & { note?: string }).note = `${dir} is a symlink to the sentinel folder`;
    } else {
      const file = how.endsWith('-idx') ? pack + '.idx' : pack + '.pack';
      const size = statSync(file).size;
      if (how === 'marker') writeFileSync(pack + '.damaged', 'x\n');
      else if (how === 'delete-idx') unlinkSync(file);
      else if (how.startsWith('truncate')) truncateSync(file, int(Math.max(1, size)));
      else {
        const buf = readFileSync(file);
        buf[int(buf.length)]! ^= 1 << int(8);
        writeFileSync(file, buf);
      }
      t.corrupted = true;
      totals.corruptions++;
      (t as Trial & { note?: string }).note = `${how} ${relative(t.home, file)}`;
    }
    const anchor = pick(['u1', 'u2']);
    const dry = cli(t, ['rewind-files', t.session, anchor, '--dry-run', '--overwrite-user-modified', '--json']);
    const real = cli(t, ['rewind-files', t.session, anchor, '--overwrite-user-modified', '--json']);
    (t as Trial & { note?: string }).note += `; ${anchor}: ${real.code === 0 ? `rewound ${real.json?.filesChanged?.length} files` : 'refused'}`;
    // a dry run that cannot rewind is an error as the real one is (stderr, exit 1), with the same reason
    const reasonOf = (r: Run) =>
      r.stderr
        .trim()
        .replace(/^agent-rewind rewind-files: /, '')
        .replace(/^Cannot preview the rewind: /, '');
    if (dry.code !== 0) {
      const reason = reasonOf(dry);
      if (real.code === 0) t.problems.push(`the dry run refused (${reason.slice(0, 200)}), the real run rewound`);
      else if (!reasonOf(real).includes(reason))
        t.problems.push(`the dry run refused with "${reason.slice(0, 200)}", the real run with "${reasonOf(real).slice(0, 200)}"`);
    } else if (!dry.json?.canRewind) t.problems.push(`the dry run exited 0 without a result it can rewind: ${dry.stdout.slice(0, 300)}`);
    else if (real.code !== 0) t.problems.push(`the dry run said it can rewind, the real run refused: ${real.stderr.trim().slice(0, 300)}`);
    else
      for (const k of ['filesChanged', 'insertions', 'deletions'] as const)
        if (JSON.stringify(dry.json[k]) !== JSON.stringify(real.json[k]))
          t.problems.push(
            `the dry run's ${k} (${JSON.stringify(dry.json[k]).slice(0, 200)}) is not the real run's (${JSON.stringify(real.json[k]).slice(0, 200)})`,
          );
    if (how === 'symlinked-parent') {
      // the promises that follow rewind to each snapshot: a refused rewind leaves the link, which is then taken away
      for (const dir of ['dir3', 'dir3/sub', 'dir0/sub'])
        if (lstatSync(join(t.ws, dir), { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(join(t.ws, dir));
    }
    checkInvariants(t);
  },
  async 'non-utf8-names'(t) {
    // files, a folder and a link target named with bytes that are not valid UTF-8 (random ones each trial) come back
    // exactly: every snapshot's rewind below compares names and targets byte for byte (fingerprint)
    const stray = () => Buffer.from(Array.from({ length: 1 + int(4) }, () => (rand() < 0.6 ? 0x80 + int(0x80) : 0x61 + int(26))).concat([0xff - int(0x3f)]));
    const at = (...parts: (string | Buffer)[]) => Buffer.concat([Buffer.from(t.ws + '/'), ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))]);
    const [a, folder, b, c] = [stray(), stray(), stray(), stray()];
    writeFileSync(at(a), text(10));
    mkdirSync(at(folder));
    writeFileSync(at(folder, '/', b), text(20));
    writeFileSync(at('dir1/', c, '.txt'), text(5));
    symlinkSync(at(folder, '/', b), at('link-', a));
    history(t); // u1 holds them; the agent's work, then u2
    writeFileSync(at(a), text(12));
    rmSync(at(folder), { recursive: true });
    writeFileSync(at('dir2/', b), text(3));
    appendUser(t, 'u3');
    const dry = cli(t, ['rewind-files', t.session, 'u1', '--dry-run', '--overwrite-user-modified']);
    const name = displayPath(nameFromBytes(a)); // as the CLI shows it
    if (dry.code !== 0) t.problems.push(`the dry run failed: ${dry.stderr.trim().slice(0, 300)}`);
    else if (!dry.stdout.includes(`  ${name}  +`) || dry.stdout.includes('\uFFFD'))
      t.problems.push(`the dry run does not show ${name} (each stray byte as \\xNN): ${dry.stdout.slice(0, 600)}`);
    (t as Trial & { note?: string }).note = `names ${[a, folder, b, c].map(shown).join(', ')}`;
    checkInvariants(t);
  },
  async 'permission-restore'(t) {
    // a folder the CLI (running as nobody) cannot write: the restore cannot finish
    history(t);
    chownTree(t.base, t.who.uid!, t.who.gid!); // what this runner wrote belongs to the CLI's user too
    const locked = join(t.ws, 'locked');
    const before = fingerprint(t.ws);
    const u1 = t.snapshots.get('u1')!;
    if (existsSync(locked)) rmSync(locked, { recursive: true });
    mkdirSync(locked);
    writeFileSync(join(locked, 'f.txt'), 'written at u1\n');
    // u1' = u1 + locked/f.txt as it was; then the agent changes it, and the folder is made unwritable for nobody
    appendUser(t, 'u1p');
    const atU1p = fingerprint(t.ws);
    writeFileSync(join(locked, 'f.txt'), 'changed by the agent\n');
    must(t, 'append u2p', cli(t, ['append', t.session, '--role', 'user', '--text', 'u2p', '--id', 'u2p', '--json']));
    t.entries.push('u2p');
    const beforeRestore = fingerprint(t.ws);
    t.snapshots.set('u2p', beforeRestore);
    chownSync(locked, 0, 0);
    chownSync(join(locked, 'f.txt'), 0, 0);
    chmodSync(locked, 0o755);
    const run = cli(t, ['rewind-files', t.session, 'u1p', '--overwrite-user-modified', '--json']);
    const now = fingerprint(t.ws);
    (t as Trial & { note?: string }).note =
      run.code === 0
        ? 'restore completed'
        : `restore refused: ${run.stderr.trim().split('\n')[0]!.slice(0, 120)}; ${same(now, beforeRestore) ? 'rolled back' : 'NOT rolled back'}`;
    if (run.code === 0 && !same(now, atU1p)) t.problems.push(`the rewind reported success but the workspace is not the snapshot: ${diffOf(atU1p, now)}`);
    if (run.code !== 0 && !clear(run.stderr)) t.problems.push(`the refused rewind gives no clear error: ${run.stderr.slice(0, 300)}`);
    if (!same(now, beforeRestore) && !same(now, atU1p))
      t.problems.push(`after a failed restore the workspace is neither before nor after: vs before: ${diffOf(beforeRestore, now)}`);
    // give the folder back, then the usual promises (snapshots of u1 and u2 predate the locked folder)
    chownSync(locked, t.who.uid!, t.who.gid!);
    chownSync(join(locked, 'f.txt'), t.who.uid!, t.who.gid!);
    t.snapshots.delete('u1');
    t.snapshots.delete('u2');
    void before;
    void u1;
    checkInvariants(t);
  },
  async 'symlink-race'(t) {
    history(t);
    const target = join(t.ws, 'dir3');
    const real = join(t.ws, 'dir3.real');
    const { child, done } = cliChild(t, ['rewind-files', t.session, 'u1', '--overwrite-user-modified', '--json']);
    let swaps = 0;
    let running = true;
    void done.then(() => (running = false));
    // swap dir3 for a symlink to the sentinel folder and back, as fast as we can, while the restore runs
    while (running) {
      try {
        renameSync(target, real);
        symlinkSync(t.sentinel, target);
        swaps++;
        await sleep(int(3));
        unlinkSync(target);
        renameSync(real, target);
      } catch {
        /* the restore moved something meanwhile */
      }
      await sleep(int(2));
    }
    await done;
    void child;
    // put dir3 back if the race left it swapped
    try {
      if (lstatSync(target).isSymbolicLink()) unlinkSync(target);
    } catch {
      /* gone */
    }
    if (existsSync(real) && !existsSync(target)) renameSync(real, target);
    totals.races++;
    (t as Trial & { note?: string }).note = `${swaps} swaps`;
    if (!same(fingerprint(t.sentinel), t.sentinelPrint))
      t.problems.push(`the restore wrote outside the workspace through the swapped symlink: ${diffOf(t.sentinelPrint, fingerprint(t.sentinel))}`);
    checkInvariants(t);
  },
  async 'preserved-stamps'(t) {
    // edits that keep size and mtime (touch -r, cp -p) and an entry added to a folder whose mtime is put back (tar x),
    // between two prompts: the next prompt's snapshot, by a fresh CLI process through the stat cache, holds them
    history(t);
    await sleep(2200); // past the stat cache's racy window: the files look written a while ago
    appendUser(t, 'u2b'); // re-reads what was racy; from here the cache trusts every file
    const files = readdirSync(join(t.ws, 'dir3')).filter((n) => n.endsWith('.txt'));
    editKeepingStamps(t, `dir3/${pick(files)}`, 'touch-r');
    editKeepingStamps(t, `dir4/${pick(readdirSync(join(t.ws, 'dir4')).filter((n) => n.endsWith('.txt')))}`, 'cp-p');
    const dir = join(t.ws, 'dir5');
    const dirStamp = join(t.base, 'dir-stamp');
    writeFileSync(dirStamp, '');
    spawnSync('touch', ['-r', dir, dirStamp]);
    writeFileSync(join(dir, `from-tar-${int(1000)}.txt`), text(8));
    spawnSync('touch', ['-r', dirStamp, dir]);
    (t as Trial & { note?: string }).note = 'touch -r, cp -p, tar x';
    appendUser(t, 'u3');
    checkInvariants(t); // every snapshot, u3's included, restores exactly what the workspace held
  },
  async 'two-services'(t) {
    // two `serve` started at the same moment on one home: one runs, the other is refused; stopping the one leaves no
    // socket and no service
    history(t);
    const [a, b] = await Promise.all([startService(t), startService(t)]);
    totals.races++;
    const both = [a, b];
    const running = both.filter((s) => s.listening && s.child.exitCode === null);
    if (running.length !== 1) t.problems.push(`${running.length} services listening on one home`);
    for (const s of both.filter((x) => !running.includes(x))) {
      const r = await Promise.race([s.done, sleep(5000).then(() => undefined)]);
      if (!r) t.problems.push('the second service neither listens nor exits');
      else if (r.code !== 1 || !/already running for this home/.test(r.stderr))
        t.problems.push(`the second service did not refuse clearly: exit ${r.code}: ${r.stderr.trim().slice(0, 200)}`);
    }
    if (!existsSync(sockOf(t))) t.problems.push('a service runs without its socket');
    appendUser(t, 'u3'); // a snapshot, through the running service
    for (const s of both) if (s.child.exitCode === null) await stopService(s);
    if (existsSync(sockOf(t))) t.problems.push('the stopped service left its socket');
    (t as Trial & { note?: string }).note = `${running.length} listening`;
    checkInvariants(t);
  },
  async 'late-service'(t) {
    // the service stopped (SIGSTOP) while a rewind and a prompt's snapshot are asked of it: the CLI gives up on both
    // (the snapshot is then taken by the CLI itself), the agent goes on editing, and the service resumes: it must not
    // apply the rewind nor record a snapshot then
    history(t);
    must(t, 'append u3', cli(t, ['append', t.session, '--role', 'user', '--text', 'u3', '--id', 'u3', '--no-snapshot', '--json']));
    t.entries.push('u3');
    const svc = await startService(t);
    if (!svc.listening) throw new Error('the service did not start');
    const atPrompt = fingerprint(t.ws);
    svc.child.kill('SIGSTOP');
    const rewind = cliChild(t, ['rewind-files', t.session, 'u1', '--json']);
    const snap = cliChild(t, ['snapshot', t.session, '--anchor', 'u3', '--json']);
    const [rw, sn] = await Promise.all([rewind.done, snap.done]);
    if (rw.code === 0) t.problems.push('the rewind reported success although the service was stopped');
    else if (!/may or may not/.test(rw.stderr)) t.problems.push(`the rewind gave up without saying so: ${rw.stderr.trim().slice(0, 200)}`);
    if (sn.code === 0) t.snapshots.set('u3', atPrompt);
    else t.problems.push(`the snapshot was not taken by the CLI itself: ${sn.stderr.trim().slice(0, 200)}`);
    agentWork(t.ws); // the prompt goes on
    const edited = fingerprint(t.ws);
    svc.child.kill('SIGCONT');
    await sleep(1500 + int(1500)); // the service reads both requests now
    await stopService(svc);
    totals.races++;
    if (!same(fingerprint(t.ws), edited)) t.problems.push(`the service acted after the CLI gave up: ${diffOf(edited, fingerprint(t.ws))}`);
    checkInvariants(t, [{ name: 'as the agent left it', print: edited }]);
  },
  'auto-service': autoService,
  // Files and branch move together (RELIABILITY.md): rewind --files, undo-rewind and redo-rewind stopped by SIGKILL
  // between every two of their file-system steps; the next undo and redo must find files and branch both at the old
  // state or both at the new one, and go from one to the other.
  'kill-steps-rewind': (t) => killAtEveryStep(t, 'rewind'),
  'kill-steps-undo': (t) => killAtEveryStep(t, 'undo'),
  'kill-steps-redo': (t) => killAtEveryStep(t, 'redo'),
  'kill-partial': killPartial,
  'kill-preview': killThenPreview,
  async 'concurrent-writers'(t) {
    const made = must(t, 'new', cli(t, ['new', '--cwd', t.ws, '--json']));
    t.session = made.json.file;
    const rounds = 4;
    const writer = async (name: string) => {
      for (let i = 0; i < rounds; i++) {
        const role = i % 2 === 0 ? 'user' : 'assistant';
        const id = `${name}${i}`;
        const { done } = cliChild(t, ['append', t.session, '--role', role, '--text', `${name} ${i}`, '--id', id, '--json']);
        const r = await done;
        if (r.code === 0) t.entries.push(id);
        else t.problems.push(`concurrent append ${id} failed: ${r.stderr.trim().slice(0, 300)}`);
      }
    };
    await Promise.all([writer('p'), writer('q')]);
    totals.races++;
    // the workspace did not change: every acknowledged user message's snapshot is the initial state
    const print = fingerprint(t.ws);
    for (const id of t.entries) if (/^[pq][02]$/.test(id)) t.snapshots.set(id, print);
    checkInvariants(t, [{ name: 'unchanged', print }]);
  },
  'hostile-sessions': hostileSessions,
};

/** The checkpoint services of a trial's home that run now (auto-started ones are nobody's child here): found by their
 *  command line, so that one still starting is found too. */
function servicesOf(t: Trial): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout ?? '';
  return ps
    .split('\n')
    .filter((l) => l.includes(' serve --auto ') && l.includes(`--home ${t.home}`))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid !== process.pid && Number.isInteger(pid));
}

/**
 * Issue 26: the service the hooks start themselves, SIGKILLed at random moments (starting up, between requests, in
 * the middle of a prompt's snapshot) while prompts keep coming, alternately as Claude Code hooks through the launcher
 * (sh + perl to the service, else the Node hook) and as `append` of a user message (a CLI command that snapshots).
 * Every prompt acknowledged (the hook exited, the append exited 0) must restore exactly what the workspace held at
 * it, whoever took it (the service, or the process itself after the service died under it), and the next commands
 * must work. Auto-start is on for these prompts only; the home's settings give the services a 1-minute idle time so
 * a trial that failed leaves nothing running for long, and every service of the home is killed at the end.
 */
async function autoService(t: Trial): Promise<void> {
  history(t);
  mkdirSync(t.home, { recursive: true });
  writeFileSync(join(t.home, 'config.json'), JSON.stringify({ checkpointService: { idleMinutes: 1 } }));
  const launcher = join(t.base, 'agent-rewind');
  writeFileSync(launcher, launcherScript({ cliJs: CLI, runtime: process.execPath, runtimeKind: 'node', writtenBy: 'the fault suite' }), { mode: 0o755 });
  const env = { ...envFor(t), AGENT_REWIND_HOME: t.home, AGENT_REWIND_SERVICE_AUTOSTART: 'on', CLAUDE_PROJECT_DIR: t.ws };
  const claudeSession = 'a0c1d2e3-0000-4000-8000-00000000fa17';
  const hookPrints = new Map<string, string[]>();
  const run = (cmd: string, args: string[], input?: string) =>
    new Promise<number | null>((resolve) => {
      const c = spawn(cmd, args, { cwd: t.ws, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
      let err = '';
      c.stderr!.on('data', (d) => (err += d));
      if (input !== undefined) c.stdin!.end(input);
      c.on('close', (code) => {
        if (code !== 0) t.problems.push(`${args.slice(0, 2).join(' ')} exited ${code}: ${err.trim().slice(0, 200)}`);
        resolve(code);
      });
    });
  const rounds = 6 + int(5);
  let killed = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      agentWork(t.ws);
      const print = fingerprint(t.ws);
      const asHook = i % 2 === 0;
      const id = asHook ? `h${i}` : `s${i}`;
      // somewhere in the next 0.6 s: while the service starts (after the last prompt), waits, or takes this snapshot
      const killer = setTimeout(() => {
        for (const pid of servicesOf(t)) {
          try {
            process.kill(pid, 'SIGKILL');
            killed++;
            totals.kills++;
          } catch {
            /* gone already */
          }
        }
      }, int(600));
      const input = JSON.stringify({
        hook_event_name: 'UserPromptSubmit',
        session_id: claudeSession,
        prompt_id: id,
        prompt: id,
        cwd: t.ws,
        transcript_path: '',
      });
      const code = asHook
        ? await run('/bin/sh', [launcher, 'hook', 'claude'], input)
        : await run(process.execPath, [CLI, 'append', t.session, '--role', 'user', '--text', `message ${id}`, '--id', id, '--json', '--home', t.home]);
      clearTimeout(killer);
      if (code === 0 && asHook) hookPrints.set(id, print);
      if (code === 0 && !asHook) {
        t.entries.push(id);
        t.snapshots.set(id, print);
      }
      await sleep(int(400)); // the agent's turn: the service the prompt started comes up, or is killed coming up
    }
  } finally {
    for (const pid of servicesOf(t)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  const log = join(t.home, 'logs', 'service.log');
  const started = existsSync(log) ? (readFileSync(log, 'utf8').match(/ started for /g) ?? []).length : 0;
  (t as Trial & { note?: string }).note = `${rounds} prompts, ${started} services started, ${killed} killed`;
  // a service killed before it logged its start was started by a prompt all the same (ps found it): on a loaded machine
  // every one of a trial's services can be killed while it still starts, which is one of the moments this kind wants
  if (started === 0 && killed === 0) t.problems.push('no prompt started a service');
  totals.races++;
  // each hook's snapshot restores exactly what the workspace held at its prompt (through the store, as a rewind does)
  for (const [id, print] of hookPrints) {
    const fc = new FileCheckpointer({ workspaceRoot: t.ws, home: t.home });
    try {
      await fc.rewindFiles(claudeSession, id, {
        anchor: { checkpointingEnabled: true, kind: 'user-message' },
        overwriteUserModified: true,
        includeOtherSessions: true,
      });
      const now = fingerprint(t.ws);
      if (!same(now, print)) t.problems.push(`the hook snapshot of ${id} restored something else: ${diffOf(print, now)}`);
    } catch (err) {
      t.problems.push(`the hook snapshot of ${id} does not restore: ${(err as Error).message.slice(0, 200)}`);
    } finally {
      await fc.dispose();
    }
  }
  checkInvariants(t); // and every append's snapshot, the session, the next commands
  if (servicesOf(t).length) t.problems.push('a service of the trial still runs after the checks');
}

/** The kinds that run once, each going through every step of its command (the others run PER_KIND random trials). */
const EVERY_STEP_KINDS = new Set(['kill-steps-rewind', 'kill-steps-undo', 'kill-steps-redo']);

/** A small workspace whose rewind unlinks, renames, creates folders and changes a mode: a few dozen steps. */
function smallHistory(t: Trial): void {
  rmSync(t.ws, { recursive: true, force: true });
  mkdirSync(join(t.ws, 'dir'), { recursive: true });
  writeFileSync(join(t.ws, 'a.txt'), 'a at u1\n');
  writeFileSync(join(t.ws, 'dir', 'b.txt'), 'b at u1\n');
  writeFileSync(join(t.ws, 'run.sh'), '#!/bin/sh\n');
  chmodSync(join(t.ws, 'run.sh'), 0o755);
  const made = must(t, 'new', cli(t, ['new', '--cwd', t.ws, '--json']));
  t.session = made.json.file;
  appendUser(t, 'u1');
  writeFileSync(join(t.ws, 'a.txt'), 'a after the agent\n');
  unlinkSync(join(t.ws, 'dir', 'b.txt'));
  mkdirSync(join(t.ws, 'new', 'deep'), { recursive: true });
  writeFileSync(join(t.ws, 'new', 'deep', 'c.txt'), 'c made by the agent\n');
  chmodSync(join(t.ws, 'run.sh'), 0o700);
  must(t, 'append a1', cli(t, ['append', t.session, '--role', 'assistant', '--text', 'did it', '--id', 'a1', '--json']));
  t.entries.push('a1');
  appendUser(t, 'u2');
}

interface SessionState {
  files: string[];
  branch: string;
}

function stateOf(t: Trial): SessionState {
  const branches = cli(t, ['branches', t.session, '--json']);
  const active = branches.code === 0 ? (branches.json as { name: string; isActive: boolean }[]).find((b) => b.isActive)?.name : undefined;
  return { files: fingerprint(t.ws), branch: active ?? `(cannot read the branches: ${branches.stderr.trim().slice(0, 200)})` };
}

const sameState = (a: SessionState, b: SessionState) => a.branch === b.branch && same(a.files, b.files);
const nameOf = (s: SessionState, old: SessionState, now: SessionState) =>
  sameState(s, old)
    ? 'old'
    : sameState(s, now)
      ? 'new'
      : `files ${same(s.files, old.files) ? 'old' : same(s.files, now.files) ? 'new' : 'of neither'} on branch ${s.branch}`;

/**
 * One command (rewind --files to u1, its undo, or its redo) killed before each of its file-system steps in turn, from
 * the same starting point each time (the trial's folder copied back). After each kill the next undo-rewind must leave
 * files and branch together at the state before the rewind, and the redo-rewind after it at the state after (a rewind
 * rolled back by recovery leaves nothing to redo, and redo then refuses without changing anything).
 */
async function killAtEveryStep(t: Trial, which: 'rewind' | 'undo' | 'redo'): Promise<void> {
  smallHistory(t);
  const old = stateOf(t); // before the rewind: the files of u2, branch main
  const args = {
    rewind: ['rewind', t.session, 'u1', '--files', '--json'],
    undo: ['undo-rewind', t.session, '--json'],
    redo: ['redo-rewind', t.session, '--json'],
  }[which];
  if (which !== 'rewind') must(t, 'rewind', cli(t, ['rewind', t.session, 'u1', '--files', '--json']));
  const rewound = which === 'rewind' ? undefined : stateOf(t);
  if (which === 'redo') must(t, 'undo', cli(t, ['undo-rewind', t.session, '--json']));
  const template = `${t.base}.start`;
  const restoreStart = () => {
    rmSync(t.base, { recursive: true, force: true });
    spawnSync('cp', ['-a', template, t.base]);
  };
  spawnSync('cp', ['-a', t.base, template]);
  try {
    const countFile = join(tmpdir(), `arw-steps-${process.pid}-${which}`);
    must(t, `${which} (counting its steps)`, cli(t, args, t.who, { AGENT_REWIND_FAULT_COUNT: countFile }));
    const steps = Number(readFileSync(countFile, 'utf8'));
    rmSync(countFile, { force: true });
    // the state after the rewind: what the counting run left (rewind, redo) or what the rewind before the undo did
    const states = { old, new: rewound ?? stateOf(t) };
    let killed = 0;
    const outcomes = new Map<string, number>();
    for (let step = 1; step <= steps; step++) {
      restoreStart();
      const run = cli(t, args, t.who, { AGENT_REWIND_FAULT_KILL_AT: String(step) });
      if (run.signal !== 'SIGKILL') {
        t.problems.push(`step ${step}: the ${which} was not stopped (exit ${run.code}): ${run.stderr.trim().slice(0, 200)}`);
        continue;
      }
      killed++;
      totals.kills++;
      const undo = cli(t, ['undo-rewind', t.session, '--json']);
      const afterUndo = stateOf(t);
      if (!sameState(afterUndo, states.old))
        t.problems.push(
          `step ${step}: after the kill, undo-rewind (exit ${undo.code}) left ${nameOf(afterUndo, states.old, states.new)}, not the state before the rewind`,
        );
      const redo = cli(t, ['redo-rewind', t.session, '--json']);
      const afterRedo = stateOf(t);
      const redoRefusedAfterRollback = which === 'rewind' && undo.code !== 0 && redo.code !== 0 && sameState(afterRedo, states.old);
      if (!redoRefusedAfterRollback && !sameState(afterRedo, states.new))
        t.problems.push(
          `step ${step}: then redo-rewind (exit ${redo.code}${redo.code ? `: ${redo.stderr.trim().slice(0, 160)}` : ''}) left ${nameOf(afterRedo, states.old, states.new)}, not the state after the rewind`,
        );
      const outcome = redoRefusedAfterRollback ? 'rolled back' : 'finished or undone';
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      if (!same(fingerprint(t.sentinel), t.sentinelPrint)) t.problems.push(`step ${step}: something outside the workspace changed`);
    }
    (t as Trial & { note?: string }).note = `${killed} of ${steps} steps killed; ${[...outcomes].map(([k, n]) => `${n} ${k}`).join(', ')}`;
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}

/**
 * A rewind killed before a random one of its file-system steps leaves its journal (and the rewind log's pending step);
 * the next rewind settles it before it plans. The dry run right after the kill must say what that real rewind then
 * does (promise 13): the same refusal in the same words, or the same files and line counts, the same files the user
 * changed and the same files left alone. Sometimes the user edits a file the killed rewind was writing first.
 */
async function killThenPreview(t: Trial): Promise<void> {
  history(t);
  const template = `${t.base}.start`;
  spawnSync('cp', ['-a', t.base, template]);
  try {
    const killedArgs = ['rewind-files', t.session, 'u1', '--json'];
    const countFile = join(tmpdir(), `arw-preview-${process.pid}-${t.n}`);
    must(t, 'rewind (counting its steps)', cli(t, killedArgs, t.who, { AGENT_REWIND_FAULT_COUNT: countFile }));
    const steps = Number(readFileSync(countFile, 'utf8'));
    rmSync(countFile, { force: true });
    rmSync(t.base, { recursive: true, force: true });
    spawnSync('cp', ['-a', template, t.base]);
    const step = 1 + int(steps);
    const run = cli(t, killedArgs, t.who, { AGENT_REWIND_FAULT_KILL_AT: String(step) });
    if (run.signal !== 'SIGKILL') t.problems.push(`step ${step}: the rewind was not stopped (exit ${run.code}): ${run.stderr.trim().slice(0, 200)}`);
    else totals.kills++;
    const edited = rand() < 0.5 ? pick(['dir0/f1.txt', 'dir1/f3.txt', 'long.txt']) : undefined;
    if (edited && existsSync(join(t.ws, edited))) writeFileSync(join(t.ws, edited), 'edited by hand after the kill\n');
    const anchor = pick(['u1', 'u2']);
    const overwrite = rand() < 0.5 ? ['--overwrite-user-modified'] : [];
    const dry = cli(t, ['rewind-files', t.session, anchor, '--dry-run', ...overwrite, '--json']);
    const real = cli(t, ['rewind-files', t.session, anchor, ...overwrite, '--json']);
    (t as Trial & { note?: string }).note =
      `killed at step ${step} of ${steps}${edited ? `, ${edited} edited` : ''}; ${anchor}${overwrite.length ? ' overwriting' : ''}: ` +
      `${real.code === 0 ? `rewound ${real.json?.filesChanged?.length} files` : 'refused'}`;
    const reasonOf = (r: Run) =>
      r.stderr
        .trim()
        .replace(/^agent-rewind rewind-files: /, '')
        .replace(/^Cannot preview the rewind: /, '');
    if (dry.code !== 0) {
      if (real.code === 0) t.problems.push(`the dry run refused (${reasonOf(dry).slice(0, 200)}), the real run rewound`);
      else if (!reasonOf(real).includes(reasonOf(dry)))
        t.problems.push(`the dry run refused with "${reasonOf(dry).slice(0, 200)}", the real run with "${reasonOf(real).slice(0, 200)}"`);
    } else if (real.code !== 0) t.problems.push(`the dry run said it can rewind, the real run refused: ${real.stderr.trim().slice(0, 300)}`);
    else {
      const paths = (r: Run, k: 'userModified' | 'skipped') =>
        JSON.stringify((r.json[k] as (string | { path: string })[]).map((x) => (typeof x === 'string' ? x : x.path)).sort());
      for (const k of ['filesChanged', 'insertions', 'deletions'] as const)
        if (JSON.stringify(dry.json[k]) !== JSON.stringify(real.json[k]))
          t.problems.push(
            `the dry run's ${k} (${JSON.stringify(dry.json[k]).slice(0, 200)}) is not the real run's (${JSON.stringify(real.json[k]).slice(0, 200)})`,
          );
      for (const k of ['userModified', 'skipped'] as const)
        if (paths(dry, k) !== paths(real, k))
          t.problems.push(`the dry run's ${k} (${paths(dry, k).slice(0, 200)}) is not the real run's (${paths(real, k).slice(0, 200)})`);
    }
    checkInvariants(t);
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}

// ── partial rewinds (issue 27: restore exactly what you choose) ─────────────────────────────────────────────────
/** The lines of long.txt the agent changes: three hunks far enough apart to stay three. */
const LONG_LINES = 60;
const LONG_EDITED = [4, 29, 54];
const longText = (edited: boolean) =>
  Array.from({ length: LONG_LINES }, (_, i) => (edited && LONG_EDITED.includes(i) ? `line ${i} as the agent left it\n` : `line ${i}\n`)).join('');

/** The files the agent modified (in both u1 and u2, so a user can edit them after a kill): --only picks among these,
 *  beside folders and files it made, deleted or changed the mode of. */
const ONLY_MODIFIED = ['dir0/f1.txt', 'dir1/f3.txt', 'dir3/f5.txt', 'dir5/f9.txt'];
const ONLY_OTHERS = ['dir2', 'added', 'run.sh', 'dir4/f2.txt'];

/** The paths whose fingerprint line differs between two prints (added, removed or changed). */
function changedPaths(a: string[], b: string[]): string[] {
  const sa = new Set(a);
  const sb = new Set(b);
  const pathOf = (line: string) => line.split(' ')[0]!.replace(/\/$/, '');
  return [...new Set([...a.filter((l) => !sb.has(l)), ...b.filter((l) => !sa.has(l))].map(pathOf))].sort();
}

/** A fingerprint without one path's line (the path a user edited after the kill). */
const without = (print: string[], path: string) => print.filter((l) => !l.startsWith(`${path} `) && !l.startsWith(`${path}/ `));

/** The selection of a partial rewind, as rewind-files takes it: some files (--only) or some hunks of long.txt. */
function partialSelection(t: Trial, how: 'only' | 'hunks'): { args: string[]; chosen: string[]; edited: string; label: string } {
  if (how === 'only') {
    const modified = pick(ONLY_MODIFIED);
    const others = ONLY_OTHERS.filter(() => rand() < 0.5);
    const chosen = [modified, ...others];
    // absolute, as a terminal in another folder types them (the CLI runs in the trial's folder, above the workspace)
    return { args: chosen.flatMap((p) => ['--only', join(t.ws, p)]), chosen, edited: modified, label: chosen.map((p) => `--only ${p}`).join(' ') };
  }
  const dry = must(t, 'dry run', cli(t, ['rewind-files', t.session, 'u1', '--dry-run', '--json']));
  const long = (dry.json.files as { path: string; hunksHash?: string; hunks?: unknown[] }[]).find((f) => f.path === 'long.txt');
  if (!long?.hunksHash || long.hunks?.length !== LONG_EDITED.length) throw new Error(`the dry run does not list long.txt's 3 hunks: ${JSON.stringify(long)}`);
  const chosen = [1, 2, 3].filter(() => rand() < 0.5);
  if (chosen.length === 0 || chosen.length === 3) chosen.splice(0, chosen.length, 1 + int(3));
  // with the hash the dry run gave, or as a terminal user types it (the hunks of the file as it is)
  const hash = rand() < 0.5 ? `@${long.hunksHash}` : '';
  return {
    args: ['--hunks', `${join(t.ws, 'long.txt')}:${chosen.join(',')}${hash}`],
    chosen: ['long.txt'],
    edited: 'long.txt',
    label: `--hunks long.txt:${chosen.join(',')}${hash ? '@hash' : ''}`,
  };
}

/**
 * A partial rewind (`--only`, `--hunks`), its undo or its redo, stopped by SIGKILL before a random one of its
 * file-system steps (kill-at-step.cjs, counted by an uninterrupted run from the same start). After the kill the
 * workspace must be exactly before or after once recovery ran (gc), and the next undo-rewind and redo-rewind must go
 * to the state before the partial rewind and after it (redo refuses, with nothing changed, when recovery rolled the
 * rewind back). Every other trial a user edits a file the command changes right after the kill: recovery and the
 * undo after it must keep that edit, and leave the rest of the workspace before or after.
 */
async function killPartial(t: Trial): Promise<void> {
  writeFileSync(join(t.ws, 'long.txt'), longText(false));
  history(t, (ws) => {
    agentWork(ws);
    writeFileSync(join(ws, 'long.txt'), longText(true));
  });
  const op = (['only', 'hunks', 'undo', 'redo'] as const)[t.n % 4]!;
  const how = op === 'only' || op === 'hunks' ? op : t.n % 8 < 4 ? 'only' : 'hunks';
  const userEdits = Math.floor(t.n / 4) % 2 === 1;
  const selection = partialSelection(t, how);
  const rewind = ['rewind-files', t.session, 'u1', ...selection.args, '--json'];
  const old = fingerprint(t.ws);
  if (op !== 'only' && op !== 'hunks') must(t, 'partial rewind', cli(t, rewind));
  const rewound = op === 'only' || op === 'hunks' ? undefined : fingerprint(t.ws);
  if (op === 'redo') must(t, 'undo', cli(t, ['undo-rewind', t.session, '--json']));
  const args = op === 'undo' ? ['undo-rewind', t.session, '--json'] : op === 'redo' ? ['redo-rewind', t.session, '--json'] : rewind;
  const start = fingerprint(t.ws);

  const template = `${t.base}.start`;
  spawnSync('cp', ['-a', t.base, template]);
  try {
    const countFile = join(tmpdir(), `arw-partial-${process.pid}-${t.n}`);
    must(t, `${op} (counting its steps)`, cli(t, args, t.who, { AGENT_REWIND_FAULT_COUNT: countFile }));
    const steps = Number(readFileSync(countFile, 'utf8'));
    rmSync(countFile, { force: true });
    const now = rewound ?? fingerprint(t.ws); // the partial rewind's result
    // a partial rewind changes what was chosen and nothing else
    const { chosen } = selection;
    const strayed = changedPaths(old, now).filter((p) => !chosen.some((c) => p === c || p.startsWith(`${c}/`)));
    if (strayed.length) t.problems.push(`the partial rewind (${selection.label}) changed what was not chosen: ${strayed.join(', ')}`);
    if (!changedPaths(old, now).includes(selection.edited)) t.problems.push(`the partial rewind (${selection.label}) left ${selection.edited} as it was`);
    const after = op === 'undo' ? old : now;
    spawnSync('rm', ['-rf', t.base]);
    spawnSync('cp', ['-a', template, t.base]);

    const step = 1 + int(steps);
    const run = cli(t, args, t.who, { AGENT_REWIND_FAULT_KILL_AT: String(step) });
    const killed = run.signal === 'SIGKILL';
    if (killed) totals.kills++;
    else if (run.code !== 0) t.problems.push(`the ${op} failed without a kill: ${run.stderr.trim().slice(0, 300)}`);
    (t as Trial & { note?: string }).note =
      `${op}${op === 'undo' || op === 'redo' ? ` of ${how}` : ''} ${selection.label}, killed at step ${step} of ${steps}${userEdits ? ', then edited by the user' : ''}`;

    const editedPath = join(t.ws, selection.edited);
    const userText = `the user's edit after the kill ${int(1e9)}\n`;
    if (userEdits) writeFileSync(editedPath, userText);
    const keptEdit = (when: string) => {
      if (!userEdits) return;
      const text = existsSync(editedPath) ? readFileSync(editedPath, 'utf8') : '(gone)';
      if (text !== userText) t.problems.push(`${when}, ${selection.edited} lost the user's edit made after the kill: ${JSON.stringify(text.slice(0, 60))}`);
    };
    const states = (names: Record<string, string[]>) =>
      Object.entries(names).map(([name, print]) => ({ name, print: userEdits ? without(print, selection.edited) : print }));
    const check = (when: string, allowed: { name: string; print: string[] }[]) => {
      const print = userEdits ? without(fingerprint(t.ws), selection.edited) : fingerprint(t.ws);
      if (!allowed.some((a) => same(a.print, print)))
        t.problems.push(
          `${when}, the workspace is neither ${allowed.map((a) => a.name).join(' nor ')}: ${allowed.map((a) => `vs ${a.name}: ${diffOf(a.print, print)}`).join(' | ')}`,
        );
    };

    const killedPrint = userEdits ? without(fingerprint(t.ws), selection.edited) : fingerprint(t.ws);
    const [startPrint, afterPrint] = states({ start, after }).map((x) => x.print);
    const left = same(startPrint!, afterPrint!)
      ? 'only the edited file in question'
      : same(killedPrint, startPrint!)
        ? 'before'
        : same(killedPrint, afterPrint!)
          ? 'after'
          : 'between';
    (t as Trial & { note?: string }).note += `; left ${left} until recovery`;
    // recovery of the store's journal runs in the first command that takes the store's lock: gc changes nothing else
    const gc = cli(t, ['gc']);
    if (gc.code !== 0) t.problems.push(`gc after the kill failed: ${gc.stderr.trim().slice(0, 300)}`);
    check('after recovery', states({ [`as before the ${op}`]: start, [`as after the ${op}`]: after }));
    keptEdit('after recovery');
    // the rewind log's recovery runs in the next undo: files back as before the partial rewind
    const undo = cli(t, ['undo-rewind', t.session, '--json']);
    check(`after the next undo-rewind (exit ${undo.code})`, states({ 'as before the partial rewind': old }));
    keptEdit('after the next undo-rewind');
    if (!userEdits) {
      // a redo brings the partial rewind back, unless recovery rolled the killed rewind back (then it has nothing to redo)
      const redo = cli(t, ['redo-rewind', t.session, '--json']);
      const rolledBack = op !== 'undo' && op !== 'redo' && undo.code !== 0 && redo.code !== 0;
      check(
        `after the redo-rewind after it (exit ${redo.code}${redo.code ? `: ${redo.stderr.trim().slice(0, 160)}` : ''})`,
        states(rolledBack ? { 'as before the partial rewind': old } : { 'as after the partial rewind': now }),
      );
    }
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
  checkInvariants(t);
}

// ── hostile session files (readers never leave the agent's folders or block) ─────────────────────────────────────
/** How long a read command may take on a hostile session file; a reader that blocks on a FIFO never finishes. */
const READ_BOUND_MS = 30_000;
const HOSTILE = ['claude-traversal', 'claude-fifos', 'codex-reference', 'deep-nesting', 'codex-spaced'] as const;
const UUID = (n: number) => `${n.toString(16).padStart(8, '0')}-2222-4333-8444-555555555555`;
const THREAD = (n: number) => `01a20aad-def5-7222-afbb-${n.toString(16).padStart(12, '0')}`;

function mkfifo(path: string): void {
  if (spawnSync('mkfifo', [path]).status !== 0) throw new Error(`mkfifo ${path} failed`);
}

/** A decoy regular file outside the agent's folders whose access time moves if anything reads it (relatime). */
function decoy(path: string, content: string): () => boolean {
  writeFileSync(path, content);
  const old = new Date('2020-01-01T00:00:00Z');
  utimesSync(path, old, new Date());
  return () => statSync(path).atimeMs !== old.getTime();
}

function claudeLine(sessionId: string, cwd: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ parentUuid: null, isSidechain: false, cwd, sessionId, version: '2.1.330', timestamp: new Date().toISOString(), ...fields });
}

/** A Claude Code transcript of the workspace: a prompt, a reply, another prompt; `extra` fields on every line. */
function claudeTranscript(dir: string, id: string, cwd: string, extra: Record<string, unknown> = {}, raw?: (line: string) => string): string {
  mkdirSync(dir, { recursive: true });
  const lines = [
    claudeLine(id, cwd, { type: 'user', uuid: `${id}-p1`, message: { role: 'user', content: 'first prompt' }, ...extra }),
    claudeLine(id, cwd, {
      type: 'assistant',
      uuid: `${id}-a1`,
      parentUuid: `${id}-p1`,
      message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'text', text: 'a reply' }] },
      ...extra,
    }),
    claudeLine(id, cwd, { type: 'user', uuid: `${id}-p2`, parentUuid: `${id}-a1`, message: { role: 'user', content: 'second prompt' }, ...extra }),
  ].map((l) => (raw ? raw(l) : l));
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function rolloutLine(type: string, payload: Record<string, unknown>, spaced = false): string {
  const v = { timestamp: new Date().toISOString(), type, payload };
  return spaced ? JSON.stringify(v, null, 1).replace(/\n\s*/g, ' ') : JSON.stringify(v);
}

/** A Codex rollout of the workspace with `turns` turns; `before` lines come right after session_meta. */
function rollout(home: string, thread: string, cwd: string, turns: number, opts: { spaced?: boolean; before?: string[]; args?: string } = {}): string {
  const dir = join(home, 'sessions', '2026', '11', '23');
  mkdirSync(dir, { recursive: true });
  const sp = opts.spaced === true;
  const lines = [rolloutLine('session_meta', { id: thread, timestamp: new Date().toISOString(), cwd, originator: 'codex_exec', cli_version: '0.169.0' }, sp)];
  lines.push(...(opts.before ?? []));
  for (let i = 0; i < turns; i++) {
    const turnId = THREAD(0x100000 + i);
    lines.push(rolloutLine('event_msg', { type: 'task_started', turn_id: turnId }, sp));
    lines.push(rolloutLine('turn_context', { turn_id: turnId, cwd, model: 'gpt-5.5' }, sp));
    lines.push(rolloutLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `prompt ${i}` }] }, sp));
    lines.push(rolloutLine('world_state', { full: false, state: { cwd } }, sp));
    if (opts.args !== undefined) {
      lines.push(rolloutLine('response_item', { type: 'function_call', name: 'exec_command', arguments: opts.args, call_id: `call_${i}` }, sp));
      lines.push(rolloutLine('response_item', { type: 'function_call_output', call_id: `call_${i}`, output: 'ok' }, sp));
    }
    lines.push(rolloutLine('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `reply ${i}` }] }, sp));
    lines.push(rolloutLine('event_msg', { type: 'token_count', info: { total: i } }, sp));
    lines.push(rolloutLine('event_msg', { type: 'task_complete', turn_id: turnId }, sp));
  }
  const file = join(dir, `rollout-2026-11-23T10-00-00-${thread}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** `{"k":{"k":…}}` nested `depth` objects deep. */
const deepJson = (depth: number) => '{"k":'.repeat(depth - 1) + '{"k":"bottom"}' + '}'.repeat(depth - 1);

/** Runs the read commands on a session file (and the folder-wide ones); each must end within READ_BOUND_MS. */
function readAll(t: Trial, files: string[], prompts: Map<string, string>): void {
  const bounded = (args: string[]) => {
    const started = Date.now();
    const r = spawnSync(process.execPath, [CLI, ...args, '--home', t.home], {
      cwd: t.base,
      encoding: 'utf8',
      env: envFor(t),
      timeout: READ_BOUND_MS,
      maxBuffer: 1 << 30,
    });
    const ms = Date.now() - started;
    slowest = Math.max(slowest, ms);
    if (r.signal) t.problems.push(`${args[0]} did not finish within ${READ_BOUND_MS / 1000} s (${r.signal} after ${ms} ms)`);
    return { code: r.status, signal: r.signal, stderr: r.stderr ?? '', ms };
  };
  for (const args of [
    ['sessions', '--cwd', t.ws, '--json'],
    ['search', 'prompt', '--cwd', t.ws, '--json'],
  ]) {
    const r = bounded(args);
    if (r.code !== 0 && !r.signal) t.problems.push(`${args[0]} failed: ${r.stderr.trim().slice(0, 300)}`);
  }
  for (const file of files) {
    for (const args of [
      ['tree', file, '--json'],
      ['context', file, '--json'],
    ]) {
      const r = bounded(args);
      if (r.code !== 0) t.problems.push(`${args[0]} ${file.slice(t.base.length)} failed: ${r.stderr.trim().slice(0, 300)}`);
    }
    const prompt = prompts.get(file);
    if (prompt) {
      const r = bounded(['rewind-files', file, prompt, '--dry-run', '--json', '--workspace', t.ws]);
      if (r.code !== 0 && !clear(r.stderr)) t.problems.push(`rewind-files --dry-run gave no clear answer: ${r.stderr.trim().slice(0, 300)}`);
    }
  }
}
let slowest = 0;

/** One hostile session setup per trial, in turn; then the reads, then the usual invariants. */
async function hostileSessions(t: Trial): Promise<void> {
  history(t);
  const which = HOSTILE[t.n % HOSTILE.length]!;
  (t as Trial & { note?: string }).note = which;
  const claudeDir = join(t.base, '.claude'); // HOME is t.base: ~/.claude and ~/.codex are the agents' folders
  const project = join(claudeDir, 'projects', '-ws');
  const codexHome = join(t.base, '.codex');
  const outside = join(t.base, 'outside');
  mkdirSync(outside);
  const files: string[] = [];
  const prompts = new Map<string, string>();
  const decoys: (() => boolean)[] = [];
  slowest = 0;
  if (which === 'claude-traversal') {
    // from <config>/projects/-ws, ../../../outside/x.jsonl is <base>/outside/x.jsonl: a FIFO; y.jsonl a readable decoy
    mkfifo(join(outside, 'x.jsonl'));
    decoys.push(
      decoy(join(outside, 'y.jsonl'), claudeLine(UUID(9), t.ws, { type: 'user', uuid: 'decoy', message: { role: 'user', content: 'decoy' } }) + '\n'),
    );
    for (const [n, target] of [
      [1, '../../../outside/x'],
      [2, '../../../outside/y'],
      [3, join(outside, 'x')],
    ] as const) {
      const id = UUID(n);
      files.push(claudeTranscript(project, id, t.ws, { forkedFrom: { sessionId: target, messageUuid: 'm' } }));
      prompts.set(files.at(-1)!, `${id}-p2`);
    }
  } else if (which === 'claude-fifos') {
    const id = UUID(4);
    files.push(claudeTranscript(project, id, t.ws));
    prompts.set(files[0]!, `${id}-p2`);
    mkfifo(join(project, `${UUID(5)}.jsonl`)); // a FIFO where a transcript would be
    mkfifo(join(project, 'agent-a1.jsonl')); // and an old-layout subagent file
    mkdirSync(join(project, id, 'subagents'), { recursive: true });
    mkfifo(join(project, id, 'subagents', 'agent-a2.jsonl'));
    mkdirSync(join(t.home, 'claude', 'prompts'), { recursive: true });
    mkfifo(join(t.home, 'claude', 'prompts', `${id}.jsonl`)); // our hooks' prompt records
    mkdirSync(join(claudeDir, 'file-history', id), { recursive: true });
  } else if (which === 'codex-reference') {
    mkfifo(join(outside, 'parent.jsonl'));
    decoys.push(decoy(join(outside, 'decoy.jsonl'), rolloutLine('session_meta', { id: THREAD(7), cwd: t.ws }) + '\n'));
    mkdirSync(codexHome, { recursive: true });
    mkfifo(join(codexHome, 'session_index.jsonl'));
    for (const [n, path] of [
      [1, join(outside, 'parent.jsonl')],
      [2, join(outside, 'decoy.jsonl')],
      [3, '../outside/parent.jsonl'],
    ] as const) {
      const ref = rolloutLine('rollout_reference', { rollout_path: path, nth_user_message: 1, max_depth: 4 });
      files.push(rollout(codexHome, THREAD(n), t.ws, 2, { before: [ref] }));
    }
  } else if (which === 'deep-nesting') {
    const deep = deepJson(10_000);
    const id = UUID(6);
    files.push(claudeTranscript(project, id, t.ws, {}, (l) => l.replace('"content":"first prompt"', `"content":"first prompt","deep":${deep}`)));
    prompts.set(files[0]!, `${id}-p2`);
    files.push(rollout(codexHome, THREAD(8), t.ws, 2, { args: `{"cmd":"ls","deep":${deep}}` }));
    // and one of ours: an assistant message whose tool call arguments are as deep
    const line = `{"type":"message","id":"deep1","parentId":"${t.entries.at(-1)}","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":${deep}}]}}`;
    writeFileSync(t.session, readFileSync(t.session, 'utf8') + line + '\n');
    t.entries.push('deep1');
    files.push(t.session);
  } else {
    // 6,000 turns written with spaces after the colons: it opened in quadratic time (did not open within 30 s)
    files.push(rollout(codexHome, THREAD(9), t.ws, 6000, { spaced: true }));
  }
  const outsidePrint = readdirSync(outside).sort().join(',');
  readAll(t, files, prompts);
  if (decoys.some((read) => read())) t.problems.push('a file outside the agent folders was read');
  if (readdirSync(outside).sort().join(',') !== outsidePrint) t.problems.push('the folder outside the agent folders changed');
  (t as Trial & { note?: string }).note = `${which}, slowest command ${slowest} ms`;
  checkInvariants(t);
}

// ── the hooks installers (RELIABILITY.md promise 16) ─────────────────────────────────────────────────────────────────
/** Another program editing a settings file as Claude Code does: read it, add a key, write it back (in place or by
 *  rename, alternately), every 0-3 ms until `stop` exists; `out` holds how many keys it wrote (<tag>w1…<tag>wN). */
const RMW_WRITER = `
const fs = require('fs');
const [file, stop, out, tag] = process.argv.slice(1);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
let k = 0;
while (!fs.existsSync(stop)) {
  let obj = {};
  try { obj = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { if (e.code !== 'ENOENT') throw e; }
  obj.writer = obj.writer || {};
  obj.writer[tag + 'w' + ++k] = k;
  const text = JSON.stringify(obj, null, 2) + '\\n';
  if (k % 2) fs.writeFileSync(file, text);
  else { fs.writeFileSync(file + '.w', text); fs.renameSync(file + '.w', file); }
  fs.writeFileSync(out, String(k));
  pause(Math.random() * 3);
}
`;

const installerStats = { races: 0, lost: 0, residual: 0, refused: 0, reasons: new Map<string, number>() };

/** One `hooks install|uninstall <agent>` racing a writer of the same file; problems for any key of theirs lost. */
async function raceInstaller(t: Trial, agent: 'claude' | 'codex', action: 'install' | 'uninstall', file: string): Promise<void> {
  const stop = join(t.base, 'stop-writer');
  const out = join(t.base, 'writer-count');
  rmSync(stop, { force: true });
  const tag = `r${installerStats.races}`;
  const writer = spawn(process.execPath, ['-e', RMW_WRITER, file, stop, out, tag], { stdio: ['ignore', 'ignore', 'pipe'] });
  let writerErr = '';
  writer.stderr!.on('data', (d) => (writerErr += d));
  const writerDone = new Promise<number | null>((res) => writer.on('close', res));
  rmSync(out, { force: true });
  // the writer is at work before the installer starts (a loaded machine can take a while to start it)
  for (let waited = 0; !existsSync(out) && waited < 5000; waited += 5) await sleep(5);
  await sleep(int(40));
  const { done } = cliChild(t, ['hooks', action, agent, '--cwd', t.ws, '--no-baseline', '--json']);
  const run = await done;
  await sleep(5 + int(20));
  writeFileSync(stop, '');
  const code = await writerDone;
  installerStats.races++;
  totals.races++;
  if (code !== 0) t.problems.push(`the concurrent writer failed: ${writerErr.trim().slice(0, 300)}`);
  if (run.code !== 0) {
    // refusing is allowed (e.g. it read the writer's file half written in place), losing is not
    installerStats.refused++;
    const why = run.stderr.trim().split('\n')[0]!.replace(/\/\S+/g, '…').slice(0, 120);
    installerStats.reasons.set(why, (installerStats.reasons.get(why) ?? 0) + 1);
    if (!clear(run.stderr)) t.problems.push(`hooks ${action} ${agent} failed without a clear error: ${run.stderr.trim().slice(0, 300)}`);
  }
  const written = existsSync(out) ? Number(readFileSync(out, 'utf8')) : 0;
  const keys = (JSON.parse(readFileSync(file, 'utf8')) as { writer?: Record<string, number> }).writer ?? {};
  const lost = Array.from({ length: written }, (_, i) => `${tag}w${i + 1}`).filter((k) => !(k in keys));
  // The losses the installers cannot see (settings-file.ts, RELIABILITY.md): the writer's rename landing in the
  // microseconds between our last check and our own rename, or its in-place write into the file we replaced landing
  // after we last looked at it. Each shows as exactly one key lost; it is counted and printed, not failed. Any other
  // loss (several keys, the whole file) fails the trial.
  const residual = lost.length === 1;
  if (residual) installerStats.residual++;
  else if (lost.length) {
    installerStats.lost++;
    t.problems.push(`hooks ${action} ${agent} lost the other program's change(s) ${lost.slice(0, 5).join(', ')} of ${written}`);
  }
}

const installerKinds: Record<string, (t: Trial) => Promise<void>> = {
  /** Installs and uninstalls racing another program that keeps editing the same settings file (issue 22, item 9). */
  async 'install-race'(t) {
    const claude = join(t.ws, '.claude', 'settings.local.json');
    const codex = join(t.ws, '.codex', 'hooks.json');
    mkdirSync(dirname(claude));
    mkdirSync(dirname(codex));
    writeFileSync(claude, '{\n  "model": "x"\n}\n');
    writeFileSync(codex, '{}\n');
    for (let round = 0; round < 2; round++)
      for (const [agent, file] of [
        ['claude', claude],
        ['codex', codex],
      ] as const) {
        await raceInstaller(t, agent, 'install', file);
        await raceInstaller(t, agent, 'uninstall', file);
      }
    if (!same(fingerprint(t.sentinel), t.sentinelPrint)) t.problems.push('something outside the workspace changed');
  },
  /** Settings files that are not what they seem (issue 22, items 7, 8, 10, 11): each refused or kept as it was. */
  async 'install-hostile'(t) {
    const dir = join(t.ws, '.claude');
    const file = join(dir, 'settings.local.json');
    mkdirSync(dir);
    const hooks = (args: string[], extraEnv: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [CLI, 'hooks', ...args, '--no-baseline', '--home', t.home], {
        cwd: t.base,
        encoding: 'utf8',
        env: { ...envFor(t), ...extraEnv },
        timeout: 20_000,
      });
      return { code: r.status, stderr: r.stderr ?? '', timedOut: r.error !== undefined };
    };
    // a FIFO: refused at once, not waited on
    spawnSync('mkfifo', [file]);
    let r = hooks(['install', 'claude', '--cwd', t.ws]);
    if (r.timedOut || r.code !== 1 || !/not a regular file/.test(r.stderr))
      t.problems.push(`a FIFO settings file: ${r.timedOut ? 'hung (killed after 20 s)' : `exit ${r.code}: ${r.stderr.trim().slice(0, 200)}`}`);
    if (!lstatSync(file).isFIFO()) t.problems.push('the FIFO was replaced');
    rmSync(file);
    // /dev/zero as the user's settings (a link there): refused, no crash
    const cfg = join(t.base, 'claude-cfg');
    mkdirSync(cfg);
    symlinkSync('/dev/zero', join(cfg, 'settings.json'));
    r = hooks(['install', 'claude', '--user'], { CLAUDE_CONFIG_DIR: cfg });
    if (r.timedOut || r.code !== 1 || !/not a regular file/.test(r.stderr))
      t.problems.push(`/dev/zero as settings: ${r.timedOut ? 'hung (killed after 20 s)' : `exit ${r.code}: ${r.stderr.trim().slice(0, 200)}`}`);
    // a link out of the workspace: refused, the target untouched (the sentinel check below)
    symlinkSync(join(t.sentinel, 'keep.txt'), file);
    r = hooks(['install', 'claude', '--cwd', t.ws]);
    if (r.code !== 1 || !/symbolic link/.test(r.stderr)) t.problems.push(`a symlinked settings file: exit ${r.code}: ${r.stderr.trim().slice(0, 200)}`);
    rmSync(file);
    // another program's handler ending in `hook claude`, and a number JSON.parse cannot hold: byte for byte after
    // install + uninstall
    const theirs =
      '{\n  "seed": 12345678901234567890,\n  "hooks": {\n    "Stop": [\n      { "hooks": [ { "type": "command", "command": "other-tool hook claude" } ] }\n    ]\n  }\n}\n';
    writeFileSync(file, theirs);
    if (process.getuid?.() === 0) chownSync(file, 4242, 4343);
    if (hooks(['install', 'claude', '--cwd', t.ws]).code !== 0) t.problems.push("install next to another program's handler failed");
    if (!readFileSync(file, 'utf8').includes('"seed": 12345678901234567890')) t.problems.push('the big number was rewritten');
    if (process.getuid?.() === 0 && statSync(file).uid !== 4242) t.problems.push(`the settings file changed owner to ${statSync(file).uid}`);
    if (hooks(['uninstall', 'claude', '--cwd', t.ws]).code !== 0) t.problems.push('uninstall failed');
    if (readFileSync(file, 'utf8') !== theirs)
      t.problems.push(`install + uninstall changed another program's settings: ${readFileSync(file, 'utf8').slice(0, 200)}`);
    // Codex: config.toml cannot be replaced (immutable, as root) → hooks.json is not left rewritten
    if (process.getuid?.() === 0 && spawnSync('chattr', ['-h']).error === undefined) {
      const codexDir = join(t.ws, '.codex');
      mkdirSync(codexDir);
      writeFileSync(join(codexDir, 'hooks.json'), '{\n  "hooks": {}\n}\n');
      writeFileSync(join(codexDir, 'config.toml'), 'model = "x"\n');
      if (spawnSync('chattr', ['+i', join(codexDir, 'config.toml')]).status === 0) {
        try {
          r = hooks(['install', 'codex', '--cwd', t.ws]);
          if (r.code !== 1) t.problems.push(`install codex with an immutable config.toml: exit ${r.code}`);
          if (readFileSync(join(codexDir, 'hooks.json'), 'utf8') !== '{\n  "hooks": {}\n}\n')
            t.problems.push('a failed Codex install left hooks.json rewritten');
          const left = readdirSync(codexDir).filter((f) => f !== 'hooks.json' && f !== 'config.toml');
          if (left.length) t.problems.push(`a failed Codex install left ${left.join(', ')}`);
        } finally {
          spawnSync('chattr', ['-i', join(codexDir, 'config.toml')]);
        }
      }
    }
    totals.races++;
    if (!same(fingerprint(t.sentinel), t.sentinelPrint))
      t.problems.push(`something outside the workspace changed: ${diffOf(t.sentinelPrint, fingerprint(t.sentinel))}`);
  },
};
Object.assign(kinds, installerKinds);

/** How many kinds run at once, each in a process of its own (1: all in this process). */
const PARALLEL = Math.max(1, Number(process.env.AGENT_REWIND_FAULT_PARALLEL ?? Math.min(2, availableParallelism())));
/** Set in a process the pool started for one kind: it prints its totals as one line for the pool to add up. */
const POOL_CHILD = process.env.AGENT_REWIND_FAULT_POOL_CHILD === '1';
const TOTALS_LINE = 'fault-kind-totals ';
/** Started first, so that the pool does not end waiting for one of them alone. */
const SLOWEST_KINDS = ['kill-steps-redo', 'kill-steps-rewind', 'kill-steps-undo', 'timeline-damage', 'auto-service', 'late-service'];

interface KindTotals {
  totals: typeof totals;
  failures: string[];
  installers: Omit<typeof installerStats, 'reasons'> & { reasons: [string, number][] };
}

async function main(): Promise<void> {
  const started = Date.now();
  const only = process.env.AGENT_REWIND_FAULT_KINDS?.split(',');
  const nobody = { uid: 65534, gid: 65534 };
  const canDrop = process.getuid?.() === 0;
  const selected = Object.keys(kinds).filter((k) => !only || only.includes(k));
  const pooled = !POOL_CHILD && PARALLEL > 1 && selected.length > 1;
  if (!POOL_CHILD)
    console.log(
      `fault suite: ${PER_KIND} trials per kind, seed ${SEED}${pooled ? `, ${PARALLEL} kinds at a time` : ''}${canDrop ? '' : ' (not root: the permission trial runs as this user and is skipped)'}`,
    );
  if (pooled) await runPool(selected);
  else await runKinds(selected, canDrop, nobody);
  rmSync(BIN, { recursive: true, force: true });
  if (POOL_CHILD) {
    const out: KindTotals = { totals, failures, installers: { ...installerStats, reasons: [...installerStats.reasons] } };
    console.log(TOTALS_LINE + JSON.stringify(out));
    return;
  }
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  console.log('');
  for (const f of failures) console.log(`failed: ${f}`);
  if (installerStats.races)
    console.log(
      `installers: ${installerStats.races} install/uninstall runs raced a writer of the same file; ${installerStats.lost} lost a change of the writer's (and ${installerStats.residual} lost one key in the windows the installers cannot see), ${installerStats.refused} refused${[...installerStats.reasons].map(([why, n]) => `\n  ${n}× ${why}`).join('')}`,
    );
  console.log(
    `${totals.passed} passed, ${totals.failed} failed (trials ${totals.trials}, kills ${totals.kills}, corruptions ${totals.corruptions}, races ${totals.races}; seed ${SEED}; ${secs} s)`,
  );
  process.exitCode = totals.failed ? 1 : 0;
}

/** Runs each kind in a process of its own (this script, told the kind and the seed), PARALLEL at a time, the slowest
 *  first; passes their trial lines on as they come and adds up their totals. */
async function runPool(selected: string[]): Promise<void> {
  const queue = [...SLOWEST_KINDS.filter((k) => selected.includes(k)), ...selected.filter((k) => !SLOWEST_KINDS.includes(k))];
  const runOne = (kind: string) =>
    new Promise<void>((done) => {
      const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!], {
        env: { ...process.env, AGENT_REWIND_FAULT_POOL_CHILD: '1', AGENT_REWIND_FAULT_KINDS: kind, AGENT_REWIND_FAULT_SEED: String(SEED) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let got: KindTotals | undefined;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith(TOTALS_LINE)) got = JSON.parse(line.slice(TOTALS_LINE.length)) as KindTotals;
        else if (line !== '') console.log(line);
      });
      child.on('close', (code, signal) => {
        if (!got) {
          totals.failed++;
          failures.push(`${kind}: its process ended (${signal ?? `exit ${code}`}) without its totals`);
        } else {
          for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += got.totals[k];
          failures.push(...got.failures);
          installerStats.races += got.installers.races;
          installerStats.lost += got.installers.lost;
          installerStats.residual += got.installers.residual;
          installerStats.refused += got.installers.refused;
          for (const [why, n] of got.installers.reasons) installerStats.reasons.set(why, (installerStats.reasons.get(why) ?? 0) + n);
        }
        done();
      });
    });
  const lane = async () => {
    for (let kind = queue.shift(); kind !== undefined; kind = queue.shift()) await runOne(kind);
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
}

async function runKinds(selected: string[], canDrop: boolean, nobody: Required<Who>): Promise<void> {
  for (const kind of selected) {
    const run = kinds[kind]!;
    // a late-service trial waits out the CLI's liveness check (15 s): fewer of them unless asked for; a kill-steps kind
    // kills its command at every step in one trial
    const trials = EVERY_STEP_KINDS.has(kind)
      ? 1
      : kind === 'late-service' && process.env.AGENT_REWIND_FAULT_TRIALS === undefined
        ? Math.ceil(PER_KIND / 3)
        : PER_KIND;
    for (let n = 0; n < trials; n++) {
      if (kind === 'permission-restore' && !canDrop) continue;
      const t = newTrial(kind, n, kind === 'permission-restore' ? nobody : {});
      if (kind === 'permission-restore') chownTree(t.base, nobody.uid, nobody.gid);
      const t0 = Date.now();
      try {
        await run(t);
      } catch (err) {
        t.problems.push(`trial error: ${(err as Error).message}`);
      }
      totals.trials++;
      const note = (t as Trial & { note?: string }).note;
      if (t.problems.length === 0) totals.passed++;
      else {
        totals.failed++;
        failures.push(`${kind} #${n}${note ? ` (${note})` : ''}: ${t.problems.join(' | ')}${KEEP ? ` [kept: ${t.base}]` : ''}`);
      }
      console.log(
        `${t.problems.length ? 'FAIL' : 'ok  '} ${kind} #${n}${note ? ` (${note})` : ''} ${Date.now() - t0} ms${t.problems.length ? `\n     ${t.problems.join('\n     ')}` : ''}`,
      );
      if (!KEEP || t.problems.length === 0) rmSync(t.base, { recursive: true, force: true });
    }
  }
}

function chownTree(root: string, uid: number, gid: number): void {
  const stack = [root];
  chownSync(root, uid, gid);
  while (stack.length) {
    const d = stack.pop()!;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      try {
        if (st.isSymbolicLink()) continue;
        chownSync(p, uid, gid);
      } catch {
        /* */
      }
      if (st.isDirectory()) stack.push(p);
    }
  }
}

void main();
