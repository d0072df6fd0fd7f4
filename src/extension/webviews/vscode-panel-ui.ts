// PanelUi on top of the real VS Code API.
import * as vscode from 'vscode';
import { withoutCodeMarks } from '../../shared/plain-text';
import type { PanelUi } from './panel-ui';

export function vscodePanelUi(): PanelUi {
  return {
    copyToClipboard: async (text) => vscode.env.clipboard.writeText(text),
    // Notifications show text as it is: the engine's `code` marks would show as raw backticks.
    showError: (message) => void vscode.window.showErrorMessage(withoutCodeMarks(message)),
    showInfo: async (message, ...actions) => vscode.window.showInformationMessage(withoutCodeMarks(message), ...actions),
    withProgress: async (title, task) => vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, task),
    executeCommand: async (command, ...args) => vscode.commands.executeCommand(command, ...args),
  };
}
