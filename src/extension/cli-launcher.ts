// Makes `agent-rewind` available in VS Code's integrated terminals, the usual way: a small launcher in the extension's
// global storage, and that folder prepended to PATH through the extension's environment variable collection. Agent
// hooks (Claude Code's, Codex's) call the same launcher, which is rewritten at every activation so it always runs the
// installed version of the CLI. The CLI runs on `node` when there is one, else on VS Code's own runtime as Node; a
// hook first tries the checkpoint service with sh + perl or curl (core/service/launcher-script.ts).
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type * as vscode from 'vscode';
import { launcherScript } from '../core/service';
import { loadedAgentModules } from '../core/sources';

export interface CliLauncher {
  /** The launcher's absolute path (what terminals and hooks run). */
  command: string;
  binDir: string;
}

export { shQuote } from '../core/service';

/** `home`: the agent-rewind home the user configured (agentRewind.home), baked into the hooks' path; undefined: the
 *  CLI's own resolution ($AGENT_REWIND_HOME, else ~/.agent-rewind). */
export async function installCliLauncher(context: vscode.ExtensionContext, home?: string): Promise<CliLauncher> {
  const binDir = join(context.globalStorageUri.fsPath, 'bin');
  const name = process.platform === 'win32' ? 'agent-rewind.cmd' : 'agent-rewind';
  const command = join(binDir, name);
  await mkdir(binDir, { recursive: true });
  const tmp = `${command}.${process.pid}.tmp`;
  const script = launcherScript({
    cliJs: join(context.extensionPath, 'dist', 'cli.js'),
    runtime: process.execPath,
    runtimeKind: 'electron',
    ...(home ? { home } : {}),
    writtenBy: 'as installed with the Agent Rewind VS Code extension (rewritten when the extension starts)',
    // the agents loaded from agentRewind.agentModules: the CLI this launcher starts (set-up, their hooks) knows them
    agentModules: loadedAgentModules(),
  });
  await writeFile(tmp, script, { mode: 0o755 });
  await chmod(tmp, 0o755);
  await rename(tmp, command);
  const env = context.environmentVariableCollection;
  env.description = 'Puts the agent-rewind command on PATH in integrated terminals.';
  env.prepend('PATH', binDir + delimiter);
  return { command, binDir };
}
