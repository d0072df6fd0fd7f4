// Shared by the file-checkpoint tests: temp folders and an exact fingerprint of a folder tree.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { bundleForNode } from '../../support/node-bundle';
import { THREADS } from '../../../src/core/files/workers/thread-start';

/**
 * Waits out the stat cache's racy window (2 s, workspace-model.ts): a file changed within it of a scan is read again
 * by the next one. utimes() can put a file's mtime in the past but sets its ctime to now, so a test that wants "a
 * file written a while ago" (as a real tree's files are) ages it and then waits this out.
 */
export const afterRacyWindow = (): Promise<void> => new Promise((r) => setTimeout(r, 2100));

export async function tempBase(prefix = 'arw-files-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Every path under `root` with its type, permission bits and content (or link target), sorted. `folderModes`: a
 *  folder's line holds its permission bits too (a restore must bring those back as well). */
export async function fingerprint(root: string, opts: { skipGitInternals?: boolean; folderModes?: boolean } = {}): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const names = (await readdir(join(root, rel))).sort();
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      const p = join(root, r);
      const st = await lstat(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out.push(`${r} link -> ${await readlink(p)}`);
      else if (st.isDirectory()) {
        out.push(opts.folderModes ? `${r}/ dir ${mode}` : `${r}/ dir`);
        if (!(opts.skipGitInternals && name === '.git')) await walk(r);
      } else
        out.push(
          `${r} file ${mode} ${createHash('sha256')
            .update(await readFile(p))
            .digest('hex')
            .slice(0, 16)}`,
        );
    }
  };
  await walk('');
  return out;
}

export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), content);
  }
}

/** Every file under `root` (workspace-relative, '/'-separated) with its text. */
export async function readTree(root: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, await readTree(root, p));
    else out[p] = await readFile(join(root, p), 'utf8');
  }
  return out;
}

/** Makes the flat folder `dir` hold exactly `files`: the others in it are deleted. */
export async function replaceFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const name of await readdir(dir)) if (!(name in files)) await unlink(join(dir, name));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

/**
 * A test client's connect timeout where it asserts the service answered: a hook's 20 ms is the product's quick
 * fallback, but on a loaded machine the test process's own event loop can be later than that, and the client then
 * rightly answers locally (the fallback has tests of its own).
 */
export const CONNECT_UNDER_LOAD_MS = 5_000;

export const userAnchor = { checkpointingEnabled: true, kind: 'user-message' as const };

/** Starts src/core/files/workers/files-worker.ts in a worker thread (the extension starts the bundled dist/files-worker.js). */
export function startTsFilesWorker(): Worker {
  const source = join(__dirname, '../../../src/core/files/workers/files-worker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true });
}

/** Bundles the CLI (src/cli/main.ts) into one file, as scripts/build.mjs bundles dist/cli-bundle.js: a test runs it with
 *  process.execPath and each call starts in ~0.1 s instead of going through tsx. Returns `outfile`. */
export function bundleCli(outfile: string): string {
  return bundleForNode(join(__dirname, '../../../src/cli/main.ts'), outfile);
}

let cliBundle: string | undefined;

/** The CLI bundled once for this test process into a folder of its own with what dist/ holds beside it (the threads'
 *  bundles, sql.js's wasm): run with process.execPath, a call starts in ~0.1 s where `node --import tsx
 *  src/cli/main.ts` takes about a second. Removed when the process exits. */
export function bundledCli(): string {
  if (cliBundle) return cliBundle;
  const dir = mkdtempSync(join(tmpdir(), 'ar-cli-bundle-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  bundleThreadsInto(dir);
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dir, 'sql-wasm.wasm'));
  cliBundle = bundleCli(join(dir, 'cli.cjs'));
  return cliBundle;
}

/** Bundles the worker threads' code into `dir`, where a CLI bundled into `dir` starts them from, as dist/ holds them
 *  beside dist/cli-bundle.js (scripts/build.mjs). */
export function bundleThreadsInto(dir: string): void {
  for (const name of THREADS) {
    bundleForNode(join(__dirname, `../../../src/core/files/workers/${name}.ts`), join(dir, `${name}.js`));
  }
}
