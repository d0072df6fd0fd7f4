// Installs the real Claude Code CLI (a pinned version) once, into a cache folder outside package.json, for the tests
// that drive it offline against our scripted fake Messages API (test/agents/). Reused when present; two runs that
// start at once wait for each other instead of installing into the same folder.
// Run directly (`node scripts/agents/claude-code.mjs`) to install and print the path of the `claude` binary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withDirLock } from '../e2e/lock.mjs';

export const CLAUDE_CODE_VERSION = '2.1.330';

/** `$AGENT_REWIND_AGENTS_CACHE`, else ~/.cache/agent-rewind. */
export function agentsCacheRoot() {
  return process.env.AGENT_REWIND_AGENTS_CACHE || join(homedir(), '.cache', 'agent-rewind');
}

export function claudeCodeDir() {
  return join(agentsCacheRoot(), `claude-code-${CLAUDE_CODE_VERSION}`);
}

/** The native binary the package's `bin` names (its postinstall puts the platform's build there). */
export function claudeBinary(dir = claudeCodeDir()) {
  return join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
}

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function installed(dir) {
  return existsSync(join(dir, '.complete')) && existsSync(claudeBinary(dir));
}

/** Installs Claude Code when missing and returns the path of its binary. */
export async function ensureClaudeCode(log = (line) => process.stderr.write(line + '\n')) {
  const dir = claudeCodeDir();
  if (installed(dir)) return claudeBinary(dir);
  mkdirSync(agentsCacheRoot(), { recursive: true });
  return withDirLock(join(agentsCacheRoot(), `claude-code-${CLAUDE_CODE_VERSION}.lock`), async () => {
    if (installed(dir)) return claudeBinary(dir);
    log(`installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${dir}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-rewind-claude-code', private: true }, null, 2));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };
    // its engines field asks for Node >= 22; the native binary runs anyway, so the warning is not shown
    const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--engine-strict=false', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`npm install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} failed (exit ${r.status}):\n${r.stderr}`);
    const bin = claudeBinary(dir);
    const version = existsSync(bin) ? versionOf(bin) : undefined;
    if (!version?.startsWith(CLAUDE_CODE_VERSION))
      throw new Error(`Claude Code installed into ${dir}, but ${bin} ${version ? `reports "${version}"` : 'does not run'}`);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
    return bin;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureClaudeCode()
    .then((bin) => console.log(bin))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
