// The editor's command surface for an agent whose conversation the editor rewinds with its own commands (the
// preview's buttons): the calls are built by the agent's adapter in core; this only hands them to vscode.commands.
import * as vscode from 'vscode';
import type { CommandRunner } from '../core/sources';

export function editorCommandRunner(): CommandRunner<vscode.Uri> {
  return {
    uri: (parts) => vscode.Uri.from(parts),
    commands: () => Promise.resolve(vscode.commands.getCommands(true)),
    execute: (id, ...args) => Promise.resolve(vscode.commands.executeCommand(id, ...args)),
  };
}
