// Types for the TypeScript tests and benchmarks that import claude-code.mjs.
export const CLAUDE_CODE_VERSION: string;
export function agentsCacheRoot(): string;
export function claudeCodeDir(): string;
export function claudeBinary(dir?: string): string;
export function ensureClaudeCode(log?: (line: string) => void): Promise<string>;
