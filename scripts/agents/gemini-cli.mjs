// Installs the real Gemini CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Gemini REST API (test/agents/). Reused when present; two runs that start
// at once wait for each other instead of installing into the same folder.
// Run directly (`node scripts/agents/gemini-cli.mjs`) to install and print the path of the `gemini` script.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from '../e2e/lock.mjs';

export const GEMINI_CLI_VERSION = '0.61.0';

/** `$AGENT_REWIND_AGENTS_CACHE`, else ~/.cache/agent-rewind. */
export function agentsCacheRoot() {
  return process.env.AGENT_REWIND_AGENTS_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

export function geminiCliDir() {
  return join(agentsCacheRoot(), `gemini-cli-${GEMINI_CLI_VERSION}`);
}

/** The package's script (a JS bundle: run it with `node`). */
export function geminiCliBinary(dir = geminiCliDir()) {
  return join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
}

function versionOf(bin) {
  const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, GEMINI_CLI_NO_RELAUNCH: 'true' } });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function installed(dir) {
  return existsSync(join(dir, '.complete')) && existsSync(geminiCliBinary(dir));
}

/** Installs the Gemini CLI when missing and returns the path of its script. */
export async function ensureGeminiCli(log = (line) => process.stderr.write(line + '\n')) {
  const dir = geminiCliDir();
  if (installed(dir)) return geminiCliBinary(dir);
  mkdirSync(agentsCacheRoot(), { recursive: true });
  return withDirLock(join(agentsCacheRoot(), `gemini-cli-${GEMINI_CLI_VERSION}.lock`), async () => {
    if (installed(dir)) return geminiCliBinary(dir);
    log(`installing @google/gemini-cli@${GEMINI_CLI_VERSION} into ${dir}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-rewind-gemini-cli', private: true }, null, 2));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };
    // the optional native modules (node-pty, keytar) are not needed headless: their install scripts are skipped
    const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--ignore-scripts', `@google/gemini-cli@${GEMINI_CLI_VERSION}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`npm install @google/gemini-cli@${GEMINI_CLI_VERSION} failed (exit ${r.status}):\n${r.stderr}`);
    const bin = geminiCliBinary(dir);
    const version = existsSync(bin) ? versionOf(bin) : undefined;
    if (!version?.includes(GEMINI_CLI_VERSION))
      throw new Error(`Gemini CLI installed into ${dir}, but ${bin} ${version ? `reports "${version}"` : 'does not run'}`);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
    return bin;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureGeminiCli()
    .then((bin) => console.log(bin))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
