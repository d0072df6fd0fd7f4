// The engine facade: everything the extension (tree, status bar, panels, commands, API, LM tools) does to sessions,
// over the core pieces (session store, branches, state, file checkpoints). No `vscode` here, so the tests drive it
// over real temp folders.
//
// One anchor (docs/ARCHITECTURE.md): "Rewind to here" on user message U is a new branch whose head is U, state and
// artifacts as before invocation U, and the workspace files as they were when U was sent.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Conversation } from '../branches/conversation';
import { toBranchInfo, type BranchInfo, type CheckpointInfo } from '../branches/derive';
import { CheckpointNotFoundError } from '../branches/errors';
import { CHECKPOINT_RECORD, onceWarn, type Warn } from '../branches/records';
import { AgentCheckpointTools } from '../agent-tools/checkpoint-tools';
import { Catalog } from '../catalog/catalog';
import { BlobStore } from '../session/blob-store';
import { blobsDir } from '../session/paths';
import { SessionManager } from '../session/session-manager';
import type { ArtifactVersion } from '../state/fold';
import type { StateDelta } from '../state/records';
import { SessionState, type StateSnapshot } from '../state/session-state';
import type { AgentMessage } from '../session/types';
import type { FileCheckpoints } from '../files/types';
import type { StartFilesWorker } from '../files/worker-checkpointer';
import type { RewindFilesResult } from '../files/types';
import type {
  BranchCompareModel,
  EntryLocation,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  TranscriptItem,
  TranscriptModel,
} from '../../shared/view-models';
import { CheckpointerPool, type OpenCheckpoints } from './checkpointer-pool';
import type { SyncResult } from '../files/watcher-sync';
import { anchorCheckFor, anchorProblem, previewRewind } from './rewind-preview';
import { branchOfEachEntry } from './entry-branches';
import { compareBranches } from './branch-compare';
import { branchesOf, describeSession, listingOf, type FileSnapshotInfo } from '../sources/session-details';
import { SessionSources } from '../sources/session-sources';
import { ReadOnlySessionError, type ConversationRewind, type SourceAdapter, type SourceContext, type WatchedFolder } from '../sources/source-adapter';
import { isForeignView, type SessionView } from '../sources/session-view';
import { agentName, writableSources } from '../sources/registry';
import { filesAnchorOf, snapshotsByEntry } from '../sources/file-anchors';
import { FolderNotOpenError } from './folder-not-open';
import { RewindLog, type RewindStep } from './rewind-log';
import { scanForMessages, searchThroughCatalog, type MessageHit } from './message-search';
export type { MessageHit };
export { FolderNotOpenError };
import { describeUndo, redoRewind, undoDepthOf, undoLastRewind, type UndoContext, type UndoOutcome } from './rewind-undo';
export type { UndoOutcome };
import type { EngineSettings } from '../settings/settings';
import { isUserMessage, previewOf } from '../transcript/transcript';
import { transcriptOf } from './transcript-loader';
import type { SessionDetails, SessionListing } from '../sources/listings';

export interface RewindEngineOptions {
  settings: EngineSettings;
  /** The open workspace folders: sessions are listed for them, and only their files are ever snapshotted or restored. */
  workspaceRoots: readonly string[];
  warn?: Warn;
  /** Runs file checkpoints in worker threads started by this (the extension host); without it, in this thread. */
  filesWorker?: StartFilesWorker;
  /** Makes a folder's checkpoints when there is no worker (the CLI: through the checkpoint service, when it runs). */
  openCheckpoints?: OpenCheckpoints;
  /** Readers of other agents' sessions (Claude Code, Codex), made for a home; ours and pi's are always read. */
  foreignSources?: (settings: EngineSettings) => SourceAdapter[];
}

export interface AppendResult {
  entryId: string;
  /** The file snapshot this message took (user messages: the anchor for rewinds; assistant messages: turn end). */
  snapshot?: { files: number; hashedFiles: number; skipped: { path: string; reason: string }[] };
  snapshotError?: string;
}

