// VS Code's own chat with a scripted model, as the chat flows run it: code-server 4.139.1 (the one that has the agent
// mode; installed into the cache folder with the Node it needs), the test extension support/vschat.chattest-0.0.1 as
// the language model and driver (it sends the script's prompts and answers each with the script's tool calls), and
// the chat settings that let its tools run unasked. Shared by agent-vscode-chat.e2e.ts and support/chat-lag.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureChatCodeServer } from '../../../scripts/e2e/chat-code-server.mjs';
import { e2eEnv } from './env';
import { openVsCode, type OpenOptions, type VsCode } from './vscode';

/** A tool call of the scripted model, as the driver hands it to VS Code. */
export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
}

/** One request of the script: the prompt sent, the calls the model makes for it, then its reply. */
export interface ScriptedStep {
  /** Names the request in the chat log and in the driver's and model's logs. */
  marker: string;
  prompt: string;
  calls: ScriptedCall[];
  reply: string;
}

/** The driver's folder: it reads its script there and writes its log, the model's calls, `storage.json` (VS Code's
 *  storage folder) and `done.json` or `error.json`. */
export interface ScriptedChatRun {
  out: string;
  /** Write the script before VS Code starts (in `prepare`), with writeChatScript. */
  scriptFile: string;
}

export function newScriptedChatRun(prefix: string): ScriptedChatRun {
  const env = e2eEnv();
  mkdirSync(env.runDir, { recursive: true });
  const out = mkdtempSync(join(env.runDir, `${prefix}-`));
  return { out, scriptFile: join(out, 'script.json') };
}

/** The script the driver follows; `pauseMs`: how long it waits between two requests. */
export function writeChatScript(run: ScriptedChatRun, workspace: string, steps: ScriptedStep[], pauseMs?: number): void {
  writeFileSync(run.scriptFile, JSON.stringify({ workspace, out: run.out, ...(pauseMs !== undefined ? { pauseMs } : {}), steps }));
}

/** code-server with VS Code's chat driven by the script of `run` (written by `prepare`). */
export async function openScriptedChat(
  name: string,
  run: ScriptedChatRun,
  prepare: NonNullable<OpenOptions['prepare']>,
  log: (message: string) => void,
): Promise<VsCode> {
  const { node, codeServer } = await ensureChatCodeServer(log);
  return openVsCode({
    name,
    codeServer: { entry: codeServer, node },
    extraExtensions: [join(e2eEnv().repo, 'test', 'e2e', 'support', 'vschat.chattest-0.0.1')],
    settings: {
      'chat.allowAnonymousAccess': true,
      'chat.permissions.default': 'autoApprove',
      'chat.tools.global.autoApprove': true,
      'chat.byokUtilityModelDefault': 'mainAgent',
      'chat.useHooks': true,
    },
    env: { VSCHAT_SCRIPT: run.scriptFile },
    prepare,
  });
}

/** The model's calls of VS Code's tools. */
export const runInTerminal = (workspace: string, command: string): ScriptedCall => ({
  name: 'run_in_terminal',
  input: { command: `cd '${workspace}' && ${command}`, explanation: 'scripted', goal: 'scripted', mode: 'sync' },
});
export const createFile = (workspace: string, path: string, content: string): ScriptedCall => ({
  name: 'create_file',
  input: { filePath: join(workspace, path), content },
});
export const replaceInFile = (workspace: string, path: string, oldString: string, newString: string): ScriptedCall => ({
  name: 'replace_string_in_file',
  input: { filePath: join(workspace, path), oldString, newString },
});
