// Installs the real Codex CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Responses API (test/agents/). Reused when present; two runs that start at
// once wait for each other instead of installing into the same folder.
// Run directly (`node scripts/agents/codex.mjs`) to install and print the path of the `codex` launcher.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from '../e2e/lock.mjs';

export const CODEX_VERSION = '0.169.0';

/** `$AGENT_REWIND_AGENTS_CACHE`, else ~/.cache/agent-rewind. */
export function agentsCacheRoot() {
  return process.env.AGENT_REWIND_AGENTS_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

export function codexDir() {
  return join(agentsCacheRoot(), `codex-${CODEX_VERSION}`);
}

/** The package's launcher (a node script that starts the platform's native binary). */
export function codexBinary(dir = codexDir()) {
  return join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
}

function versionOf(bin) {
  const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function installed(dir) {
  return existsSync(join(dir, '.complete')) && existsSync(codexBinary(dir));
}

/** Installs Codex when missing and returns the path of its launcher (run it with `node`). */
export async function ensureCodex(log = (line) => process.stderr.write(line + '\n')) {
  const dir = codexDir();
  if (installed(dir)) return codexBinary(dir);
  mkdirSync(agentsCacheRoot(), { recursive: true });
  return withDirLock(join(agentsCacheRoot(), `codex-${CODEX_VERSION}.lock`), async () => {
    if (installed(dir)) return codexBinary(dir);
    log(`installing @openai/codex@${CODEX_VERSION} into ${dir}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-rewind-codex', private: true }, null, 2));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };
    const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', `@openai/codex@${CODEX_VERSION}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`npm install @openai/codex@${CODEX_VERSION} failed (exit ${r.status}):\n${r.stderr}`);
    const bin = codexBinary(dir);
    const version = existsSync(bin) ? versionOf(bin) : undefined;
    if (!version?.includes(CODEX_VERSION)) throw new Error(`Codex installed into ${dir}, but ${bin} ${version ? `reports "${version}"` : 'does not run'}`);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
    return bin;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureCodex()
    .then((bin) => console.log(bin))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
