// The host-test runner extension: installed next to Agent Rewind by the e2e harness only. When the harness sets
// AGENT_REWIND_HOST_TESTS_RESULT for code-server, it runs the mocha suites once the workbench has started and
// writes their results there. Without that variable it does nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { runSuites } from './run-mocha';

export function activate(context: vscode.ExtensionContext): void {
  const resultFile = process.env.AGENT_REWIND_HOST_TESTS_RESULT;
  if (!resultFile) return;
  const { repoRoot } = JSON.parse(readFileSync(join(context.extensionPath, 'runner.json'), 'utf8')) as { repoRoot: string };
  void runSuites({
    suitesDir: join(context.extensionPath, 'dist', 'suites'),
    repoRoot,
    resultFile,
    grep: process.env.AGENT_REWIND_HOST_TESTS_GREP || undefined,
  });
}

export function deactivate(): void {}
