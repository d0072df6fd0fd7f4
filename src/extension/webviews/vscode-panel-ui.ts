// PanelUi on top of the real VS Code API.
import * as vscode from 'vscode';
import type { PanelUi } from './panel-ui';

export function vscodePanelUi(): PanelUi {
  return {
    copyToClipboard: async (text) => vscode.env.clipboard.writeText(text),
    showError: (message) => void vscode.window.showErrorMessage(message),
    showInfo: async (message, ...actions) => vscode.window.showInformationMessage(message, ...actions),
    withProgress: async (title, task) => vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, task),
    executeCommand: async (command, ...args) => vscode.commands.executeCommand(command, ...args),
  };
}
