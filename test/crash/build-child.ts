// Bundles session-child.ts into one CommonJS file so each crash run starts in ~50 ms instead of going through tsx.
import { buildSync } from 'esbuild';
import { join } from 'node:path';

export function buildSessionChild(outDir: string): string {
  const outfile = join(outDir, 'session-child.cjs');
  buildSync({
    entryPoints: [join(__dirname, 'session-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}
