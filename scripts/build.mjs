// Builds every bundle the extension, the CLI and the webviews need into dist/.
import * as esbuild from 'esbuild';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

const targets = [
  { ...common, entryPoints: ['src/extension/main.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['src/core/files/workers/files-worker.ts'], outfile: 'dist/files-worker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // threads the others start, each found beside the bundle that starts it (src/core/files/workers/thread-start.ts)
  ...['blob-thread-main', 'compaction-thread-main'].map((name) => ({
    ...common,
    entryPoints: [`src/core/files/workers/${name}.ts`],
    outfile: `dist/${name}.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  })),
  { ...common, entryPoints: ['src/core/service/service-worker.ts'], outfile: 'dist/service-worker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // dist/cli.js is a few lines that run dist/cli-bundle.js (the CLI) from V8's code cache (src/cli/code-cache.ts)
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-bundle.js', platform: 'node', format: 'cjs', target: 'node20' },
  {
    ...common,
    entryPoints: ['src/cli/start.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: { transcript: 'webview-ui/src/transcript/main.ts', preview: 'webview-ui/src/preview/main.ts', compare: 'webview-ui/src/compare/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    loader: { '.css': 'css' },
  },
];

function copyAssets() {
  mkdirSync('dist/codicons', { recursive: true });
  cpSync(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
  const codicons = dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
  cpSync(join(codicons, 'codicon.css'), 'dist/codicons/codicon.css');
  cpSync(join(codicons, 'codicon.ttf'), 'dist/codicons/codicon.ttf');
}

const present = (t) =>
  Object.values(typeof t.entryPoints === 'object' && !Array.isArray(t.entryPoints) ? t.entryPoints : { a: t.entryPoints[0] }).every((p) => {
    try {
      return require('node:fs').statSync(p).isFile();
    } catch {
      return false;
    }
  });

copyAssets();
const active = targets.filter(present);
if (watch) {
  for (const t of active) await (await esbuild.context(t)).watch();
  console.log('watching for changes…');
} else {
  await Promise.all(active.map((t) => esbuild.build(t)));
  // a production build has no source maps: the ones a development build left would describe other code
  if (production) for (const f of readdirSync('dist', { recursive: true })) if (String(f).endsWith('.map')) rmSync(join('dist', String(f)));
  try {
    chmodSync('dist/cli.js', 0o755);
  } catch {
    /* CLI not built yet */
  }
}