export interface UserMessageRef {
  entryId: string;
  preview: string;
  timestamp: string;
}

export class RewindEngine {
  #settings: EngineSettings;
  #roots: string[];
  readonly #warn: Warn;
  #sources: SessionSources;
  readonly #foreignSources: (settings: EngineSettings) => SourceAdapter[];
  readonly #checkpoints: CheckpointerPool;
  readonly #agentTools = new Map<string, AgentCheckpointTools>();
  #rewindLog: RewindLog;
  #catalog: Promise<Catalog> | undefined;

  constructor(opts: RewindEngineOptions) {
    this.#settings = opts.settings;
    this.#roots = opts.workspaceRoots.map((r) => resolve(r));
    this.#warn = onceWarn(opts.warn);
    this.#foreignSources = opts.foreignSources ?? (() => []);
    this.#sources = this.#makeSources(this.#settings);
    this.#rewindLog = new RewindLog(this.#settings.home);
    this.#checkpoints = new CheckpointerPool(this.#settings, this.#roots, opts.filesWorker, opts.openCheckpoints);
  }

  #makeSources(settings: EngineSettings): SessionSources {
    return new SessionSources([...writableSources(settings), ...this.#foreignSources(settings)]);
  }

  /** The kind of session a file is, as its adapter tells (a foreign view says its own). */
  async #kindOf(sessionFile: string): Promise<string> {
    const adapter = await this.#sources.adapterOf(sessionFile);
    return adapter.kindOf?.(sessionFile) ?? adapter.kinds[0]!;
  }

  get #sourceContext(): SourceContext {
    return { settings: this.#settings, workspaceRoots: this.#roots, warn: this.#warn };
  }

  get settings(): EngineSettings {
    return this.#settings;
  }

  get workspaceRoots(): readonly string[] {
    return this.#roots;
  }

  async updateSettings(settings: EngineSettings): Promise<void> {
    const homeChanged = settings.home !== this.#settings.home;
    this.#settings = settings;
    await this.#checkpoints.reset(settings, this.#roots);
    const catalog = homeChanged ? this.#catalog : undefined;
    if (homeChanged) this.#catalog = undefined;
    await catalog?.then((c) => c.close()).catch(() => undefined);
    // Settings name where other agents' sessions are read from, so the readers are made again.
    const old = this.#sources;
    this.#sources = this.#makeSources(settings);
    this.#rewindLog = new RewindLog(settings.home);
    await old.dispose();
  }

  async setWorkspaceRoots(roots: readonly string[]): Promise<void> {
    this.#roots = roots.map((r) => resolve(r));
    await this.#checkpoints.reset(this.#settings, this.#roots);
  }

