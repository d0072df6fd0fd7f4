// A TypeScript entry bundled into one CommonJS file for Node 20, as scripts/build.mjs bundles dist/: a test's child
// process (the CLI, a crash child, an agent module) starts from it in ~0.1 s instead of going through tsx.
import { buildSync } from 'esbuild';

/** Bundles `entry` into `outfile` and returns `outfile`. */
export function bundleForNode(entry: string, outfile: string): string {
  buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  return outfile;
}
