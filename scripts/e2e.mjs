// `npm run test:e2e`: the end-to-end tests in real VS Code (code-server on 127.0.0.1, driven by playwright-core and
// Debian's chromium). Installs what is missing, packages the extension, runs test/e2e/*.e2e.ts with node's test
// runner, and stops everything it started, also on failure or Ctrl-C.
//
//   npm run test:e2e                         all flows and the extension-host tests
//   npm run test:e2e -- rewind               only test files whose name contains "rewind"
//   npm run test:e2e -- --skip-package       reuse dist/agent-rewind.vsix (iterating on tests)
//   npm run test:e2e -- --update-screenshots also copy key-moment screenshots to docs/screenshots
//   npm run test:e2e -- --vsix FILE          test a given .vsix instead of packaging one
//   npm run test:e2e -- --repeat 5           run the suite five times in a row (stops at the first failure)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHostRunner, packageExtension, unpackVsix } from './e2e/extension.mjs';
import { withDirLock } from './e2e/lock.mjs';
import { killRunProcesses } from './e2e/processes.mjs';
import { ensurePrerequisites } from './e2e/setup.mjs';

// hooks run by the tests must not leave a checkpoint service running after them (start-service-later.ts)
process.env.AGENT_REWIND_SERVICE_AUTOSTART ??= 'off';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, v] = args.splice(i, 2);
  return v;
};
const skipPackage = flag('--skip-package');
const updateScreenshots = flag('--update-screenshots');
const repeat = Number(option('--repeat') ?? 1);
const givenVsix = option('--vsix');
const filters = args;

// Every process this run starts inherits the marker, so leftovers can be found and stopped precisely.
const runId = randomUUID();
process.env.AGENT_REWIND_E2E_RUN = runId;
const runDir = mkdtempSync(join(tmpdir(), 'agent-rewind-e2e-'));
let child;
let interrupted = false;

function cleanup() {
  for (const p of killRunProcesses(runId)) console.log(`e2e: stopped a leftover process of this run: ${p.pid} ${p.cmd}`);
  rmSync(runDir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\ne2e: ${signal}: stopping everything this run started…`);
    child?.kill('SIGTERM'); // the test process stops its code-server and browser in its own handlers
    const done = () => {
      cleanup();
      process.exit(130);
    };
    if (child && child.exitCode === null) {
      child.once('exit', done);
      setTimeout(done, 10_000).unref(); // a test process that does not exit in time gets killed by cleanup()
    } else done();
  });
}

function pruneOldResults(root, keep) {
  const runs = readdirSync(root)
    .filter((n) => /^\d{4}-/.test(n))
    .sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - keep))) rmSync(join(root, old), { recursive: true, force: true });
}

function runTests(files, env) {
  return new Promise((resolveRun) => {
    child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=600000', ...files], {
      cwd: repo,
      env,
      stdio: 'inherit',
    });
    child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
  });
}

let status = 1;
try {
  const started = Date.now();
  const { codeServer, chromium } = await ensurePrerequisites((m) => console.log(`e2e: ${m}`));
  let vsix = givenVsix ? resolve(givenVsix) : join(repo, 'dist', 'agent-rewind.vsix');
  if (!givenVsix && (!skipPackage || !existsSync(vsix))) {
    console.log('e2e: packaging the extension (npm run package)…');
    vsix = packageExtension(repo);
  }
  const extension = unpackVsix(vsix, join(runDir, 'extensions'));
  const hostRunner = await buildHostRunner(repo, join(runDir, 'extensions'));
  // One folder per run (several people may run the suite in one clone); the last few are kept.
  const resultsRoot = join(repo, 'test-results', 'e2e');
  const resultsDir = join(resultsRoot, new Date().toISOString().replace(/[:.]/g, '-'));

  const testDir = join(repo, 'test', 'e2e');
  const files = readdirSync(testDir)
    .filter((f) => f.endsWith('.e2e.ts'))
    // agent-*.e2e.ts drive a real agent in a newer VS Code they install themselves: run only when named
    .filter((f) => (filters.length === 0 ? !f.startsWith('agent-') : filters.some((s) => f.includes(s))))
    .sort()
    .map((f) => join('test', 'e2e', f));
  if (files.length === 0) throw new Error(`no test/e2e/*.e2e.ts file matches ${filters.join(', ')}`);

  // What the tests start keeps its temp files in the run's folder, removed by cleanup(): code-server's extension host
  // leaves a vscode-ipc-*.sock in the temp folder every time it is stopped. The path is short enough for those sockets.
  const runTmp = join(runDir, 'tmp');
  mkdirSync(runTmp);
  const env = {
    ...process.env,
    TMPDIR: runTmp,
    AGENT_REWIND_E2E_REPO: repo,
    AGENT_REWIND_E2E_RUN_DIR: join(runDir, 'instances'),
    AGENT_REWIND_E2E_RESULTS: resultsDir,
    AGENT_REWIND_E2E_CODE_SERVER: codeServer,
    AGENT_REWIND_E2E_CHROMIUM: chromium,
    AGENT_REWIND_E2E_EXTENSION: extension,
    AGENT_REWIND_E2E_HOST_RUNNER: hostRunner,
    AGENT_REWIND_E2E_UPDATE_SCREENSHOTS: updateScreenshots ? '1' : '0',
  };
  // Two runs in one clone would overwrite each other's results (and share two CPUs): the second one waits.
  await withDirLock(join(repo, 'test-results', '.e2e.lock'), async () => {
    mkdirSync(resultsDir, { recursive: true });
    pruneOldResults(resultsRoot, 5);
    console.log(`e2e: ready after ${((Date.now() - started) / 1000).toFixed(1)} s; running ${files.length} file(s)${repeat > 1 ? ` ${repeat} times` : ''}`);
    for (let i = 1; i <= repeat; i++) {
      if (repeat > 1) console.log(`\ne2e: run ${i} of ${repeat}`);
      status = await runTests(files, env);
      if (status !== 0) {
        if (repeat > 1) console.log(`e2e: run ${i} of ${repeat} failed`);
        break;
      }
    }
  });
  console.log(status === 0 ? 'e2e: pass' : `e2e: fail (screenshots and logs under ${resultsDir})`);
} catch (e) {
  console.error(`e2e: ${e instanceof Error ? e.message : e}`);
  status = 1;
} finally {
  cleanup();
}
process.exit(status);
