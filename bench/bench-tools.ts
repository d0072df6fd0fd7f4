// What several benchmarks share: a shadow git repository as the reference (Cline-style), the CLI bundled as it
// ships, random edits with a fixed seed, and how times are printed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { prng } from './workspace-generator';
import { BACKGROUND_TEMP } from '../src/core/files/store/pack-writer';
import { bundleThreadsInto } from '../test/unit/files/helpers';

export const now = () => performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

export function git(gitDir: string, ws: string, args: string[]): void {
  const r = spawnSync('git', [`--git-dir=${gitDir}`, `--work-tree=${ws}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

/** `git add . && git commit` of the shadow repository, timed; then waits out any automatic gc it started. */
export async function gitCheckpoint(gitDir: string, ws: string, msg: string): Promise<number> {
  const t = now();
  git(gitDir, ws, ['add', '.']);
  git(gitDir, ws, ['commit', '-q', '--allow-empty', '--no-verify', '-m', msg]);
  const ms = now() - t;
  for (let i = 0; i < 600 && existsSync(join(gitDir, 'gc.pid')); i++) await sleep(100);
  return ms;
}

/** Appends `// <note>` to `count` distinct files picked with a fixed seed (an agent's edits of one prompt). */
export async function editRandomFiles(ws: string, files: string[], count: number, seed: number, note: string): Promise<string[]> {
  const rand = prng(seed);
  const picked = new Set<string>();
  while (picked.size < count) picked.add(files[Math.floor(rand() * files.length)]!);
  for (const f of picked) {
    const p = join(ws, f);
    await writeFile(p, (await readFile(p, 'utf8')) + `// ${note}\n`);
  }
  return [...picked];
}

/** The CLI bundled as it ships in dist/ (CommonJS, Node 20): `outfile` runs cli-bundle.js beside it from V8's code
 *  cache (src/cli/code-cache.ts), which its first run writes; the threads it starts are bundled beside it too. */
export async function bundleCli(outfile: string): Promise<void> {
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' } as const;
  await build({ ...common, entryPoints: [join(__dirname, '../src/cli/main.ts')], outfile: join(dirname(outfile), 'cli-bundle.js') });
  await build({ ...common, entryPoints: [join(__dirname, '../src/cli/start.ts')], outfile });
  bundleThreadsInto(dirname(outfile)); // as in dist/: the hashing and compaction threads' bundles beside the CLI's
}

/** Waits until the service of `home` has put a compacted pack in place (its background compaction, our gc --auto)
 *  and removed what it compacted; returns how long that took. */
export async function waitForCompaction(home: string): Promise<number> {
  const t = now();
  const root = join(home, 'checkpoints');
  const packDirs = () =>
    readdirSync(root)
      .map((d) => join(root, d, 'packs'))
      .filter((d) => existsSync(d));
  const done = () => {
    const names = packDirs().flatMap((d) => readdirSync(d));
    return names.some((n) => n.endsWith('-c.pack')) && !names.some((n) => n.startsWith(BACKGROUND_TEMP));
  };
  while (!done()) {
    if (now() - t > 600_000) throw new Error('the service did not finish its background compaction within 10 minutes');
    await sleep(200);
  }
  await sleep(1000); // the compacted-away packs are removed right after the new one is in place
  return now() - t;
}
