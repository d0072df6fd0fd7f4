// Runs the tests that drive real agent CLIs offline (test/agents/**/*.e2e.ts) with node's test runner through tsx.
// Builds dist/ first (the hooks run dist/cli.js) and installs the pinned Claude Code once (scripts/agents/).
// `node scripts/run-agent-tests.mjs [path-filter…]`
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureClaudeCode } from './agents/claude-code.mjs';

// the agents' hooks run dist/cli.js: they must not leave a checkpoint service running after the tests
process.env.AGENT_REWIND_SERVICE_AUTOSTART ??= 'off';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith('.e2e.ts') ? [p] : [];
  });
}

const filter = process.argv.slice(2);
const files = find('test/agents')
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
try {
  await ensureClaudeCode();
} catch (err) {
  console.error(`cannot install Claude Code: ${err.message}`);
  process.exit(1);
}
// one file at a time: each drives a real CLI and the machine is shared
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
