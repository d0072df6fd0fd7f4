// The agent's checkpoint/rewind tools (docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools) as VS Code language model tools, so an agent in VS Code's chat can
// call them (contributes.languageModelTools: agent-rewind_checkpoint, agent-rewind_rewind). They act on the active
// Agent Rewind session (the one in the status bar). VS Code tells a tool nothing about the end of the turn, so the
// rewind is applied right after the rewind call has been answered — never inside it (docs/API.md, Agent tools).
import * as vscode from 'vscode';
import type { CheckpointInput, RewindInput } from '../core/agent-tools';
import type { RewindEngine } from '../core/engine';
import type { ActiveSession } from './active-session';

export const CHECKPOINT_TOOL_NAME = 'agent-rewind_checkpoint';
export const REWIND_TOOL_NAME = 'agent-rewind_rewind';

const NO_SESSION =
  'No Agent Rewind session is active in this workspace. Open one in the Agent Rewind view (or start one through the CLI or an agent extension) and try again.';

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

export function registerLanguageModelTools(engine: RewindEngine, active: ActiveSession, changed: (sessionRef: string) => void): vscode.Disposable[] {
  // Older hosts without the LM API (or with it turned off) simply get no tools.
  if (typeof vscode.lm?.registerTool !== 'function') return [];

  const checkpoint: vscode.LanguageModelTool<CheckpointInput> = {
    prepareInvocation: (options) => ({
      invocationMessage: options.input?.goal ? `Setting a checkpoint: ${options.input.goal}` : 'Setting a checkpoint',
    }),
    async invoke(options) {
      const file = await active.current();
      if (!file) throw new Error(NO_SESSION);
      const tools = await engine.agentTools(file);
      return text(tools.checkpoint(options.input, { messageCount: 0 }).text);
    },
  };

  const rewind: vscode.LanguageModelTool<RewindInput> = {
    prepareInvocation: () => ({ invocationMessage: 'Rewinding to the checkpoint with a report' }),
    async invoke(options) {
      const file = await active.current();
      if (!file) throw new Error(NO_SESSION);
      const tools = await engine.agentTools(file);
      const result = tools.rewind(options.input);
      setTimeout(() => {
        engine
          .endTurn(file)
          .then(() => changed(file))
          .catch((error: unknown) => void vscode.window.showErrorMessage(`Agent Rewind: the rewind could not be recorded: ${(error as Error).message}`));
      }, 0);
      return text(result.text);
    },
  };

  return [vscode.lm.registerTool(CHECKPOINT_TOOL_NAME, checkpoint), vscode.lm.registerTool(REWIND_TOOL_NAME, rewind)];
}
