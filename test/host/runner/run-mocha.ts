// Runs the bundled host suites with mocha inside a VS Code extension host and writes a JSON result file the
// harness waits for. Mocha comes from the repository's node_modules (runner.json names the repository), because
// the runner is only ever installed on the machine that built it.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface HostTestResult {
  title: string;
  durationMs?: number;
  error?: string;
}

export interface HostTestResults {
  passes: HostTestResult[];
  failures: HostTestResult[];
  pending: HostTestResult[];
  /** Set when the run could not start or crashed outside a test. */
  fatal?: string;
}

function writeResults(resultFile: string, results: HostTestResults): void {
  mkdirSync(dirname(resultFile), { recursive: true });
  const tmp = `${resultFile}.tmp`;
  writeFileSync(tmp, JSON.stringify(results, null, 2));
  renameSync(tmp, resultFile); // the harness must never read half a file
}

export async function runSuites(opts: { suitesDir: string; repoRoot: string; resultFile?: string; grep?: string }): Promise<HostTestResults> {
  const results: HostTestResults = { passes: [], failures: [], pending: [] };
  try {
    const Mocha = createRequire(join(opts.repoRoot, 'package.json'))('mocha') as typeof import('mocha');
    const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec', grep: opts.grep });
    for (const f of readdirSync(opts.suitesDir)
      .filter((n) => n.endsWith('.test.js'))
      .sort()) {
      mocha.addFile(join(opts.suitesDir, f));
    }
    await new Promise<void>((resolve) => {
      const runner = mocha.run(() => resolve());
      runner.on('pass', (t) => results.passes.push({ title: t.fullTitle(), durationMs: t.duration }));
      runner.on('fail', (t, err: Error) => results.failures.push({ title: t.fullTitle(), error: err?.stack ?? String(err) }));
      runner.on('pending', (t) => results.pending.push({ title: t.fullTitle() }));
    });
  } catch (e) {
    results.fatal = e instanceof Error ? (e.stack ?? e.message) : String(e);
  }
  if (opts.resultFile) writeResults(opts.resultFile, results);
  return results;
}
