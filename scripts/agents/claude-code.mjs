// Installs the real Claude Code CLI (a pinned version) once, into a cache folder outside package.json, for the tests
// that drive it offline against our scripted fake Messages API (test/agents/); see pinned-cli.mjs.
// Run directly (`node scripts/agents/claude-code.mjs`) to install and print the path of the `claude` binary.
import { join } from 'node:path';
import { ensurePinnedCli, installWhenRunDirectly, pinnedDir, reportedVersion } from './pinned-cli.mjs';

export { agentsCacheRoot } from './pinned-cli.mjs';

export const CLAUDE_CODE_VERSION = '2.1.330';

export function claudeCodeDir() {
  return pinnedDir('claude-code', CLAUDE_CODE_VERSION);
}

/** The native binary the package's `bin` names (its postinstall puts the platform's build there). */
export function claudeBinary(dir = claudeCodeDir()) {
  return join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
}

/** Installs Claude Code when missing and returns the path of its binary. */
export function ensureClaudeCode(log) {
  return ensurePinnedCli({
    name: 'claude-code',
    label: 'Claude Code',
    pkg: '@anthropic-ai/claude-code',
    version: CLAUDE_CODE_VERSION,
    binary: claudeBinary,
    versionOf: (bin) => reportedVersion(bin, [], { env: { DISABLE_AUTOUPDATER: '1' } }),
    matches: (reported) => reported.startsWith(CLAUDE_CODE_VERSION),
    // its engines field asks for Node >= 22; the native binary runs anyway, so the warning is not shown
    npmArgs: ['--engine-strict=false'],
    log,
  });
}

installWhenRunDirectly(import.meta.url, ensureClaudeCode);
