// Installs the real Gemini CLI (a pinned version) once, into a cache folder outside package.json, for the tests that
// drive it offline against our scripted fake Gemini REST API (test/agents/); see pinned-cli.mjs.
// Run directly (`node scripts/agents/gemini-cli.mjs`) to install and print the path of the `gemini` script.
import { join } from 'node:path';
import { ensurePinnedCli, installWhenRunDirectly, pinnedDir, reportedVersion } from './pinned-cli.mjs';

export { agentsCacheRoot } from './pinned-cli.mjs';

export const GEMINI_CLI_VERSION = '0.61.0';

export function geminiCliDir() {
  return pinnedDir('gemini-cli', GEMINI_CLI_VERSION);
}

/** The package's script (a JS bundle: run it with `node`). */
export function geminiCliBinary(dir = geminiCliDir()) {
  return join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
}

/** Installs the Gemini CLI when missing and returns the path of its script. */
export function ensureGeminiCli(log) {
  return ensurePinnedCli({
    name: 'gemini-cli',
    label: 'Gemini CLI',
    pkg: '@google/gemini-cli',
    version: GEMINI_CLI_VERSION,
    binary: geminiCliBinary,
    versionOf: (bin) => reportedVersion(process.execPath, [bin], { timeoutMs: 60_000, env: { GEMINI_CLI_NO_RELAUNCH: 'true' } }),
    // the optional native modules (node-pty, keytar) are not needed headless: their install scripts are skipped
    npmArgs: ['--ignore-scripts'],
    log,
  });
}

installWhenRunDirectly(import.meta.url, ensureGeminiCli);
