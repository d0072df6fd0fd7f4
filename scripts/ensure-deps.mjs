// Run first by `npm start` and `npm test`: on a fresh clone (no node_modules) or after package-lock.json changed, it
// installs exactly what the lock file names (`npm ci`), saying so in one line; otherwise it costs a few milliseconds.
// Plain Node, no dependencies: it runs before there are any.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The first package the lock names that node_modules lacks (or holds in another version), else undefined. */
export function missingPackage(root = repo) {
  let lock;
  try {
    lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  } catch {
    return 'package-lock.json';
  }
  for (const [path, info] of Object.entries(lock.packages ?? {})) {
    // top-level packages only (nested ones come with them); optional platform packages may rightly be absent
    if (!path.startsWith('node_modules/') || path.indexOf('/node_modules/', 1) >= 0 || info.optional) continue;
    try {
      const installed = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8'));
      if (info.version && installed.version !== info.version) return `${path.slice('node_modules/'.length)}@${info.version}`;
    } catch {
      return path.slice('node_modules/'.length);
    }
  }
  return undefined;
}

const missing = existsSync(join(repo, 'node_modules')) ? missingPackage() : 'node_modules';
if (missing !== undefined) {
  console.log(`agent-rewind: installing the dependencies package-lock.json names (${missing} is missing or stale): npm ci…`);
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (r.status !== 0) {
    console.error(`agent-rewind: npm ci failed (exit ${r.status ?? r.signal}); see the messages above`);
    process.exit(1);
  }
}
