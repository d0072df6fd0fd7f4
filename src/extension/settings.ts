// Reads the agentRewind.* settings into the engine's shape.
import * as vscode from 'vscode';
import { parseSettings, type EngineSettings } from '../core/engine';

export function readSettings(): EngineSettings {
  const config = vscode.workspace.getConfiguration('agentRewind');
  return parseSettings((key) => config.get(key));
}

/** Whether a configuration change touches a setting the engine must be rebuilt for. */
export function affectsEngine(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('agentRewind');
}
