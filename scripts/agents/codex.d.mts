// Types for the TypeScript tests and benchmarks that import codex.mjs.
export const CODEX_VERSION: string;
export function agentsCacheRoot(): string;
export function codexDir(): string;
export function codexBinary(dir?: string): string;
export function ensureCodex(log?: (line: string) => void): Promise<string>;
