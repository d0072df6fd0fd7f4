// Entry for @vscode/test-electron (extensionTestsPath): the same suites, run in a desktop VS Code's extension host.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSuites } from './run-mocha';

export async function run(): Promise<void> {
  const root = join(__dirname, '..');
  const { repoRoot } = JSON.parse(readFileSync(join(root, 'runner.json'), 'utf8')) as { repoRoot: string };
  const r = await runSuites({ suitesDir: join(root, 'dist', 'suites'), repoRoot, grep: process.env.AGENT_REWIND_HOST_TESTS_GREP || undefined });
  if (r.fatal) throw new Error(r.fatal);
  if (r.failures.length > 0) throw new Error(`${r.failures.length} host test(s) failed`);
  if (r.passes.length === 0) throw new Error('no host tests ran');
}
