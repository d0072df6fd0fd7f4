// The conversation half of "Rewind to here" on a VS Code chat request, done by VS Code itself: agent-rewind never
// writes VS Code's chat files, so the preview offers VS Code's own commands on that session and request, as found in
// VS Code 1.139's workbench (code-server 4.139.1, out/vs/code/browser/workbench/workbench.js):
//   - `vscode.open` on the session's resource `vscode-chat-session://local/<base64url of the session id, unpadded>`
//     (LocalChatSessionUri.forSession; the chat editor resolver opens that scheme) shows the session in a chat editor;
//   - `workbench.action.chat.restoreCheckpoint` (the request's "Restore Checkpoint" button, "Restores workspace and
//     chat to this point") takes a request view model, recognised by having `message`, and uses its `id` (the
//     requestId) and `sessionResource`: it asks to confirm when the requests carry edits, cancels a running request,
//     puts back the files VS Code's edit tools changed (not terminal changes), leaves the request and the later ones
//     aside until the next one is sent, and puts the request's `messageText` (and `attachedContext`) back into an
//     empty chat input to edit and send again. It needs the session loaded, hence the open first.
// Only the calls are built here; src/extension runs them through vscode.commands.
import type { ChatRequestInfo } from './convert';

export const OPEN_COMMAND = 'vscode.open';
export const RESTORE_CHECKPOINT_COMMAND = 'workbench.action.chat.restoreCheckpoint';
export const CHAT_SESSION_SCHEME = 'vscode-chat-session';

export type EditorChatAction = 'open' | 'restoreCheckpoint';

/** The request a preview's VS Code actions are about. */
export interface EditorChatTarget {
  sessionId: string;
  requestId: string;
  requestText: string;
}

/** URI parts, turned into a vscode.Uri by the caller. */
export interface ResourceParts {
  scheme: string;
  authority: string;
  path: string;
}

/** The session's resource as VS Code names a local chat session (LocalChatSessionUri.forSession). */
export function chatSessionResource(sessionId: string): ResourceParts {
  return { scheme: CHAT_SESSION_SCHEME, authority: 'local', path: `/${Buffer.from(sessionId, 'utf8').toString('base64url')}` };
}

export function editorChatTarget(sessionId: string, request: ChatRequestInfo | undefined): EditorChatTarget | undefined {
  if (!request || request.removed) return undefined;
  return { sessionId, requestId: request.requestId, requestText: request.text };
}

/** What Restore Checkpoint reads of the request view model it is given. */
export function restoreCheckpointArgument<U>(target: EditorChatTarget, sessionResource: U): Record<string, unknown> {
  return { id: target.requestId, message: target.requestText, messageText: target.requestText, attachedContext: [], sessionResource };
}

export interface CommandRunner<U> {
  uri(parts: ResourceParts): U;
  /** The ids of the commands this VS Code has. */
  commands(): Promise<readonly string[]>;
  execute(id: string, ...args: unknown[]): Promise<unknown>;
}

/**
 * Runs VS Code's own command for the request. Throws with a user-readable message when this VS Code lacks it (before
 * 1.109 there is no chat session resource; Restore Checkpoint came with the checkpoints of 2025).
 */
export async function runEditorChatAction<U>(action: EditorChatAction, target: EditorChatTarget, run: CommandRunner<U>): Promise<void> {
  const resource = run.uri(chatSessionResource(target.sessionId));
  if (action === 'restoreCheckpoint' && !(await run.commands()).includes(RESTORE_CHECKPOINT_COMMAND))
    throw new Error(`This VS Code has no Restore Checkpoint for chat requests (${RESTORE_CHECKPOINT_COMMAND}); open the session in its Chat view instead.`);
  await run.execute(OPEN_COMMAND, resource);
  if (action === 'restoreCheckpoint') await run.execute(RESTORE_CHECKPOINT_COMMAND, restoreCheckpointArgument(target, resource));
}
