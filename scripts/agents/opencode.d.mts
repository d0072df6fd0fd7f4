// Types for the TypeScript tests and benchmarks that import opencode.mjs.
export const OPENCODE_VERSION: string;
export function agentsCacheRoot(): string;
export function opencodeDir(): string;
export function opencodeBinary(dir?: string): string;
export function ensureOpenCode(log?: (line: string) => void): Promise<string>;
