// The API other extensions (agents) get from `vscode.extensions.getExtension('agent-rewind.agent-rewind').activate()`.
// Documented in docs/API.md "## Extension API". Every mutation also tells the UI (tree, status bar, transcripts).
import { resolve } from 'node:path';
import type { CheckpointInput, RewindInput, CheckpointContext, ToolResult } from '../core/agent-tools';
import type { BranchInfo, CheckpointInfo } from '../core/branches';
import type { AppendResult, RewindEngine, SessionListing, UndoOutcome } from '../core/engine';
import type { FileHunks, HunkSelection, RewindFilesResult } from '../core/files';
import type { AgentMessage } from '../core/session';
import type { ArtifactVersion, JsonValue, StateSnapshot } from '../core/state';
import type { RewindMode, RewindOutcome, RewindPreviewModel } from '../shared/view-models';

export interface AgentRewindApi {
  readonly apiVersion: 1;
  /** A new session for a workspace folder (default: the first one open). Written at once. */
  createSession(opts?: { cwd?: string; title?: string }): Promise<AgentRewindSession>;
  /** An existing session file (ours, pi's or oh-my-pi's). */
  openSession(sessionFile: string): Promise<AgentRewindSession>;
  /** This workspace's sessions of every agent, newest first. */
  listSessions(): Promise<ApiSessionListing[]>;
}

/** A listing as the API has always given it: `sessionFile` is kept for the extensions written before sessions were
 *  named by refs (sources/session-ref.ts); it equals `sessionRef`, a path only for agents with a file per session. */
export type ApiSessionListing = SessionListing & { /** @deprecated use sessionRef */ readonly sessionFile: string };

/** Which files a file rewind brings back besides this session's own changes, or exactly which (docs/API.md). */
export interface ApiFilesChoice {
  /** Also files whose last change since the message was the user's own. */
  overwriteUserModified?: boolean;
  /** Also files another session's turns changed since. */
  includeOtherSessions?: boolean;
  /** Exactly these workspace-relative paths, whoever changed them. */
  only?: string[];
  /** Only these hunks (numbered from 1 as `fileHunks` gives them) of these files, whoever changed them; with the
   *  `hash` `fileHunks` gave, the rewind refuses when the file is no longer those bytes. With `only`, the whole
   *  selection; without, nothing else comes back. */
  hunks?: HunkSelection[];
}

export interface AgentRewindSession {
  /** The API opens and makes sessions agent-rewind writes, which are files: their ref is their path. */
  readonly sessionFile: string;
  readonly sessionRef: string;
  readonly sessionId: string;
  /** A user message takes the file snapshot it anchors (when checkpointing is on); an assistant message the
   *  turn-end snapshot. Resolves once the snapshot is taken: act on the message only after that. */
  appendMessage(message: AgentMessage, opts?: { id?: string }): Promise<AppendResult>;
  /** A named pointer to the active branch's head (docs/API.md, Extension API). */
  checkpoint(name: string): Promise<CheckpointInfo>;
  /** Rewinds the conversation to a named checkpoint. */
  restore(name: string): Promise<BranchInfo>;
  /** A new branch whose head is messageId (the conversation only). */
  rewind(messageId: string): Promise<BranchInfo>;
  /** The files as they were when the user message was sent (docs/API.md, File checkpoints). dryRun never throws.
   *  Each file of the result says who changed it (`changedBy`), and a file of which only some hunks come back says
   *  which (`partial`). */
  rewindFiles(messageId: string, opts?: ApiFilesChoice & { dryRun?: boolean }): Promise<RewindFilesResult>;
  /** Each file's changes since the user message as hunks `rewindFiles`' `hunks` can take back one by one (the same
   *  computation the rewind uses), or why it can only come back whole. Reads only. */
  fileHunks(messageId: string, relPaths: readonly string[]): Promise<FileHunks[]>;
  /** "Rewind to here": the dry run of conversation + state + files together, and its apply. */
  previewRewind(messageId: string): Promise<RewindPreviewModel>;
  rewindToHere(messageId: string, mode?: RewindMode, opts?: ApiFilesChoice): Promise<RewindOutcome>;
  undoLastRewind(): Promise<{ filesChanged: string[]; userModified: string[] }>;
  /** Applies the last undone rewind of the session again, with the same choice of files and hunks. */
  redoRewind(): Promise<UndoOutcome>;
  switchBranch(name: string): Promise<BranchInfo>;
  branches(): Promise<BranchInfo[]>;
  /** State and artifacts as of an entry (default: the active branch's leaf). */
  state(entryId?: string): Promise<StateSnapshot>;
  updateState(delta: Record<string, JsonValue>): Promise<string>;
  saveArtifact(name: string, bytes: Uint8Array, mimeType?: string): Promise<ArtifactVersion>;
  /** The agent's own checkpoint/rewind tools (docs/API.md, Agent tools). Refusals throw with their documented texts. */
  readonly agentTools: {
    checkpoint(input: CheckpointInput, context?: CheckpointContext): Promise<ToolResult<{ goal: string; startedAt: string }>>;
    rewind(input: RewindInput): Promise<ToolResult<{ report: string; rewound: true }>>;
    /** Call at the end of each turn: applies a requested rewind and returns the messages to continue with. */
    endTurn(messages?: readonly AgentMessage[]): Promise<AgentMessage[] | undefined>;
  };
}

