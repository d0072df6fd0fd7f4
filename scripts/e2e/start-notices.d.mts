// Types for the TypeScript tests that import start-notices.mjs.
export function aptPlan(missing: string[], isRoot: boolean): { commands: string[][]; announce: string[] };
export function demoReuseNotice(demoDir: string, createdAt: Date): string;
