// The CLI as a real process over a VS Code chat workspace: one temp folder holding HOME, agent-rewind's home, VS Code's
// user data (`ud`, where a test plants the chat session) and the workspace (`ws`), with the other agents' homes
// pointed inside it so that nothing of the machine's own sessions is read. Shared by the VS Code chat CLI tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliRunOf, type CliRun } from '../qa/cli-harness';
import { bundleCli } from '../files/helpers';

export interface VsCodeChatCli {
  ws: string;
  ud: string;
  /** Runs the bundled CLI in the workspace, `input` on its standard input. */
  run(args: string[], input?: string): CliRun;
  dispose(): void;
}

export function vscodeChatCli(prefix: string): VsCodeChatCli {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const cli = join(dir, 'cli.cjs');
  bundleCli(cli);
  const ws = join(dir, 'ws');
  const ud = join(dir, 'ud');
  mkdirSync(ws);
  const env = {
    ...process.env,
    HOME: dir,
    AGENT_REWIND_HOME: join(dir, 'home'),
    AGENT_REWIND_VSCODE_USER_DATA: ud,
    CLAUDE_CONFIG_DIR: join(dir, 'nc'),
    CODEX_HOME: join(dir, 'nx'),
  };
  return {
    ws,
    ud,
    run: (args, input = '') => cliRunOf(spawnSync(process.execPath, [cli, ...args], { cwd: ws, encoding: 'utf8', env, input })),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