export function createApi(engine: RewindEngine, changed: (sessionRef: string) => void, defaultCwd: () => string | undefined): AgentRewindApi {
  const open = async (sessionFile: string): Promise<AgentRewindSession> => {
    const file = resolve(sessionFile);
    const session = await engine.session(file);
    const after = async <T>(p: Promise<T>): Promise<T> => {
      try {
        return await p;
      } finally {
        changed(file);
      }
    };
    return {
      sessionFile: file,
      sessionRef: file,
      sessionId: session.sessionId,
      appendMessage: (message, opts) => after(engine.appendMessage(file, message, opts)),
      checkpoint: (name) => after(engine.createCheckpoint(file, name)),
      restore: (name) => after(engine.restoreCheckpoint(file, name)),
      rewind: (messageId) => after(engine.fork(file, messageId)),
      rewindFiles: (messageId, opts) => (opts?.dryRun ? engine.rewindFiles(file, messageId, opts) : after(engine.rewindFiles(file, messageId, opts))),
      fileHunks: (messageId, relPaths) => engine.fileHunks(file, messageId, relPaths),
      previewRewind: (messageId) => engine.previewRewind(file, messageId),
      rewindToHere: (messageId, mode = 'all', opts) => after(engine.applyRewind(file, messageId, mode, opts)),
      undoLastRewind: () => after(engine.undoLastRewind(file)),
      redoRewind: () => after(engine.redoRewind(file)),
      switchBranch: (name) => after(engine.switchBranch(file, name)),
      branches: () => engine.branches(file),
      state: (entryId) => engine.stateOf(file, entryId),
      updateState: (delta) => after(engine.updateState(file, delta)),
      saveArtifact: (name, bytes, mimeType) => after(engine.saveArtifact(file, name, bytes, mimeType)),
      agentTools: {
        checkpoint: async (input, context) => (await engine.agentTools(file)).checkpoint(input, context ?? { messageCount: 0 }),
        rewind: async (input) => (await engine.agentTools(file)).rewind(input),
        endTurn: (messages) => after(engine.endTurn(file, messages)),
      },
    };
  };
  return {
    apiVersion: 1,
    createSession: async (opts = {}) => {
      const cwd = opts.cwd ?? defaultCwd();
      if (!cwd) throw new Error('Open a workspace folder first, or pass cwd: sessions belong to a folder.');
      const file = await engine.createSession(cwd, opts.title ? { title: opts.title } : {});
      changed(file);
      return open(file);
    },
    openSession: open,
    listSessions: async () => (await engine.listSessions()).map((l) => ({ ...l, sessionFile: l.sessionRef })),
  };
}
