// Installs a real agent CLI at a pinned version once, into a cache folder outside package.json, for the tests that
// drive it offline against a scripted fake model (test/agents/). Each agent's script (claude-code.mjs, codex.mjs,
// gemini-cli.mjs, opencode.mjs) says what to install and how to ask the result its version; this is the install they
// share: reused when its folder is complete, two runs that start at once wait for each other instead of installing
// into the same folder, and an install whose binary does not report the pinned version is an error, not a cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from '../e2e/lock.mjs';

/** `$AGENT_REWIND_AGENTS_CACHE`, else ~/.cache/agent-rewind. */
export function agentsCacheRoot() {
  return process.env.AGENT_REWIND_AGENTS_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

/** The folder a pinned CLI lives in: `<cache>/<name>-<version>`. */
export function pinnedDir(name, version) {
  return join(agentsCacheRoot(), `${name}-${version}`);
}

/** What `<command> --version` printed, or undefined when it did not run or failed. */
export function reportedVersion(command, args, opts = {}) {
  const r = spawnSync(command, [...args, '--version'], { encoding: 'utf8', timeout: opts.timeoutMs ?? 30_000, env: { ...process.env, ...opts.env } });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Installs `pkg@version` into pinnedDir(name, version) when it is not there yet and returns the path of its binary.
 * @param {{
 *   name: string, label: string, pkg: string, version: string,
 *   binary: (dir: string) => string,
 *   versionOf: (bin: string) => string | undefined,
 *   matches?: (reported: string) => boolean,
 *   npmArgs?: string[],
 *   log?: (line: string) => void,
 * }} spec npmArgs: more `npm install` flags; matches: whether the reported version is the pinned one (default: it
 *   contains it).
 */
export async function ensurePinnedCli(spec) {
  const { name, label, pkg, version, binary, versionOf } = spec;
  const log = spec.log ?? ((line) => process.stderr.write(line + '\n'));
  const matches = spec.matches ?? ((reported) => reported.includes(version));
  const dir = pinnedDir(name, version);
  const installed = () => existsSync(join(dir, '.complete')) && existsSync(binary(dir));
  if (installed()) return binary(dir);
  mkdirSync(agentsCacheRoot(), { recursive: true });
  return withDirLock(join(agentsCacheRoot(), `${name}-${version}.lock`), async () => {
    if (installed()) return binary(dir);
    log(`installing ${pkg}@${version} into ${dir}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `agent-rewind-${name}`, private: true }, null, 2));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };
    const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', ...(spec.npmArgs ?? []), `${pkg}@${version}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`npm install ${pkg}@${version} failed (exit ${r.status}):\n${r.stderr}`);
    const bin = binary(dir);
    const reported = existsSync(bin) ? versionOf(bin) : undefined;
    if (!reported || !matches(reported)) throw new Error(`${label} installed into ${dir}, but ${bin} ${reported ? `reports "${reported}"` : 'does not run'}`);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
    return bin;
  });
}

/** Run as a script (`node scripts/agents/<agent>.mjs`): installs and prints the binary's path. */
export function installWhenRunDirectly(moduleUrl, ensure) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  ensure()
    .then((bin) => console.log(bin))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
