// Types for the TypeScript tests that import gemini-cli.mjs.
export const GEMINI_CLI_VERSION: string;
export function agentsCacheRoot(): string;
export function geminiCliDir(): string;
export function geminiCliBinary(dir?: string): string;
export function ensureGeminiCli(log?: (line: string) => void): Promise<string>;
