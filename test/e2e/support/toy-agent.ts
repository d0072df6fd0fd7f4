// The test tree's toy agent (test/support/toy-agent) as the extension loads an extra agent: one JavaScript module
// (agentRewind.agentModules names it), bundled here with the sql.js wasm it reads its databases with beside it.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { bundleForNode } from '../../support/node-bundle';

/** Bundles the toy agent into `dir` and returns the module's path. */
export function bundleToyAgent(repo: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const outfile = bundleForNode(join(repo, 'test/support/toy-agent/agent.ts'), join(dir, 'toy-agent.js'));
  // sqljs-loader.ts looks for the wasm next to the bundle first
  copyFileSync(createRequire(join(repo, 'package.json')).resolve('sql.js/dist/sql-wasm.wasm'), join(dir, 'sql-wasm.wasm'));
  return outfile;
}
