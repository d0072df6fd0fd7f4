// VS Code entry point. Returns the API other extensions use (docs/API.md "## Extension API").
import * as vscode from 'vscode';
import { agentModulesFromEnv, loadAgentModules } from '../core/sources';
import { AgentRewindExtension } from './agent-rewind-extension';
import { readSettings } from './settings';
import type { AgentRewindApi } from './api';

export type { AgentRewindApi, AgentRewindSession } from './api';

export async function activate(context: vscode.ExtensionContext): Promise<AgentRewindApi> {
  // extra agents (agentRewind.agentModules, $AGENT_REWIND_AGENT_MODULES) are registered before anything lists sessions
  const modules = [...readSettings().agentModules, ...agentModulesFromEnv()];
  if (modules.length) {
    try {
      await loadAgentModules(modules);
    } catch (error) {
      void vscode.window.showErrorMessage(`Agent Rewind: ${(error as Error).message}`);
    }
  }
  const extension = new AgentRewindExtension(context);
  context.subscriptions.push(extension);
  return extension.api;
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
