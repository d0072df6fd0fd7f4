// Types for the TypeScript e2e test that imports chat-code-server.mjs.
export const CHAT_CODE_SERVER_VERSION: string;
export const CHAT_NODE_VERSION: string;
export function ensureChatCodeServer(log?: (m: string) => void): Promise<{ node: string; codeServer: string }>;
