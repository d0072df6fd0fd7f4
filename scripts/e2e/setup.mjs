// Installs what the end-to-end tests and `npm start` need, only when it is missing: Debian packages,
// the ripgrep archive that @vscode/ripgrep would otherwise download from GitHub, and code-server in its own
// folder outside package.json (it is a ~300 MB test tool, shared across runs and clones).
// Run directly (`node scripts/e2e/setup.mjs`) or import ensurePrerequisites().
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir, arch } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from './lock.mjs';
import { aptPlan } from './start-notices.mjs';

export const CODE_SERVER_VERSION = '4.100.3';
// The @vscode/ripgrep version code-server 4.100.3 pins (lib/vscode/npm-shrinkwrap.json); checked after install.
const RIPGREP_PACKAGE_VERSION = '1.15.11';
const RIPGREP_RELEASE = 'v13.0.0-10';
// curl: the agents' hooks reach the checkpoint service with sh + curl (src/core/service/launcher-script.ts), tested by npm test
const APT_PACKAGES = ['libkrb5-dev', 'pkg-config', 'ripgrep', 'chromium', 'unzip', 'curl', 'strace'];

export function cacheRoot() {
  return process.env.AGENT_REWIND_E2E_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

export function codeServerDir() {
  return join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
}

function codeServerEntry(dir = codeServerDir()) {
  return join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

const dpkgInstalled = (pkg) => {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
};

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

export function ensureAptPackages(log = console.log, { browser = true } = {}) {
  const wanted = APT_PACKAGES.filter((p) => browser || p !== 'chromium');
  // node-gyp compiles kerberos during code-server's install.
  for (const [tool, pkg] of [
    ['make', 'make'],
    ['g++', 'g++'],
    ['python3', 'python3'],
  ]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) wanted.push(pkg);
  }
  const missing = wanted.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot && spawnSync('sh', ['-c', 'command -v sudo']).status !== 0) {
    throw new Error(`missing Debian packages: ${missing.join(' ')}. Install them as root: apt-get update && apt-get install -y ${missing.join(' ')}`);
  }
  if (process.env.AGENT_REWIND_NO_APT === '1') {
    throw new Error(
      `missing Debian packages: ${missing.join(' ')} (AGENT_REWIND_NO_APT=1, so they are not installed). Install them yourself: apt-get install -y ${missing.join(' ')}`,
    );
  }
  const plan = aptPlan(missing, isRoot);
  // Said before it happens: system packages are installed as root (the README says so too).
  for (const line of plan.announce) log(line);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const [cmd, ...args] of plan.commands) run(cmd, args, { env });
}

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (p && existsSync(p)) return p;
  }
  throw new Error('chromium not found: install the Debian package "chromium" or set CHROMIUM_PATH');
}

// @vscode/ripgrep's postinstall looks for this archive before it tries GitHub; we build it from Debian's rg.
export function seedRipgrepCache(version = RIPGREP_PACKAGE_VERSION) {
  const target = arch() === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  const dir = join(tmpdir(), `vscode-ripgrep-cache-${version}`);
  const archive = join(dir, `ripgrep-${RIPGREP_RELEASE}-${target}.tar.gz`);
  if (existsSync(archive)) return archive;
  const rg = execFileSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).trim();
  mkdirSync(dir, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'rg-stage-'));
  try {
    execFileSync('cp', [rg, join(staging, 'rg')]);
    execFileSync('tar', ['-czf', `${archive}.tmp`, '-C', staging, 'rg']);
    execFileSync('mv', [`${archive}.tmp`, archive]);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return archive;
}

export async function ensureCodeServer(log = console.log) {
  const dir = codeServerDir();
  const marker = join(dir, '.complete');
  if (existsSync(marker) && existsSync(codeServerEntry(dir))) return codeServerEntry(dir);
  mkdirSync(cacheRoot(), { recursive: true });
  // Two clones installing at once would corrupt the shared folder.
  return withDirLock(join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}.lock`), async () => {
    if (existsSync(marker) && existsSync(codeServerEntry(dir))) return codeServerEntry(dir);
    log(`installing code-server ${CODE_SERVER_VERSION} into ${dir} (about a minute)…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-rewind-code-server', private: true }, null, 2));
    seedRipgrepCache();
    const env = {
      ...process.env,
      npm_config_yes: 'true', // a nested `npx node-gyp` cancels without a TTY otherwise
      npm_config_unsafe_perm: 'true', // its postinstall refuses to run as root otherwise
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['install', '--no-save', '--no-package-lock', `code-server@${CODE_SERVER_VERSION}`], { cwd: dir, env });
    const shrinkwrap = join(dir, 'node_modules', 'code-server', 'lib', 'vscode', 'npm-shrinkwrap.json');
    if (existsSync(shrinkwrap)) {
      const pinned = JSON.parse(readFileSync(shrinkwrap, 'utf8')).packages?.['node_modules/@vscode/ripgrep']?.version;
      if (pinned && pinned !== RIPGREP_PACKAGE_VERSION) log(`note: code-server pins @vscode/ripgrep ${pinned}; update RIPGREP_PACKAGE_VERSION`);
    }
    if (!existsSync(codeServerEntry(dir))) throw new Error(`code-server install finished but ${codeServerEntry(dir)} is missing`);
    writeFileSync(marker, new Date().toISOString());
    return codeServerEntry(dir);
  });
}

/** Everything the e2e tests need; `npm start` passes { browser: false } (the user brings their own browser). */
export async function ensurePrerequisites(log = console.log, { browser = true } = {}) {
  ensureAptPackages(log, { browser });
  const codeServer = await ensureCodeServer(log);
  return { codeServer, chromium: browser ? chromiumPath() : undefined };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensurePrerequisites().then(
    (r) => console.log(`ready: code-server ${r.codeServer}, chromium ${r.chromium}`),
    (e) => {
      console.error(`setup failed: ${e.message}`);
      process.exit(1);
    },
  );
}
