// Types for the TypeScript e2e tests that import processes.mjs.
import type { ChildProcess } from 'node:child_process';

export interface ProcessHandle {
  pid: number | undefined;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitCode(): number | null;
  stop(): Promise<void>;
}

export function startProcess(cmd: string, args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string }): ProcessHandle;
export function stopAll(): Promise<void>;
export function killRunProcesses(runId: string): { pid: number; cmd: string }[];
export function stopAllOnSignals(): void;
export function stoppingOnSignal(): boolean;
