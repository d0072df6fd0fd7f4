// VS Code entry point. Returns the API other extensions use (docs/API.md "## Extension API").
import type * as vscode from 'vscode';
import { AgentRewindExtension } from './agent-rewind-extension';
import type { AgentRewindApi } from './api';

export type { AgentRewindApi, AgentRewindSession } from './api';

export function activate(context: vscode.ExtensionContext): AgentRewindApi {
  const extension = new AgentRewindExtension(context);
  context.subscriptions.push(extension);
  return extension.api;
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
