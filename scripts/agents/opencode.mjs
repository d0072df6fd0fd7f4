// Installs the real OpenCode CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Chat Completions API (test/agents/). Reused when present; two runs that start at
// once wait for each other instead of installing into the same folder.
// Run directly (`node scripts/agents/opencode.mjs`) to install and print the path of the `opencode` binary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from '../e2e/lock.mjs';

export const OPENCODE_VERSION = '1.18.33';

/** `$AGENT_REWIND_AGENTS_CACHE`, else ~/.cache/agent-rewind. */
export function agentsCacheRoot() {
  return process.env.AGENT_REWIND_AGENTS_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

export function opencodeDir() {
  return join(agentsCacheRoot(), `opencode-${OPENCODE_VERSION}`);
}

/** The platform's native binary (Bun-compiled), from the optional package the launcher package depends on. */
export function opencodeBinary(dir = opencodeDir()) {
  return join(
    dir,
    'node_modules',
    `opencode-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`,
    'bin',
    process.platform === 'win32' ? 'opencode.exe' : 'opencode',
  );
}

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function installed(dir) {
  return existsSync(join(dir, '.complete')) && existsSync(opencodeBinary(dir));
}

/** Installs OpenCode when missing and returns the path of its binary. */
export async function ensureOpenCode(log = (line) => process.stderr.write(line + '\n')) {
  const dir = opencodeDir();
  if (installed(dir)) return opencodeBinary(dir);
  mkdirSync(agentsCacheRoot(), { recursive: true });
  return withDirLock(join(agentsCacheRoot(), `opencode-${OPENCODE_VERSION}.lock`), async () => {
    if (installed(dir)) return opencodeBinary(dir);
    log(`installing opencode-ai@${OPENCODE_VERSION} into ${dir}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-rewind-opencode', private: true }, null, 2));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };
    const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', `opencode-ai@${OPENCODE_VERSION}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`npm install opencode-ai@${OPENCODE_VERSION} failed (exit ${r.status}):\n${r.stderr}`);
    const bin = opencodeBinary(dir);
    const version = existsSync(bin) ? versionOf(bin) : undefined;
    if (!version?.includes(OPENCODE_VERSION))
      throw new Error(`OpenCode installed into ${dir}, but ${bin} ${version ? `reports "${version}"` : 'does not run'}`);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
    return bin;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureOpenCode()
    .then((bin) => console.log(bin))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
