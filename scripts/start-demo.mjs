// `npm start` (after `npm run build`): real VS Code (code-server) in your browser, on a demo workspace whose agent
// sessions have branches, checkpoints and file changes, with this repository's build of Agent Rewind installed.
// Installs code-server on first use (see scripts/e2e/setup.mjs). Runs until Ctrl-C.
//
//   npm start                 reuse .e2e/demo if it exists
//   npm start -- --fresh      recreate the demo workspace and sessions
//   npm start -- --port 8123  a fixed port (default: a free one)
//   npm start -- --smoke      start, check that the workbench answers, stop again (CI runs this on a fresh clone)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchCodeServer } from './e2e/code-server.mjs';
import { stopAllOnSignals, stoppingOnSignal } from './e2e/processes.mjs';
import { createDemo } from './e2e/sessions.mjs';
import { demoReuseNotice } from './e2e/start-notices.mjs';
import { ensurePrerequisites } from './e2e/setup.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const fresh = args.includes('--fresh');
const smoke = args.includes('--smoke');
// a smoke run leaves nothing running: the demo's CLI snapshots start no checkpoint service (it would idle on for 30 min)
if (smoke) process.env.AGENT_REWIND_SERVICE_AUTOSTART ??= 'off';
const portArg = args.indexOf('--port');
const port = portArg >= 0 ? Number(args[portArg + 1]) : undefined;
if (portArg >= 0 && !(port > 0 && port < 65536)) {
  console.error('--port needs a number between 1 and 65535');
  process.exit(2);
}

// The demo lives in the repository under .e2e/ (gitignored) so it is easy to find and delete.
const demo = join(repo, '.e2e', 'demo');
const workspace = join(demo, 'workspace');
const home = join(demo, 'agent-rewind-home');

stopAllOnSignals();
try {
  if (!existsSync(join(repo, 'dist', 'extension.js')) || !existsSync(join(repo, 'dist', 'cli.js'))) {
    throw new Error('dist/ is not built: run `npm start` (it builds first) or `npm run build`');
  }
  const { codeServer } = await ensurePrerequisites((m) => console.log(m), { browser: false });

  if (fresh) rmSync(demo, { recursive: true, force: true });
  if (existsSync(workspace)) console.log(demoReuseNotice(demo, statSync(workspace).mtime));
  else {
    console.log('creating the demo workspace and sessions (through the agent-rewind CLI)…');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(home, { recursive: true });
    try {
      createDemo({ repo, home, workspace });
    } catch (e) {
      rmSync(demo, { recursive: true, force: true }); // half a demo would be reused next time
      throw e;
    }
  }

  // Install this build the way VS Code would unpack it: the files the .vsix ships.
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const extension = join(demo, 'build', `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  rmSync(extension, { recursive: true, force: true });
  mkdirSync(extension, { recursive: true });
  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'media', 'dist']) {
    if (existsSync(join(repo, f))) cpSync(join(repo, f), join(extension, f), { recursive: true, filter: (src) => !src.endsWith('.vsix') });
  }
  rmSync(join(demo, 'code-server', 'extensions'), { recursive: true, force: true });

  const server = await launchCodeServer({
    codeServer,
    dir: join(demo, 'code-server'),
    workspace,
    extensions: [extension],
    env: { AGENT_REWIND_HOME: home },
    port,
  });
  if (smoke) {
    const res = await fetch(server.workbenchUrl);
    const page = await res.text();
    await server.stop();
    // nor one the extension started
    spawnSync(process.execPath, [join(repo, 'dist', 'cli.js'), 'serve', '--stop', '--home', home], { stdio: 'ignore' });
    if (!res.ok || !/<html/i.test(page)) throw new Error(`the workbench answered ${res.status} at ${server.workbenchUrl}`);
    console.log(`npm start: ok (the workbench answered at ${server.workbenchUrl}; stopped again)`);
    process.exit(0);
  }
  console.log('');
  console.log(`Agent Rewind demo is running in real VS Code: ${server.workbenchUrl}`);
  console.log(`  workspace: ${workspace}`);
  console.log(`  sessions:  ${join(home, 'sessions')} (AGENT_REWIND_HOME=${home})`);
  console.log(`  log:       ${server.logFile}`);
  console.log('Open the URL in your browser, then the "Agent Rewind" icon in the activity bar. Ctrl-C stops it.');
  const { code, signal } = await server.process.exited;
  if (stoppingOnSignal()) await new Promise(() => {}); // Ctrl-C: the signal handler finishes and exits
  console.error(`code-server exited (${signal ?? code}); see ${server.logFile}`);
  process.exit(1);
} catch (e) {
  console.error(`npm start: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
