// Runs every Node-only test (test/unit/**/*.test.ts) with node's own test runner through tsx.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// a hook or CLI snapshot in a test would start a checkpoint service that outlives the test (it idles out after 30 min):
// off unless a test turns it on for itself (test/unit/service/auto-start.test.ts)
process.env.AGENT_REWIND_SERVICE_AUTOSTART ??= 'off';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

const filter = process.argv.slice(2);
const files = find('test/unit')
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
