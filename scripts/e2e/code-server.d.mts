// Types for the TypeScript e2e tests that import code-server.mjs.
import type { ProcessHandle } from './processes.mjs';

export interface CodeServerInstance {
  url: string;
  port: number;
  workbenchUrl: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  process: ProcessHandle;
  extensionHostLogs(): string[];
  stop(): Promise<void>;
}

export function launchCodeServer(o: {
  codeServer: string;
  dir: string;
  workspace: string;
  extensions: string[];
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  machineSettings?: Record<string, unknown>;
  port?: number;
  node?: string;
}): Promise<CodeServerInstance>;
