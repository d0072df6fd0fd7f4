// agent-rewind's own CLI as the agent tests run it: dist/cli.js, which the agents' hooks run too (so it must be built:
// npm run test:agents builds it first), started with this Node.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const OUR_CLI = join(resolve(__dirname, '../../..'), 'dist', 'cli.js');

/** Fails the test at once when dist/cli.js is missing (every hook would fail later, less plainly). */
export function assertCliBuilt(): void {
  assert.ok(existsSync(OUR_CLI), 'dist/cli.js is missing: npm run build (npm run test:agents does it)');
}

/** `agent-rewind <args>` to its end (at most two minutes). */
export function runOurCli(args: readonly string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeout?: number }): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [OUR_CLI, ...args], { encoding: 'utf8', timeout: 120_000, ...opts });
}