  async dispose(): Promise<void> {
    const catalog = this.#catalog;
    this.#catalog = undefined;
    await Promise.all([this.#sources.dispose(), this.#checkpoints.dispose(), catalog?.then((c) => c.close()).catch(() => undefined)]);
  }

  // ── sessions ───────────────────────────────────────────────────────────────

  /** The folders (and file patterns) whose session files the extension watches, of every kind of session. */
  sessionFolders(): WatchedFolder[] {
    return this.#sources.watchFolders(this.#sourceContext);
  }

  /** A session to write to (ours, pi's, oh-my-pi's). Throws a clear error for a missing file or another agent's
   *  session, which is only ever read. */
  async session(sessionFile: string): Promise<SessionManager> {
    const view = await this.view(sessionFile);
    if (isForeignView(view)) throw new ReadOnlySessionError(agentName(view.source), 'Changing this session');
    return view as SessionManager;
  }

  /** Any session, read-only, whichever agent wrote it. Throws a clear error for a missing or unreadable file. */
  view(sessionFile: string): Promise<SessionView> {
    return this.#sources.open(sessionFile);
  }

  /** A session file changed on disk (or vanished): the next read re-checks it. */
  async sessionChanged(sessionFile: string): Promise<void> {
    const exists = await stat(sessionFile).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) await this.#sources.forget(sessionFile);
  }

  /** This workspace's sessions of every kind, newest first (nothing big is parsed to list them). */
  listSessions(): Promise<SessionListing[]> {
    return this.#sources.list(this.#sourceContext);
  }

  async describeSession(sessionFile: string): Promise<SessionDetails> {
    const session = await this.view(sessionFile);
    const info = await stat(sessionFile);
    const listing = listingOf(session, await this.#kindOf(sessionFile), info.mtimeMs);
    return describeSession(session, listing, await this.fileSnapshotsOf(session), this.#warn);
  }

  /** The user messages of the active branch, newest last (for pickers and the API). */
  async userMessages(sessionFile: string): Promise<UserMessageRef[]> {
    const session = await this.view(sessionFile);
    return session
      .getPath()
      .filter((e) => isUserMessage(e))
      .map((e) => ({ entryId: e.id, preview: previewOf(e), timestamp: e.timestamp }));
  }

  /**
   * Messages of this workspace's sessions matching the query, through the sql.js catalog (full-text, loaded on the
   * first search only). When the catalog cannot be used, a plain scan of the session files answers instead.
   */
  async searchMessages(query: string, limit = 200): Promise<MessageHit[]> {
    const listings = await this.listSessions();
    const view = (file: string) => this.view(file);
    try {
      return await searchThroughCatalog(await this.#openCatalog(), listings, query, limit);
    } catch (error) {
      this.#warn(`Session search falls back to reading the files: ${(error as Error).message}`);
      return scanForMessages(listings, view, query, limit, this.#warn);
    }
  }

  #openCatalog(): Promise<Catalog> {
    this.#catalog ??= Catalog.open({ home: this.#settings.home, warn: this.#warn, openForeign: (file) => this.view(file).catch(() => undefined) });
    this.#catalog.catch(() => (this.#catalog = undefined));
    return this.#catalog;
  }

  // ── transcript ─────────────────────────────────────────────────────────────

  /** The session as chat rows: its active branch, or (another agent's session, which is only shown) `opts.branch`. */
  async loadTranscript(sessionFile: string, opts: { branch?: string } = {}): Promise<{ model: TranscriptModel; items: TranscriptItem[] }> {
    const session = await this.view(sessionFile);
    return transcriptOf(session, {
      ...opts,
      snapshots: await this.fileSnapshotsOf(session),
      listing: listingOf(session, await this.#kindOf(sessionFile), 0),
      warn: this.#warn,
    });
  }

  /** Where a message of the session is, for opening the transcript at it: on the active branch, on another branch
   *  (the one the transcript should offer to switch to), or nowhere (not in this session). */
  async locateEntry(sessionFile: string, entryId: string): Promise<EntryLocation> {
    const session = await this.view(sessionFile);
    const entry = session.getEntry(entryId);
    if (!entry) return { found: false };
    const snap = branchesOf(session, this.#warn);
    const branch = branchOfEachEntry(session, snap.branches).get(entryId);
    return {
      found: true,
      onActiveBranch: branch !== undefined && branch === snap.active.name,
      ...(branch !== undefined ? { branch } : {}),
      activeBranch: snap.active.name,
      preview: previewOf(entry),
    };
  }

  // ── branches and named checkpoints ─────────────────────────────────────────

  async conversation(sessionFile: string): Promise<Conversation<SessionManager>> {
    return new Conversation(await this.session(sessionFile), { warn: this.#warn });
  }

  async branches(sessionFile: string): Promise<BranchInfo[]> {
    return branchesOf(await this.view(sessionFile), this.#warn).branches.map(toBranchInfo);
  }

  /**
   * Two branches side by side: where they part, the messages of each after that, and the files that differ between
   * the latest file snapshot on each branch's path (the agent's last reply's turn-end snapshot, else the last user
   * message's; read from the snapshot store, the workspace is not touched). Any kind of session, read-only ones included. The diff editor reads a side's file with
   * fileAtAnchor(sessionFile, side.snapshot.anchorEntryId, path). Throws for an unknown branch.
   */
  async compareBranches(sessionFile: string, branchA: string, branchB: string): Promise<BranchCompareModel> {
    const session = await this.view(sessionFile);
    return compareBranches(session, branchA, branchB, {
      sessionFile,
      title: listingOf(session, await this.#kindOf(sessionFile), 0).title,
      checkpointer: this.#checkpointerOf(session),
      checkpointingEnabled: this.#settings.fileCheckpointing.enabled,
      warn: this.#warn,
    });
  }

  async switchBranch(sessionFile: string, name: string): Promise<BranchInfo> {
    return (await this.conversation(sessionFile)).switchBranch(name);
  }

  /** A new branch whose head is the message (the conversation only: files and nothing else change). */
  async fork(sessionFile: string, entryId: string): Promise<BranchInfo> {
    return (await this.conversation(sessionFile)).rewind(entryId);
  }

  async label(sessionFile: string, entryId: string, label: string | undefined): Promise<void> {
    const session = await this.session(sessionFile);
    await session.transaction((s) => {
      if (!s.getEntry(entryId)) throw new Error(`Entry "${entryId}" not found in this session`);
      s.appendLabelChange(entryId, label?.trim() ? label.trim() : undefined);
    });
  }

  async createCheckpoint(sessionFile: string, name: string): Promise<CheckpointInfo> {
    return (await this.conversation(sessionFile)).checkpoint(name.trim());
  }

  async deleteCheckpoint(sessionFile: string, name: string): Promise<void> {
    await (await this.conversation(sessionFile)).deleteCheckpoint(name);
  }

  async renameCheckpoint(sessionFile: string, name: string, newName: string): Promise<void> {
    const to = newName.trim();
    if (!to) throw new Error('Checkpoint name cannot be empty');
    const session = await this.session(sessionFile);
    await session.transaction((s) => {
      const names = new Set(branchesOf(s, this.#warn).checkpoints.map((c) => c.name));
      if (!names.has(name)) throw new CheckpointNotFoundError(name);
      if (to === name) return;
      if (names.has(to)) throw new Error(`A checkpoint named "${to}" already exists`);
      s.appendCustomEntry(CHECKPOINT_RECORD, { op: 'rename', name, newName: to });
    });
  }

  /** Rewinds the conversation to a named checkpoint (a new branch whose head is its message). */
  async restoreCheckpoint(sessionFile: string, name: string): Promise<BranchInfo> {
    return (await this.conversation(sessionFile)).restore(name);
  }

  // ── recording (the exported API) ───────────────────────────────────────────

  /** A new session of a workspace folder, written at once so it can be listed and snapshotted right away. */
  async createSession(cwd: string, opts: { title?: string } = {}): Promise<string> {
    const session = SessionManager.create(resolve(cwd), {
      home: this.#settings.home,
      deferUntilAssistant: false,
      ...(opts.title ? { title: opts.title } : {}),
    });
    await session.flush();
    const file = session.sessionFile!;
    await session.close();
    return file;
  }

  /**
   * Appends a message on the active branch. A user message then takes the workspace snapshot it anchors (before
   * the agent acts on it); an assistant message takes the turn-end snapshot that later tells the user's own edits
   * apart. A snapshot that fails does not lose the message: the error is returned with it.
   */
  async appendMessage(sessionFile: string, message: AgentMessage, opts: { id?: string } = {}): Promise<AppendResult> {
    const session = await this.session(sessionFile);
    if (message.role === 'user') await this.#applyPendingAgentRewind(sessionFile);
    const entryId = await session.transaction((s) => s.appendMessage(message, opts));
    const kind = message.role === 'user' ? 'user-message' : message.role === 'assistant' ? 'turn-end' : undefined;
    if (!kind || !this.#settings.fileCheckpointing.enabled) return { entryId };
    const cp = this.#checkpointerOf(session);
    if (!cp) return { entryId, snapshotError: new FolderNotOpenError(session.cwd, 'no file snapshot was taken').message };
    try {
      const summary = await cp.snapshot(session.sessionId, entryId, kind);
      return { entryId, snapshot: { files: summary.files, hashedFiles: summary.hashedFiles, skipped: summary.skipped } };
    } catch (error) {
      return { entryId, snapshotError: `No file snapshot for this message: ${(error as Error).message}` };
    }
  }

  async stateOf(sessionFile: string, entryId?: string): Promise<StateSnapshot> {
    return (await this.#state(sessionFile)).stateAt(entryId);
  }

  async updateState(sessionFile: string, delta: StateDelta): Promise<string> {
    return (await this.#state(sessionFile)).updateState(delta);
  }

  async saveArtifact(sessionFile: string, name: string, bytes: Uint8Array, mimeType?: string): Promise<ArtifactVersion> {
    return (await this.#state(sessionFile)).saveArtifact(name, bytes, mimeType);
  }

  async #state(sessionFile: string): Promise<SessionState<SessionManager>> {
    const session = await this.session(sessionFile);
    return new SessionState(session, { blobs: new BlobStore(blobsDir(this.#settings.home)), warn: this.#warn });
  }

  /** The agent's checkpoint/rewind tools (docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools) of a session: one set per session, kept across calls. */
  async agentTools(sessionFile: string, opts: { isSubagent?: boolean } = {}): Promise<AgentCheckpointTools> {
    const key = resolve(sessionFile);
    const session = await this.session(sessionFile);
    let tools = this.#agentTools.get(key);
    if (tools && tools.session !== session) {
      // The file was rewritten under us (a migration, a hand edit) and reopened: the old tools' session is closed.
      if (tools.active) this.#warn(`Session ${sessionFile} was reloaded; its active agent checkpoint is dropped.`);
      tools = undefined;
    }
    if (!tools) {
      tools = new AgentCheckpointTools(session, { warn: this.#warn, ...opts });
      this.#agentTools.set(key, tools);
    }
    return tools;
  }

  /** The turn ended: apply a rewind the agent requested during it (never inside the call: docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools). */
  async endTurn(sessionFile: string, messages: readonly AgentMessage[] = []): Promise<AgentMessage[] | undefined> {
    const tools = this.#agentTools.get(resolve(sessionFile));
    return tools ? tools.applyAtTurnEnd(messages) : undefined;
  }

  async #applyPendingAgentRewind(sessionFile: string): Promise<void> {
    const tools = this.#agentTools.get(resolve(sessionFile));
    if (tools?.pendingReport !== undefined) await tools.applyAtTurnEnd([]);
  }

  // ── rewind to here ─────────────────────────────────────────────────────────

  /** The dry run of "Rewind to here" on a user message. Never writes, never throws. */
  async previewRewind(sessionFile: string, anchorEntryId: string): Promise<RewindPreviewModel> {
    let session: SessionView;
    try {
      session = await this.view(sessionFile);
    } catch (error) {
      const e = failed((error as Error).message);
      return { sessionId: '', anchorEntryId, anchorPreview: '', conversation: e, state: e, files: e };
    }
    const cp = this.#checkpointerOf(session);
    const fork = (await this.#sources.adapterOf(sessionFile)).forkNote?.(session, anchorEntryId);
    return previewRewind({
      session,
      anchorEntryId,
      checkpointer: cp,
      ...(fork ? { fork } : {}),
      ...(cp
        ? await filesAnchorOf(session, anchorEntryId, cp).then(
            ({ key, note }) => ({ snapshotKey: key, ...(note ? { filesNote: note } : {}) }),
            () => ({}),
          )
        : {}),
      checkpointingEnabled: this.#settings.fileCheckpointing.enabled,
      warn: this.#warn,
    });
  }

  /**
   * Runs the rewind the user confirmed. Files first: when they cannot be restored nothing else changes; when the
   * conversation then fails, the file restore is undone. Throws with a user-readable message.
   */
  async applyRewind(sessionFile: string, anchorEntryId: string, mode: RewindMode, opts: { overwriteUserModified?: boolean } = {}): Promise<RewindOutcome> {
    const session = await this.view(sessionFile);
    const problem = await anchorProblem(session, anchorEntryId);
    if (problem) throw new Error(problem);
    const adapter = await this.#sources.adapterOf(sessionFile);
    const fromBranch = adapter.writable ? branchesOf(session, this.#warn).active.name : undefined;
    let filesChanged: string[] = [];
    const cp = mode === 'conversation' ? undefined : this.#checkpointerOf(session);
    if (mode !== 'conversation') {
      if (!cp) throw new FolderNotOpenError(session.cwd, 'its files cannot be rewound here');
      const result = await cp.rewindFiles(session.sessionId, (await filesAnchorOf(session, anchorEntryId, cp)).key, {
        overwriteUserModified: opts.overwriteUserModified === true,
        anchor: anchorCheckFor(session, anchorEntryId, this.#settings.fileCheckpointing.enabled),
      });
      filesChanged = result.filesChanged;
    }
    const log = async (step: Pick<RewindStep, 'toBranch' | 'forkFile'>) =>
      this.#rewindLog.applied(session.sessionId, {
        anchorEntryId,
        mode,
        ...(fromBranch ? { fromBranch } : {}),
        ...step,
        files: filesChanged.length > 0,
        undoDepth: cp ? await undoDepthOf(cp, session.sessionId) : 0,
        at: new Date().toISOString(),
      });
    if (mode === 'files') {
      await log({});
      return { mode, filesChanged, undoAvailable: filesChanged.length > 0 };
    }
    let rewound: ConversationRewind;
    try {
      rewound = await adapter.rewindConversation(session, anchorEntryId, this.#warn);
    } catch (error) {
      if (cp && filesChanged.length > 0) {
        await cp
          .undoLastRewind(session.sessionId)
          .catch((undoError) => this.#warn(`Undoing the file rewind after a failed conversation rewind failed too: ${(undoError as Error).message}`));
      }
      throw error;
    }
    if (rewound.kind === 'fork') {
      await log({ forkFile: rewound.sessionFile });
      const { kind: _kind, ...fork } = rewound;
      return { mode, filesChanged, undoAvailable: filesChanged.length > 0, fork };
    }
    await log({ toBranch: rewound.branch.name });
    return { mode, branch: { name: rewound.branch.name, headMessageId: rewound.branch.headMessageId ?? anchorEntryId }, filesChanged, undoAvailable: true };
  }

  /**
   * rewindFiles (docs/API.md, File checkpoints): the files only, as they were when the user message was sent. A dry run never throws
   * (canRewind false + error); the real call throws with the same words.
   */
  async rewindFiles(sessionFile: string, anchorEntryId: string, opts: { dryRun?: boolean; overwriteUserModified?: boolean } = {}): Promise<RewindFilesResult> {
    let session: SessionView;
    try {
      session = await this.view(sessionFile);
    } catch (error) {
      if (!opts.dryRun) throw error;
      return cannotRewindFiles((error as Error).message);
    }
    const cp = this.#checkpointerOf(session);
    if (!cp) {
      const error = new FolderNotOpenError(session.cwd, 'its files cannot be rewound here');
      if (!opts.dryRun) throw error;
      return cannotRewindFiles(error.message);
    }
    return cp.rewindFiles(session.sessionId, (await filesAnchorOf(session, anchorEntryId, cp)).key, {
      dryRun: opts.dryRun === true,
      overwriteUserModified: opts.overwriteUserModified === true,
      anchor: anchorCheckFor(session, anchorEntryId, this.#settings.fileCheckpointing.enabled),
    });
  }

  /** What Undo would do now, in words for its button's notification (undefined: nothing to undo). */
  async describeUndo(sessionFile: string): Promise<string | undefined> {
    return describeUndo(this.#undoContext, await this.view(sessionFile));
  }

  /**
   * Undoes the last rewind of the session as a whole: the files it changed are put back (files edited by hand since
   * are kept) and the session returns to the branch it was on (the branch the rewind made stays, nothing is deleted).
   * A file rewind made outside "Rewind to here" (rewind-files) is undone alone, as before.
   */
  async undoLastRewind(sessionFile: string): Promise<UndoOutcome> {
    return undoLastRewind(this.#undoContext, sessionFile, await this.view(sessionFile));
  }

  /** Applies the last undone rewind again: its branch becomes active again and the files go back to the message. */
  async redoRewind(sessionFile: string): Promise<UndoOutcome> {
    return redoRewind(this.#undoContext, sessionFile, await this.view(sessionFile));
  }

  get #undoContext(): UndoContext {
    return {
      log: this.#rewindLog,
      checkpointerOf: (session) => this.#checkpointerOf(session),
      switchBranch: (file, name) => this.switchBranch(file, name),
      checkpointingEnabled: this.#settings.fileCheckpointing.enabled,
    };
  }

  /** A file's content at a user message's snapshot (undefined: it did not exist then, or there is no snapshot). */
  async fileAtAnchor(sessionFile: string, anchorEntryId: string, relPath: string): Promise<Buffer | undefined> {
    const session = await this.view(sessionFile);
    const cp = this.#checkpointerOf(session);
    return cp ? cp.readFileAtAnchor(session.sessionId, (await filesAnchorOf(session, anchorEntryId, cp)).key, relPath) : undefined;
  }

  /** The open workspace folder a session's files are in, or undefined when it is not open here. */
  async workspaceRootOf(sessionFile: string): Promise<string | undefined> {
    return this.#checkpoints.rootFor((await this.view(sessionFile)).cwd);
  }

  // ── file checkpoints ───────────────────────────────────────────────────────

  /** Paths (absolute) an editor saw change: the next snapshot looks at them instead of walking the tree. */
  pathsChanged(absPaths: readonly string[]): void {
    this.#checkpoints.notifyChanged(absPaths);
  }

  /**
   * The editor watcher's sync barrier (a cookie written in `root` comes back through pathsChanged): awaited before
   * each tracked snapshot so that none misses a change made just before it.
   */
  useWatcherSync(settle: ((root: string) => Promise<SyncResult>) | undefined): void {
    this.#checkpoints.setWatcherSync(settle);
  }

  /** The per-message file snapshots of a session (its folder must be open here), by the message they belong to. */
  async fileSnapshotsOf(session: SessionView): Promise<FileSnapshotInfo[]> {
    const cp = this.#checkpointerOf(session);
    if (!cp) return [];
    try {
      const byEntry = await snapshotsByEntry(session, cp);
      return [...byEntry].map(([entryId, r]) => ({ anchorId: entryId, files: r.files, createdAt: r.createdAt }));
    } catch (error) {
      this.#warn(`Cannot list the file snapshots of session ${session.sessionId}: ${(error as Error).message}`);
      return [];
    }
  }

  #checkpointerOf(session: SessionView): FileCheckpoints | undefined {
    try {
      return this.#checkpoints.forCwd(session.cwd);
    } catch (error) {
      this.#warn(`File checkpoints unavailable for ${session.cwd}: ${(error as Error).message}`);
      return undefined;
    }
  }
}

function failed(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function cannotRewindFiles(error: string): RewindFilesResult {
  return { canRewind: false, error, filesChanged: [], insertions: 0, deletions: 0, userModified: [], skipped: [], files: [] };
}
