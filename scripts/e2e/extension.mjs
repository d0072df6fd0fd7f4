// Prepares the extensions a test instance of VS Code runs: the real .vsix (packaged exactly as users get it,
// then unpacked the way VS Code installs it) and, for the extension-host tests only, the host-test runner.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

export function packageExtension(repo) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', '--silent', 'package'], { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm run package failed (exit code ${r.status})`);
  const vsix = join(repo, 'dist', 'agent-rewind.vsix');
  if (!existsSync(vsix)) throw new Error(`npm run package did not produce ${vsix}`);
  return vsix;
}

/** Unpacks a .vsix into `<into>/<publisher>.<name>-<version>/` (what VS Code's installer does) and returns that folder. */
export function unpackVsix(vsix, into) {
  mkdirSync(into, { recursive: true });
  const staging = mkdtempSync(join(into, '.unpack-'));
  try {
    execFileSync('unzip', ['-q', vsix, 'extension/*', '-d', staging]);
    const ext = join(staging, 'extension');
    const manifest = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
    const target = join(into, `${manifest.publisher}.${manifest.name}-${manifest.version}`.toLowerCase());
    rmSync(target, { recursive: true, force: true });
    renameSync(ext, target);
    return target;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export const HOST_RUNNER_ID = 'agent-rewind-tests.host-test-runner';

/**
 * Builds the host-test runner extension (test/host/runner) with every suite under test/host/suite bundled next to
 * it. It finds mocha in this repository's node_modules through runner.json, so it only works on this machine:
 * it is installed for the tests, never shipped.
 */
export async function buildHostRunner(repo, into) {
  const target = join(into, `${HOST_RUNNER_ID}-0.0.1`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(repo, 'test', 'host', 'runner', 'package.json'), 'utf8'));
  writeFileSync(join(target, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(target, 'runner.json'), JSON.stringify({ repoRoot: resolve(repo) }, null, 2));
  const suiteDir = join(repo, 'test', 'host', 'suite');
  const suites = readdirSync(suiteDir).filter((f) => f.endsWith('.test.ts'));
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: 'inline', external: ['vscode', 'mocha'], logLevel: 'warning' };
  const runnerDir = join(repo, 'test', 'host', 'runner');
  await esbuild.build({
    ...common,
    entryPoints: { extension: join(runnerDir, 'extension.ts'), 'electron-index': join(runnerDir, 'electron-index.ts') },
    outdir: join(target, 'dist'),
  });
  await esbuild.build({
    ...common,
    entryPoints: Object.fromEntries(suites.map((f) => [f.replace(/\.ts$/, ''), join(suiteDir, f)])),
    outdir: join(target, 'dist', 'suites'),
  });
  await esbuild.stop(); // its service process would otherwise outlive the harness
  return target;
}
