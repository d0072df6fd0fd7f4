// A deterministic source-like workspace for benchmarks: same seed, same bytes, on every machine. Generated once
// per version into os.tmpdir() and reused (a marker file beside it says the tree is complete).
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../test/support/prng';
export { prng };

const VERSION = 1;

const WORDS =
  'const let return function export import from class interface type async await if else for while new this value result item index count data config options error message path file node tree hash store snapshot session entry anchor user model state update render handle request response buffer stream parse format check build write read list map set get add remove apply merge diff patch line text size mode time'.split(
    ' ',
  );

export interface GeneratedWorkspace {
  root: string;
  files: string[];
  totalBytes: number;
}

function lines(rand: () => number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const indent = '  '.repeat(Math.floor(rand() * 4));
    const k = 3 + Math.floor(rand() * 9);
    const toks: string[] = [];
    for (let j = 0; j < k; j++) {
      const r = rand();
      toks.push(
        r < 0.1
          ? String(Math.floor(rand() * 100000))
          : r < 0.15
            ? `"${WORDS[Math.floor(rand() * WORDS.length)]}_${Math.floor(rand() * 1000)}"`
            : WORDS[Math.floor(rand() * WORDS.length)]! + (rand() < 0.3 ? String(Math.floor(rand() * 50)) : ''),
      );
    }
    out.push(indent + toks.join(' ') + (rand() < 0.5 ? ';' : rand() < 0.5 ? ' {' : ' }'));
  }
  return out;
}

/** Source-like text of about `size` bytes, with a line unique to (seed, n) so no two files are identical. */
export function fileContent(rand: () => number, pool: string[], size: number, unique: string): string {
  const parts: string[] = [`// ${unique}`];
  let len = parts[0]!.length + 1;
  while (len < size) {
    const l = pool[Math.floor(rand() * pool.length)]!;
    parts.push(l);
    len += l.length + 1;
  }
  return parts.join('\n') + '\n';
}

/**
 * `fileCount` files in folders 10 wide (pkgN/modN/partN/), sizes mostly 2–12 KiB with a few large ones, about 8 KiB
 * on average; a root .gitignore with an ignored build/ folder and *.log files, plus a nested .gitignore.
 */
export async function generateWorkspace(fileCount: number, seed = 42): Promise<GeneratedWorkspace> {
  const root = join(tmpdir(), `agent-rewind-bench-ws-v${VERSION}-${fileCount}-${seed}`);
  const marker = root + '.complete';
  const rand = prng(seed);
  const pool = lines(rand, 20000);
  const files: string[] = [];
  const sizes: number[] = [];
  const perDir = 50;
  for (let i = 0; i < fileCount; i++) {
    const d = Math.floor(i / perDir);
    const dir = `pkg${Math.floor(d / 100) % 10}${Math.floor(d / 1000) ? `_${Math.floor(d / 1000)}` : ''}/mod${Math.floor(d / 10) % 10}/part${d % 10}`;
    files.push(`${dir}/file${i % perDir}.ts`);
    const r = rand();
    sizes.push(r < 0.005 ? 100_000 + Math.floor(rand() * 400_000) : 2_000 + Math.floor(rand() * 9_500));
  }
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  if (existsSync(marker)) return { root, files, totalBytes };
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await writeFile(join(root, '.gitignore'), 'build/\n*.log\n');
  await mkdir(join(root, 'build'), { recursive: true });
  for (let i = 0; i < 20; i++) await writeFile(join(root, 'build', `out${i}.js`), 'ignored build output\n'.repeat(50));
  const made = new Set<string>();
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const dir = f.slice(0, f.lastIndexOf('/'));
    if (!made.has(dir)) {
      await mkdir(join(root, dir), { recursive: true });
      made.add(dir);
    }
    await writeFile(join(root, f), fileContent(rand, pool, sizes[i]!, `${seed}:${i}`));
  }
  await writeFile(join(root, 'pkg0', '.gitignore'), '*.tmp\n');
  await writeFile(join(root, 'debug.log'), 'ignored\n');
  await writeFile(marker, new Date().toISOString());
  return { root, files, totalBytes };
}
