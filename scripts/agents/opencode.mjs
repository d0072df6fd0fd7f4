// Installs the real OpenCode CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Chat Completions API (test/agents/); see pinned-cli.mjs.
// Run directly (`node scripts/agents/opencode.mjs`) to install and print the path of the `opencode` binary.
import { join } from 'node:path';
import { ensurePinnedCli, installWhenRunDirectly, pinnedDir, reportedVersion } from './pinned-cli.mjs';

export { agentsCacheRoot } from './pinned-cli.mjs';

export const OPENCODE_VERSION = '1.18.33';

export function opencodeDir() {
  return pinnedDir('opencode', OPENCODE_VERSION);
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

/** Installs OpenCode when missing and returns the path of its binary. */
export function ensureOpenCode(log) {
  return ensurePinnedCli({
    name: 'opencode',
    label: 'OpenCode',
    pkg: 'opencode-ai',
    version: OPENCODE_VERSION,
    binary: opencodeBinary,
    versionOf: (bin) => reportedVersion(bin, []),
    log,
  });
}

installWhenRunDirectly(import.meta.url, ensureOpenCode);
