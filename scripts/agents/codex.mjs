// Installs the real Codex CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Responses API (test/agents/); see pinned-cli.mjs.
// Run directly (`node scripts/agents/codex.mjs`) to install and print the path of the `codex` launcher.
import { join } from 'node:path';
import { ensurePinnedCli, installWhenRunDirectly, pinnedDir, reportedVersion } from './pinned-cli.mjs';

export { agentsCacheRoot } from './pinned-cli.mjs';

export const CODEX_VERSION = '0.169.0';

export function codexDir() {
  return pinnedDir('codex', CODEX_VERSION);
}

/** The package's launcher (a node script that starts the platform's native binary). */
export function codexBinary(dir = codexDir()) {
  return join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
}

/** Installs Codex when missing and returns the path of its launcher (run it with `node`). */
export function ensureCodex(log) {
  return ensurePinnedCli({
    name: 'codex',
    label: 'Codex',
    pkg: '@openai/codex',
    version: CODEX_VERSION,
    binary: codexBinary,
    versionOf: (bin) => reportedVersion(process.execPath, [bin]),
    log,
  });
}

installWhenRunDirectly(import.meta.url, ensureCodex);
