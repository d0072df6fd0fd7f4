// Runs VS Code's own chat commands for the conversation part of a VS Code chat rewind (the preview's buttons): the
// calls are built in core (sources/vscode-chat/editor-chat.ts); this only hands them to vscode.commands.
import * as vscode from 'vscode';
import { runEditorChatAction, type EditorChatAction, type EditorChatTarget } from '../core/sources';

export function runVsCodeChatAction(action: EditorChatAction, target: EditorChatTarget): Promise<void> {
  return runEditorChatAction(action, target, {
    uri: (parts) => vscode.Uri.from(parts),
    commands: () => Promise.resolve(vscode.commands.getCommands(true)),
    execute: (id, ...args) => Promise.resolve(vscode.commands.executeCommand(id, ...args)),
  });
}
