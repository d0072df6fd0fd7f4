// Types for the TypeScript e2e tests that import sessions.mjs.
export type Files = Record<string, string>;
export function cli(repo: string, home: string, args: string[]): any;
export function appendMessage(repo: string, home: string, sessionRef: string, role: 'user' | 'assistant', text: string, o?: { snapshot?: boolean }): string;
export function writeFiles(root: string, files: Files): void;
export function shell(workspace: string, command: string): void;
export const REWIND_SESSION: {
  title: string;
  initial: Files;
  afterTurn1: Files;
  turn2Shell: string;
  afterTurn2: Files;
  afterTurn3: Files;
  expectedAtSecondMessage: Record<string, { insertions: number; deletions: number }>;
};
export interface RewindSession {
  id: string;
  file: string;
  title: string;
  users: string[];
  assistants: string[];
}
export function createRewindSession(o: { repo: string; home: string; workspace: string }): RewindSession;
export function rewindSessionFinalFiles(): Files;
export function rewindSessionFilesAtSecondMessage(): Files;
export interface BranchedSession {
  id: string;
  file: string;
  title: string;
  users: string[];
  assistants: string[];
  oldBranch: string;
  newBranch: string;
  oldHead: string;
  newHead: string;
}
export function createBranchedSession(o: { repo: string; home: string; workspace: string; title?: string }): BranchedSession;
export function branchNames(repo: string, home: string, session: string): { all: string[]; active: string | undefined };
export interface EditSession {
  id: string;
  file: string;
  title: string;
  user: string;
  toolCall: string;
  done: string;
  oldText: string;
  newText: string;
}
export function createEditSession(o: { repo: string; home: string; workspace: string; title?: string }): EditSession;
export function removeDir(dir: string): void;
export function createDemo(o: { repo: string; home: string; workspace: string }): { sessions: [RewindSession, BranchedSession] };
