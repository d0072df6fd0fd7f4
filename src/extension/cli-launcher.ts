// Makes `agent-rewind` available in VS Code's integrated terminals, the usual way: a small launcher in the extension's
// global storage, and that folder prepended to PATH through the extension's environment variable collection. Agent
// hooks (Claude Code's) call the same launcher, which is rewritten at every activation so it always runs the installed
// version of the CLI. The CLI runs on `node` when there is one, else on VS Code's own runtime as Node.
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type * as vscode from 'vscode';

export interface CliLauncher {
  /** The launcher's absolute path (what terminals and hooks run). */
  command: string;
  binDir: string;
}

/** POSIX shell single-quoting, so paths with spaces or quotes pass through as they are. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function launcherScript(cliJs: string, runtime: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    return `@echo off\r\nwhere node >nul 2>nul && (node "${cliJs}" %*) || (set ELECTRON_RUN_AS_NODE=1 && "${runtime}" "${cliJs}" %*)\r\n`;
  }
  return [
    '#!/bin/sh',
    '# agent-rewind, as installed with the Agent Rewind VS Code extension (rewritten when the extension starts)',
    `if command -v node >/dev/null 2>&1; then exec node ${shQuote(cliJs)} "$@"; fi`,
    `ELECTRON_RUN_AS_NODE=1 exec ${shQuote(runtime)} ${shQuote(cliJs)} "$@"`,
    '',
  ].join('\n');
}

export async function installCliLauncher(context: vscode.ExtensionContext): Promise<CliLauncher> {
  const binDir = join(context.globalStorageUri.fsPath, 'bin');
  const name = process.platform === 'win32' ? 'agent-rewind.cmd' : 'agent-rewind';
  const command = join(binDir, name);
  await mkdir(binDir, { recursive: true });
  const tmp = `${command}.${process.pid}.tmp`;
  await writeFile(tmp, launcherScript(join(context.extensionPath, 'dist', 'cli.js'), process.execPath), { mode: 0o755 });
  await chmod(tmp, 0o755);
  await rename(tmp, command);
  const env = context.environmentVariableCollection;
  env.description = 'Puts the agent-rewind command on PATH in integrated terminals.';
  env.prepend('PATH', binDir + delimiter);
  return { command, binDir };
}
