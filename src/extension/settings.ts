// Reads the agentRewind.* settings into the engine's shape.
import * as vscode from 'vscode';
import { parseSettings, type EngineSettings } from '../core/engine';
import { agentSwitchKeys } from '../core/sources';

export function readSettings(): EngineSettings {
  const config = vscode.workspace.getConfiguration('agentRewind');
  // each agent's own switches (includeClaudeCodeSessions…), as the registry's agents declare them
  return parseSettings((key) => config.get(key), process.env, agentSwitchKeys());
}

/** Whether a configuration change touches a setting the engine must be rebuilt for. */
export function affectsEngine(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('agentRewind');
}
