// A conversation its host editor rewinds with its own commands (VS Code's chat, for one): agent-rewind never writes
// that agent's files, so for the conversation half of a rewind the preview offers the editor's commands, which the
// agent's adapter builds (`AgentAdapter.runEditorChatAction`) and src/extension hands to the editor.

export type EditorChatAction = 'open' | 'restoreCheckpoint';

/** The request a preview's editor actions are about. */
export interface EditorChatTarget {
  sessionId: string;
  requestId: string;
  requestText: string;
}

/** URI parts, turned into the editor's URI type by the runner. */
export interface ResourceParts {
  scheme: string;
  authority: string;
  path: string;
}

/** The editor's command surface, as src/extension gives it (no `vscode` import in core). */
export interface CommandRunner<U> {
  uri(parts: ResourceParts): U;
  /** The ids of the commands this editor has. */
  commands(): Promise<readonly string[]>;
  execute(id: string, ...args: unknown[]): Promise<unknown>;
}
