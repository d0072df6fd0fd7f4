// The session kind VS Code chat sessions are listed and catalogued as (SessionListing.source).
export const VSCODE_CHAT_KIND = 'vscode-chat';
