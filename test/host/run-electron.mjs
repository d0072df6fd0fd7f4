// The extension-host suites (test/host/suite) under @vscode/test-electron, for machines that have a desktop VS Code:
//   CODE_EXECUTABLE=/path/to/code node test/host/run-electron.mjs
// It never downloads VS Code (CI has no internet beyond npm and Debian, so CI runs the same suites in code-server
// through `npm run test:e2e`). Builds the extension first.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';
import { buildHostRunner } from '../../scripts/e2e/extension.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const exe = process.env.CODE_EXECUTABLE;
if (!exe) {
  console.error('CODE_EXECUTABLE is not set: point it at a desktop VS Code binary (e.g. /usr/share/code/code), or run `npm run test:e2e`.');
  process.exit(2);
}

const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: repo, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const tmp = mkdtempSync(join(tmpdir(), 'agent-rewind-host-'));
let status = 1;
try {
  const runner = await buildHostRunner(repo, join(tmp, 'runner'));
  const workspace = join(tmp, 'workspace');
  const home = join(tmp, 'agent-rewind-home');
  for (const d of [workspace, home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(workspace, 'README.md'), 'host tests\n');
  status = await runTests({
    vscodeExecutablePath: exe,
    extensionDevelopmentPath: repo,
    extensionTestsPath: join(runner, 'dist', 'electron-index.js'),
    extensionTestsEnv: { AGENT_REWIND_HOME: home },
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--user-data-dir',
      join(tmp, 'user-data'),
      '--skip-welcome',
      '--skip-release-notes',
    ],
  });
} catch (e) {
  console.error(`host tests failed: ${e instanceof Error ? e.message : e}`);
  status = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(status);
