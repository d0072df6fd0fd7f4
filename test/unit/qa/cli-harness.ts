// Runs the CLI as a real process from one esbuild bundle of src/cli/main.ts, with HOME and the working folder inside
// a temp dir, so a test sees exactly what a user sees: stdout, stderr, the exit code, and the bytes on disk.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bundleCli, bundleThreadsInto } from '../files/helpers';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface CliHarness {
  /** The temp folder: HOME, the working folder (`work/`) and the default --home (`home/`) are inside it. */
  dir: string;
  work: string;
  home: string;
  /** The bundled CLI (run it with process.execPath). */
  bundle: string;
  /** The environment every run gets. */
  env: NodeJS.ProcessEnv;
  run(args: string[], opts?: { home?: string | null; cwd?: string; input?: string }): CliRun;
  /** `new --json` in the default home; returns { id, file }. */
  newSession(title?: string): { id: string; file: string };
  dispose(): void;
}

/** What a finished CLI process showed: exit code, both streams, and stdout as JSON when it is JSON. */
export function cliRunOf(r: SpawnSyncReturns<string>): CliRun {
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

export function cliHarness(): CliHarness {
  const dir = mkdtempSync(join(tmpdir(), 'ar-qa-'));
  const work = join(dir, 'work');
  const home = join(dir, 'home');
  mkdirSync(work);
  const bundle = join(dir, 'cli.cjs');
  bundleCli(bundle);
  bundleThreadsInto(dir); // as in dist/: the hashing and compaction threads' bundles beside the CLI's
  const env = { ...process.env, HOME: dir, AGENT_REWIND_HOME: '', AGENT_REWIND_DEBUG: '' };
  const run = (args: string[], opts: { home?: string | null; cwd?: string; input?: string } = {}): CliRun => {
    const homeArgs = opts.home === null ? [] : ['--home', opts.home ?? home];
    const r = spawnSync(process.execPath, [bundle, ...args, ...homeArgs], {
      cwd: opts.cwd ?? work,
      encoding: 'utf8',
      env,
      input: opts.input ?? '',
      maxBuffer: 64 * 1024 * 1024,
    });
    return cliRunOf(r);
  };
  return {
    dir,
    work,
    home,
    bundle,
    env,
    run,
    newSession(title) {
      const r = run(['new', '--json', ...(title === undefined ? [] : ['--title', title])]);
      if (r.code !== 0) throw new Error(`new failed: ${r.stderr}`);
      return r.json;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Every file below dir (relative path → size and mtime), to prove a command wrote nothing it should not have. */
export function fileListing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else out.set(relative(dir, p), `${st.size}:${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

export function bytesOf(file: string): Buffer {
  return readFileSync(file);
}
