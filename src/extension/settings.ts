// Reads the agentRewind.* settings into the engine's shape.
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { parseSettings, type EngineSettings } from '../core/engine';
import { agentSwitchKeys } from '../core/sources';

/** `editorStorage`: this window's storage folder (the parent of the extension's storageUri), where the editor keeps
 *  what it writes for this window (its own chat sessions among it). */
export function readSettings(editorStorage?: string): EngineSettings {
  const config = vscode.workspace.getConfiguration('agentRewind');
  // each agent's own switches (includeClaudeCodeSessions…), as the registry's agents declare them
  const settings = parseSettings((key) => config.get(key), process.env, agentSwitchKeys());
  return editorStorage ? { ...settings, editorStorage } : settings;
}

/** This window's storage folder: the parent of the extension's own (undefined without a folder open). */
export function editorStorageOf(context: Pick<vscode.ExtensionContext, 'storageUri'>): string | undefined {
  const uri = context.storageUri;
  return uri && (uri.scheme === 'file' || uri.scheme === 'vscode-userdata') ? dirname(uri.fsPath) : undefined;
}

/** Whether a configuration change touches a setting the engine must be rebuilt for. */
export function affectsEngine(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('agentRewind');
}
