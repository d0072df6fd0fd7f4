// The engine facade: everything the extension (tree, status bar, panels, commands, API, LM tools) does to sessions,
// over the core pieces (session store, branches, state, file checkpoints). No `vscode` here, so the tests drive it
// over real temp folders.
//
// One anchor (docs/ARCHITECTURE.md): "Rewind to here" on user message U is a new branch whose head is U, state and
// artifacts as before invocation U, and the workspace files as they were when U was sent.
import { namedBlame, namedHistory, type NamedBlame, type NamedHistory, type PromptNamingContext } from './file-history';
import { describeBlame, type DescribedBlame } from './line-blame';
import { namePrompts, promptOf, type NamedPrompt } from './prompt-names';
import { workspaceTimeline, type TimelineFolder, type WorkspaceTimelinePoint } from './workspace-timeline';
import { choiceAsApplied, choiceOfStep, choiceOptions, type FilesChoice } from './files-choice';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
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
import type { FileCheckpoints, TurnWrites } from '../files/types';
import { defaultStoreDir } from '../files/store/store-dir';
import { TIMELINE_FILE } from '../files/timeline';
import { resolveWorkspaceRoot } from '../files/workspace-root';
import type { StartFilesWorker } from '../files/workers/worker-checkpointer';
import type { FileHunks, RewindFilesResult } from '../files/types';
import type {
  BranchCompareModel,
  EntryLocation,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  TranscriptItem,
  TranscriptModel,
} from '../../shared/view-models';
import { CheckpointerPool, canonicalPath, type OpenCheckpoints } from './checkpointer-pool';
import type { SyncResult } from '../files/scan/watcher-sync';
import { anchorCheckFor, anchorProblem, previewRewind } from './rewind-preview';
import { branchOfEachEntry } from './entry-branches';
import { compareBranches } from './branch-compare';
import { branchesOf, describeSession, listingOf, type FileSnapshotInfo } from '../sources/session-details';
import { SessionSources } from '../sources/session-sources';
import {
  ReadOnlySessionError,
  type ConversationRewind,
  type NewPromptSnapshots,
  type SourceAdapter,
  type SourceContext,
  type WatchedFolder,
} from '../sources/source-adapter';
import type { SessionRef, SessionStamp } from '../sources/session-ref';
import { isForeignView, type SessionView } from '../sources/session-view';
import { agentName, writableSources } from '../sources/registry';
import type { CommandRunner, EditorChatAction, EditorChatTarget } from '../sources/editor-chat';
import { filesAnchorOf, snapshotsByEntry } from '../sources/file-anchors';
import { FolderNotOpenError } from './folder-not-open';
import { RewindLog, newStepId, withApplied, type RewindStep } from './rewind-log';
import { recordMessage } from './record-message';
import { scanForMessages, searchThroughCatalog, type MessageHit } from './message-search';
export type { MessageHit };
export { FolderNotOpenError };
import {
  describeUndo,
  journaled,
  redoRewind,
  redoRewindIn,
  undoDepthOf,
  undoLastRewind,
  undoLastRewindIn,
  withFolderLog,
  type UndoOutcome,
} from './rewind-undo';
import type { UndoContext } from './undo-context';
import { filesTopOf, settledFirstOf } from './rewind-recovery';
export type { UndoOutcome };
import { fileCheckpointerOptions, type EngineSettings } from '../settings/settings';
import { isUserMessage, previewOf } from '../transcript/transcript';
import { transcriptOf } from './transcript-loader';
import { turnWritesSince, writesOfTurns, type TurnWritesContext } from './turn-writes';
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

/** What a rewind changed, for its step in the rewind log. */
interface AppliedRewind<T> {
  result: T;
  /** Which files changed by others it brought back too (redo does the same). */
  choice?: FilesChoice;
  anchorEntryId: string;
  filesChanged: readonly string[];
  toBranch?: string;
  fork?: { ref: string; sessionId: string };
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
  /** Each session's stamp when it was last listed or seen changed (changedSessions). */
  readonly #stamps = new Map<SessionRef, SessionStamp>();

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
  async #kindOf(sessionRef: string): Promise<string> {
    const adapter = await this.#sources.adapterOf(sessionRef);
    return adapter.kindOf?.(sessionRef) ?? adapter.kinds[0]!;
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

  /** The folders (and file patterns) whose changes may change sessions, of every kind of session: the extension
   *  watches them and hands what changed to changedSessions. */
  sessionFolders(): WatchedFolder[] {
    return this.#sources.watchFolders(this.#sourceContext);
  }

  /**
   * The sessions that changed, from paths the watcher saw change: each path is mapped to the sessions it may have
   * changed by the adapters that watch it (a session file: itself; a shared database: every session in it), and a
   * session counts only when its stamp moved since it was last listed or seen here (or it is gone, and is forgotten).
   */
  async changedSessions(paths: readonly string[]): Promise<SessionRef[]> {
    const refs = new Set<SessionRef>();
    for (const path of paths) for (const ref of await this.#sources.refsOfChange(path, this.#sourceContext)) refs.add(ref);
    const changed: SessionRef[] = [];
    for (const ref of refs) {
      const stamp = await this.#sources.stamp(ref).catch(() => undefined);
      if (stamp !== undefined && stamp === this.#stamps.get(ref)) continue;
      changed.push(ref);
      if (stamp === undefined) {
        this.#stamps.delete(ref);
        await this.#sources.forget(ref);
      } else this.#stamps.set(ref, stamp);
    }
    return changed;
  }

  /** A session to write to (ours, pi's, oh-my-pi's). Throws a clear error for a missing file or another agent's
   *  session, which is only ever read. */
  async session(sessionRef: string): Promise<SessionManager> {
    const view = await this.view(sessionRef);
    if (isForeignView(view)) throw new ReadOnlySessionError(agentName(view.source), 'Changing this session');
    return view as SessionManager;
  }

  /** Any session, read-only, whichever agent wrote it. Throws a clear error for a missing or unreadable file. */
  view(sessionRef: string): Promise<SessionView> {
    return this.#sources.open(sessionRef);
  }

  /** The file that holds the session, to show or reveal (a row's: its database), when it has one. */
  sessionFileOf(sessionRef: SessionRef): Promise<string | undefined> {
    return this.#sources.fileOf(sessionRef);
  }

  /** A session changed (or vanished), as our own writes tell: the next read re-checks it. */
  async sessionChanged(sessionRef: string): Promise<void> {
    if ((await this.#sources.stamp(sessionRef).catch(() => undefined)) === undefined) {
      this.#stamps.delete(sessionRef);
      await this.#sources.forget(sessionRef);
    }
  }

  /**
   * For agents whose hooks are not installed: the changed sessions' prompts that have appeared with no file snapshot
   * yet get one now, late, under a key their view finds, with a note that says how late (SourceAdapter.snapshotNewPrompts).
   * Nothing when file checkpointing is off or the session's folder is not open.
   */
  async snapshotNewPrompts(sessionRef: SessionRef): Promise<NewPromptSnapshots> {
    const none: NewPromptSnapshots = { taken: [], skipped: [] };
    if (!this.#settings.fileCheckpointing.enabled) return none;
    const adapter = await this.#sources.adapterOf(sessionRef);
    if (!adapter.snapshotNewPrompts) return none;
    const view = await this.view(sessionRef);
    const cp = this.#checkpointerOf(view);
    return cp ? adapter.snapshotNewPrompts(view, cp) : none;
  }

  /** This workspace's sessions of every kind, newest first (nothing big is parsed to list them). The stamps listings
   *  carry are what changedSessions compares with. */
  async listSessions(): Promise<SessionListing[]> {
    const listings = await this.#sources.list(this.#sourceContext);
    for (const l of listings) if (l.stamp !== undefined) this.#stamps.set(l.sessionRef, l.stamp);
    return listings;
  }

  async describeSession(sessionRef: string): Promise<SessionDetails> {
    const session = await this.view(sessionRef);
    const file = await this.#sources.fileOf(sessionRef);
    const info = file === undefined ? undefined : await stat(file).catch(() => undefined);
    const listing = listingOf(session, await this.#kindOf(sessionRef), info?.mtimeMs ?? Date.now());
    return describeSession(session, listing, await this.fileSnapshotsOf(session), this.#warn);
  }

  /** The user messages of the active branch, newest last (for pickers and the API). */
  async userMessages(sessionRef: string): Promise<UserMessageRef[]> {
    const session = await this.view(sessionRef);
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
    this.#catalog ??= Catalog.open({
      home: this.#settings.home,
      warn: this.#warn,
      openForeign: (ref) => this.view(ref).catch(() => undefined),
      stampOf: (ref) => this.#sources.stamp(ref).catch(() => undefined),
    });
    this.#catalog.catch(() => (this.#catalog = undefined));
    return this.#catalog;
  }

  // ── transcript ─────────────────────────────────────────────────────────────

  /** The session as chat rows: its active branch, or (another agent's session, which is only shown) `opts.branch`. */
  async loadTranscript(sessionRef: string, opts: { branch?: string } = {}): Promise<{ model: TranscriptModel; items: TranscriptItem[] }> {
    const session = await this.view(sessionRef);
    return transcriptOf(session, {
      ...opts,
      snapshots: await this.fileSnapshotsOf(session),
      listing: listingOf(session, await this.#kindOf(sessionRef), 0),
      warn: this.#warn,
    });
  }

  /** Where a message of the session is, for opening the transcript at it: on the active branch, on another branch
   *  (the one the transcript should offer to switch to), or nowhere (not in this session). */
  async locateEntry(sessionRef: string, entryId: string): Promise<EntryLocation> {
    const session = await this.view(sessionRef);
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

  async conversation(sessionRef: string): Promise<Conversation<SessionManager>> {
    return new Conversation(await this.session(sessionRef), { warn: this.#warn });
  }

  async branches(sessionRef: string): Promise<BranchInfo[]> {
    return branchesOf(await this.view(sessionRef), this.#warn).branches.map(toBranchInfo);
  }

  /**
   * Two branches side by side: where they part, the messages of each after that, and the files that differ between
   * the latest file snapshot on each branch's path (the agent's last reply's turn-end snapshot, else the last user
   * message's; read from the snapshot store, the workspace is not touched). Any kind of session, read-only ones
   * included. B is a branch of `opts.sessionRefB` when given: another session of the folder (the session's fork, its
   * origin, any other), so a Claude Code original, which has one branch, is compared with its fork. The diff editor
   * reads a side's file with fileAtAnchor(side's session file, side.snapshot.anchorEntryId, path). Throws for an
   * unknown branch.
   */
  async compareBranches(sessionRef: string, branchA: string, branchB: string, opts: { sessionRefB?: string } = {}): Promise<BranchCompareModel> {
    const sideOf = async (file: string, branch: string) => {
      const session = await this.view(file);
      return { session, sessionRef: file, branch, title: listingOf(session, await this.#kindOf(file), 0).title, checkpointer: this.#checkpointerOf(session) };
    };
    const a = await sideOf(sessionRef, branchA);
    const b = opts.sessionRefB !== undefined && opts.sessionRefB !== sessionRef ? await sideOf(opts.sessionRefB, branchB) : { ...a, branch: branchB };
    return compareBranches(a, b, { checkpointingEnabled: this.#settings.fileCheckpointing.enabled, warn: this.#warn });
  }

  /** Makes another branch active. A rewind, undo or redo a killed process left unfinished in the folder is settled
   *  first, so the switch does not start from half of one. */
  async switchBranch(sessionRef: string, name: string): Promise<BranchInfo> {
    const session = await this.session(sessionRef);
    return withFolderLog(this.#undoContext, this.#folderOf(session), async () => (await this.conversation(sessionRef)).switchBranch(name));
  }

  /** A new branch whose head is the message (the conversation only: files and nothing else change). A rewind of the
   *  conversation: it goes into the rewind log, so Undo returns to the branch it left. */
  async fork(sessionRef: string, entryId: string): Promise<BranchInfo> {
    return this.#rewindConversation(sessionRef, entryId, (c) => c.rewind(entryId));
  }

  /** A conversation rewind of one of our sessions (a new active branch), logged for Undo and Redo. */
  async #rewindConversation(sessionRef: string, anchorHint: string, act: (c: Conversation<SessionManager>) => Promise<BranchInfo>): Promise<BranchInfo> {
    const session = await this.session(sessionRef);
    return this.#logRewind(session, sessionRef, 'conversation', anchorHint, async () => {
      const branch = await act(await this.conversation(sessionRef));
      return { result: branch, anchorEntryId: branch.headMessageId ?? anchorHint, filesChanged: [], toBranch: branch.name };
    });
  }

  async label(sessionRef: string, entryId: string, label: string | undefined): Promise<void> {
    const session = await this.session(sessionRef);
    await session.transaction((s) => {
      if (!s.getEntry(entryId)) throw new Error(`Entry "${entryId}" not found in this session`);
      s.appendLabelChange(entryId, label?.trim() ? label.trim() : undefined);
    });
  }

  async createCheckpoint(sessionRef: string, name: string): Promise<CheckpointInfo> {
    return (await this.conversation(sessionRef)).checkpoint(name.trim());
  }

  async deleteCheckpoint(sessionRef: string, name: string): Promise<void> {
    await (await this.conversation(sessionRef)).deleteCheckpoint(name);
  }

  async renameCheckpoint(sessionRef: string, name: string, newName: string): Promise<void> {
    const to = newName.trim();
    if (!to) throw new Error('Checkpoint name cannot be empty');
    const session = await this.session(sessionRef);
    await session.transaction((s) => {
      const names = new Set(branchesOf(s, this.#warn).checkpoints.map((c) => c.name));
      if (!names.has(name)) throw new CheckpointNotFoundError(name);
      if (to === name) return;
      if (names.has(to)) throw new Error(`A checkpoint named "${to}" already exists`);
      s.appendCustomEntry(CHECKPOINT_RECORD, { op: 'rename', name, newName: to });
    });
  }

  /** Rewinds the conversation to a named checkpoint (a new branch whose head is its message). */
  async restoreCheckpoint(sessionRef: string, name: string): Promise<BranchInfo> {
    return this.#rewindConversation(sessionRef, `checkpoint ${name}`.slice(0, 500), (c) => c.restore(name));
  }

  // ── recording (the exported API) ───────────────────────────────────────────

  /** A new session of a workspace folder, written at once so it can be listed and snapshotted right away. */
  async createSession(cwd: string, opts: { title?: string } = {}): Promise<string> {
    return (await this.newSession(cwd, opts)).file;
  }

  /** createSession, with the new session's id. */
  async newSession(cwd: string, opts: { title?: string } = {}): Promise<{ id: string; file: string }> {
    const session = SessionManager.create(resolve(cwd), {
      home: this.#settings.home,
      deferUntilAssistant: false,
      ...(opts.title ? { title: opts.title } : {}),
    });
    await session.flush();
    const file = session.sessionRef!;
    await session.close();
    return { id: session.sessionId, file };
  }

  /**
   * Appends a message on the active branch. A user message then takes the workspace snapshot it anchors (before
   * the agent acts on it); an assistant message takes the turn-end snapshot that later tells the user's own edits
   * apart. A snapshot that fails does not lose the message: the error is returned with it.
   */
  async appendMessage(sessionRef: string, message: AgentMessage, opts: { id?: string } = {}): Promise<AppendResult> {
    const session = await this.session(sessionRef);
    const recorded = await recordMessage(session, message, {
      ...(opts.id !== undefined ? { id: opts.id } : {}),
      checkpointing: this.#settings.fileCheckpointing.enabled,
      checkpoints: () => this.#checkpointerOf(session) ?? { unavailable: new FolderNotOpenError(session.cwd, 'no file snapshot was taken') },
      beforeUserMessage: () => this.#applyPendingAgentRewind(sessionRef),
    });
    const { entryId, snapshot, snapshotError } = recorded;
    if (snapshotError)
      return {
        entryId,
        snapshotError: snapshotError instanceof FolderNotOpenError ? snapshotError.message : `No file snapshot for this message: ${snapshotError.message}`,
      };
    return snapshot ? { entryId, snapshot: { files: snapshot.files, hashedFiles: snapshot.hashedFiles, skipped: snapshot.skipped } } : { entryId };
  }

  async stateOf(sessionRef: string, entryId?: string): Promise<StateSnapshot> {
    return (await this.#state(sessionRef)).stateAt(entryId);
  }

  async updateState(sessionRef: string, delta: StateDelta): Promise<string> {
    return (await this.#state(sessionRef)).updateState(delta);
  }

  async saveArtifact(sessionRef: string, name: string, bytes: Uint8Array, mimeType?: string): Promise<ArtifactVersion> {
    return (await this.#state(sessionRef)).saveArtifact(name, bytes, mimeType);
  }

  async #state(sessionRef: string): Promise<SessionState<SessionManager>> {
    const session = await this.session(sessionRef);
    return new SessionState(session, { blobs: new BlobStore(blobsDir(this.#settings.home)), warn: this.#warn });
  }

  /** The agent's checkpoint/rewind tools (docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools) of a session: one set per session, kept across calls. */
  async agentTools(sessionRef: string, opts: { isSubagent?: boolean } = {}): Promise<AgentCheckpointTools> {
    const key = resolve(sessionRef);
    const session = await this.session(sessionRef);
    let tools = this.#agentTools.get(key);
    if (tools && tools.session !== session) {
      // The file was rewritten under us (a migration, a hand edit) and reopened: the old tools' session is closed.
      if (tools.active) this.#warn(`Session ${sessionRef} was reloaded; its active agent checkpoint is dropped.`);
      tools = undefined;
    }
    if (!tools) {
      tools = new AgentCheckpointTools(session, { warn: this.#warn, ...opts });
      this.#agentTools.set(key, tools);
    }
    return tools;
  }

  /** The turn ended: apply a rewind the agent requested during it (never inside the call: docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools). */
  async endTurn(sessionRef: string, messages: readonly AgentMessage[] = []): Promise<AgentMessage[] | undefined> {
    const tools = this.#agentTools.get(resolve(sessionRef));
    return tools ? tools.applyAtTurnEnd(messages) : undefined;
  }

  async #applyPendingAgentRewind(sessionRef: string): Promise<void> {
    const tools = this.#agentTools.get(resolve(sessionRef));
    if (tools?.pendingReport !== undefined) await tools.applyAtTurnEnd([]);
  }

  // ── rewind to here ─────────────────────────────────────────────────────────

  /** The dry run of "Rewind to here" on a user message. Never writes, never throws. */
  async previewRewind(sessionRef: string, anchorEntryId: string): Promise<RewindPreviewModel> {
    let session: SessionView;
    try {
      session = await this.view(sessionRef);
    } catch (error) {
      const e = failed((error as Error).message);
      return { sessionId: '', anchorEntryId, anchorPreview: '', conversation: e, state: e, files: e };
    }
    const cp = this.#checkpointerOf(session);
    const adapter = await this.#sources.adapterOf(sessionRef);
    const fork = adapter.forkNote?.(session, anchorEntryId);
    const editorChat = adapter.editorChatTarget?.(session, anchorEntryId);
    const model = await previewRewind({
      session,
      anchorEntryId,
      checkpointer: cp,
      ...(fork ? { fork } : {}),
      ...(cp
        ? await filesAnchorOf(session, anchorEntryId, cp).then(
            async ({ key, note }) => ({
              snapshotKey: key,
              ...(note ? { filesNote: note } : {}),
              turnWrites: await this.#turnWrites(session, sessionRef, cp, key),
              settledFirst: await settledFirstOf(this.#undoContext, this.#folderOf(session)),
            }),
            () => ({}),
          )
        : {}),
      checkpointingEnabled: this.#settings.fileCheckpointing.enabled,
      warn: this.#warn,
    });
    // the conversation is the editor's own: the preview offers its commands on the request (VS Code chat)
    if (!editorChat || !isForeignView(session)) return model;
    return { ...model, editorChat: { agent: agentName(session.source), sessionId: editorChat.sessionId, requestId: editorChat.requestId } };
  }

  /** The request the editor's own commands act on for the conversation part (VS Code chat), when it has them. */
  async editorChatTarget(sessionRef: string, anchorEntryId: string): Promise<EditorChatTarget | undefined> {
    const session = await this.view(sessionRef);
    return (await this.#sources.adapterOf(sessionRef)).editorChatTarget?.(session, anchorEntryId);
  }

  /** Runs the editor's own command on that request (the preview's buttons). Throws a user-readable error. */
  async runEditorChatAction<U>(sessionRef: string, anchorEntryId: string, action: EditorChatAction, run: CommandRunner<U>): Promise<void> {
    const session = await this.view(sessionRef);
    const adapter = await this.#sources.adapterOf(sessionRef);
    const target = adapter.editorChatTarget?.(session, anchorEntryId);
    if (!target || !adapter.runEditorChatAction) throw new Error('this message is not a request of a chat its editor rewinds');
    await adapter.runEditorChatAction(action, target, run);
  }

  /**
   * Runs the rewind the user confirmed. Files first: when they cannot be restored nothing else changes; when the
   * conversation then fails, the file restore is undone. Throws with a user-readable message.
   */
  async applyRewind(sessionRef: string, anchorEntryId: string, mode: RewindMode, opts: FilesChoice = {}): Promise<RewindOutcome> {
    const session = await this.view(sessionRef);
    const problem = await anchorProblem(session, anchorEntryId);
    if (problem) throw new Error(problem);
    const adapter = await this.#sources.adapterOf(sessionRef);
    const cp = mode === 'conversation' ? undefined : this.#checkpointerOf(session);
    if (mode !== 'conversation' && !cp) throw new FolderNotOpenError(session.cwd, 'its files cannot be rewound here');
    return this.#logRewind<RewindOutcome>(session, sessionRef, mode, anchorEntryId, async () => {
      let filesChanged: string[] = [];
      let choice = opts;
      if (cp) {
        const { key } = await filesAnchorOf(session, anchorEntryId, cp);
        const result = await cp.rewindFiles(session.sessionId, key, {
          ...choiceOptions(opts),
          turnWrites: await this.#turnWrites(session, sessionRef, cp, key),
          anchor: anchorCheckFor(session, anchorEntryId, this.#settings.fileCheckpointing.enabled),
        });
        filesChanged = result.filesChanged;
        choice = choiceAsApplied(opts, result);
      }
      if (mode === 'files') return { result: { mode, filesChanged, undoAvailable: filesChanged.length > 0 }, anchorEntryId, filesChanged, choice };
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
        const { kind: _kind, ...fork } = rewound;
        return {
          result: { mode, filesChanged, undoAvailable: filesChanged.length > 0, fork },
          anchorEntryId,
          filesChanged,
          choice,
          fork: { ref: rewound.sessionRef, sessionId: rewound.sessionId },
        };
      }
      const branch = { name: rewound.branch.name, headMessageId: rewound.branch.headMessageId ?? anchorEntryId };
      return { result: { mode, branch, filesChanged, undoAvailable: true }, anchorEntryId, filesChanged, choice, toBranch: rewound.branch.name };
    });
  }

  /**
   * Runs a rewind of a session holding its folder's rewind log, and logs what it changed (the branch left and made,
   * the fork written, whether files changed) for Undo and Redo, in the order rewinds happen in the folder whichever
   * front-end makes them. A files-only rewind that changed nothing leaves nothing to undo and is not logged.
   */
  async #logRewind<T>(session: SessionView, sessionRef: string, mode: RewindMode, anchorHint: string, run: () => Promise<AppliedRewind<T>>): Promise<T> {
    const folder = this.#folderOf(session);
    return withFolderLog(this.#undoContext, folder, async (log) => {
      const now = await this.view(sessionRef);
      const fromBranch = isForeignView(now) ? undefined : branchesOf(now, this.#warn).active.name;
      const cp = mode === 'conversation' ? undefined : this.#checkpointerOf(now);
      const filesTop = await filesTopOf(cp, now.sessionId);
      const begun: RewindStep = {
        id: newStepId(),
        sessionRef,
        sessionId: now.sessionId,
        anchorEntryId: anchorHint,
        mode,
        ...(fromBranch !== undefined && mode !== 'files' ? { fromBranch } : {}),
        files: false,
        undoDepth: 0,
        at: new Date().toISOString(),
      };
      return journaled(this.#undoContext, folder, log, { op: 'apply', step: begun, ...(filesTop ? { filesTop } : {}) }, async () => {
        const applied = await run();
        // a files-only rewind that changed nothing leaves nothing to undo
        if (mode === 'files' && applied.filesChanged.length === 0) return { result: applied.result, log };
        const files = applied.filesChanged.length > 0;
        const step: RewindStep = {
          ...begun,
          ...(applied.fork ? { forkRef: applied.fork.ref, forkSessionId: applied.fork.sessionId } : {}),
          anchorEntryId: applied.anchorEntryId,
          ...(applied.toBranch !== undefined ? { toBranch: applied.toBranch } : {}),
          files,
          ...choiceOfStep(applied.choice),
          undoDepth: files && cp ? await undoDepthOf(cp, now.sessionId) : 0,
          at: new Date().toISOString(),
        };
        return { result: applied.result, log: withApplied(log, step) };
      });
    });
  }

  /** The workspace folder a session's rewinds are logged under (its open folder, else its own cwd), as a realpath. */
  #folderOf(session: SessionView): string {
    return this.#checkpoints.folderOf(session.cwd);
  }

  /**
   * rewindFiles (docs/API.md, File checkpoints): the files only, as they were when the user message was sent. A dry run never throws
   * (canRewind false + error); the real call throws with the same words. The real one is logged as a rewind of the
   * files, so Undo and Redo take it in its place among the others.
   */
  async rewindFiles(sessionRef: string, anchorEntryId: string, opts: FilesChoice & { dryRun?: boolean } = {}): Promise<RewindFilesResult & { note?: string }> {
    let session: SessionView;
    try {
      session = await this.view(sessionRef);
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
    const { key, note } = await filesAnchorOf(session, anchorEntryId, cp);
    const rewind = async () =>
      cp.rewindFiles(session.sessionId, key, {
        dryRun: opts.dryRun === true,
        ...(opts.dryRun ? { settledFirst: await settledFirstOf(this.#undoContext, this.#folderOf(session)) } : {}),
        ...choiceOptions(opts),
        turnWrites: await this.#turnWrites(session, sessionRef, cp, key),
        anchor: anchorCheckFor(session, anchorEntryId, this.#settings.fileCheckpointing.enabled),
      });
    const result = opts.dryRun
      ? await rewind()
      : await this.#logRewind(session, sessionRef, 'files', anchorEntryId, async () => {
          const r = await rewind();
          return { result: r, anchorEntryId, filesChanged: r.filesChanged, choice: choiceAsApplied(opts, r) };
        });
    return note ? { ...result, note } : result;
  }

  /**
   * The changes to a file (an absolute path inside an open folder) by any session's turns or by hand, newest first,
   * each prompt named by its session and user message id; from the folder's timeline, not git.
   */
  async fileHistory(absPath: string): Promise<NamedHistory & { root: string }> {
    const { root, rel, cp } = this.#fileOfFolder(absPath);
    return { root, ...(await namedHistory(this.#namingContext(cp), rel)) };
  }

  /** Per line of a file now, the prompt (any agent) that last wrote it, or the user. */
  async blame(absPath: string): Promise<NamedBlame & { root: string }> {
    const { root, rel, cp } = this.#fileOfFolder(absPath);
    return { root, ...(await namedBlame(this.#namingContext(cp), rel)) };
  }

  /** The blame with each turn's session and prompt named (agent, title, text, when sent): what the editor shows. */
  async describedBlame(absPath: string): Promise<DescribedBlame> {
    const b = await this.blame(absPath);
    const sessions = b.lines.flatMap((l) => (l.owner.by === 'turn' ? [l.owner.sessionId] : []));
    return describeBlame(b, await namePrompts(this.#promptSources, undefined, sessions));
  }

  /** A user message of a session by id, on whichever branch it is (one a rewind left too): its text and when sent. */
  async namedPrompt(sessionRef: string, messageId: string): Promise<NamedPrompt | undefined> {
    return promptOf(await this.view(sessionRef), messageId);
  }

  /** Every snapshot of the open folders, newest first, whichever session of whichever agent took it, each with its
   *  session and prompt named (the Workspace Timeline view). A folder whose store cannot be read is left out. */
  async workspaceTimeline(): Promise<WorkspaceTimelinePoint[]> {
    const folders: TimelineFolder[] = [];
    for (const root of this.#roots) {
      const cp = this.#checkpoints.forCwd(root);
      if (cp) folders.push({ root, checkpoints: cp });
    }
    return workspaceTimeline(folders, this.#promptSources);
  }

  /** The timeline file of each open folder (timeline.ts): it grows with every snapshot any session takes there. */
  timelineFiles(): string[] {
    return this.#roots.flatMap((root) => {
      try {
        const o = fileCheckpointerOptions(this.#settings, root);
        return [join(o.storeDir ?? defaultStoreDir(o.home, resolveWorkspaceRoot(root)), TIMELINE_FILE)];
      } catch {
        return []; // a folder that is gone has no timeline
      }
    });
  }

  /** What agents' records say their tools wrote in the turns a rewind of `session` to `key` may meet (turn-writes.ts). */
  async #turnWrites(session: SessionView, sessionRef: string, cp: FileCheckpoints, key: string): Promise<TurnWrites[]> {
    try {
      const adapter = await this.#sources.adapterOf(sessionRef);
      return await turnWritesSince(this.#turnWritesContext, cp, { view: session, adapter, anchorId: key });
    } catch {
      return []; // nothing claimed: the timeline's own attribution stands
    }
  }

  get #turnWritesContext(): TurnWritesContext {
    return { listSessions: () => this.listSessions(), view: (ref) => this.view(ref), adapterOf: (ref) => this.#sources.adapterOf(ref) };
  }

  get #promptSources() {
    return { listSessions: () => this.listSessions(), view: (ref: string) => this.view(ref) };
  }

  #namingContext(cp: FileCheckpoints): PromptNamingContext {
    return {
      checkpoints: cp,
      listSessions: () => this.listSessions(),
      view: (f) => this.view(f),
      turnWrites: (turns) => writesOfTurns(this.#turnWritesContext, cp, turns),
    };
  }

  #fileOfFolder(absPath: string): { root: string; rel: string; cp: FileCheckpoints } {
    const root = this.#checkpoints.openRootHolding(absPath);
    const cp = root === undefined ? undefined : this.#checkpoints.forCwd(root);
    if (root === undefined || !cp) throw new Error(`${absPath} is not inside a workspace folder open here: a file's history is kept with its folder's`);
    const rel = relative(canonicalPath(root), canonicalPath(absPath)).split(sep).join('/');
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${absPath} is not a file inside ${root}`);
    return { root, rel, cp };
  }

  /** What Undo would do now, in words for its button's notification (undefined: nothing to undo). */
  async describeUndo(sessionRef: string): Promise<string | undefined> {
    return describeUndo(this.#undoContext, await this.view(sessionRef));
  }

  /**
   * Undoes the last rewind of the session as a whole: the files it changed are put back (files edited by hand since
   * are kept) and the session returns to the branch it was on (the branch the rewind made stays, nothing is deleted).
   * The session's rewinds include those made in its origin that wrote it as a fork. A file rewind the log does not
   * describe (made by an older version) is undone alone.
   */
  async undoLastRewind(sessionRef: string): Promise<UndoOutcome> {
    return undoLastRewind(this.#undoContext, sessionRef, await this.view(sessionRef));
  }

  /** Applies the last undone rewind of the session again: its branch becomes active again and the files go back to the message. */
  async redoRewind(sessionRef: string): Promise<UndoOutcome> {
    return redoRewind(this.#undoContext, await this.view(sessionRef));
  }

  /** Undoes the last rewind made in the open workspace folders, whichever session it was made in (the palette's
   *  Undo: the active session may be the fork that rewind wrote, or another one). Undefined: their logs hold none. */
  async undoLastRewindInWorkspace(): Promise<UndoOutcome | undefined> {
    return undoLastRewindIn(this.#undoContext, this.#workspaceFolders());
  }

  /** Applies the last undone rewind of the open workspace folders again. Undefined: their logs hold none. */
  async redoRewindInWorkspace(): Promise<UndoOutcome | undefined> {
    return redoRewindIn(this.#undoContext, this.#workspaceFolders());
  }

  #workspaceFolders(): string[] {
    return this.#roots.map((r) => this.#checkpoints.folderOf(r));
  }

  get #undoContext(): UndoContext {
    return {
      log: this.#rewindLog,
      view: (file) => this.view(file),
      checkpointerOf: (session) => this.#checkpointerOf(session),
      turnWrites: (session, sessionRef, cp, key) => this.#turnWrites(session, sessionRef, cp, key),
      // the log's own moves, made holding the folder's log: not the public switchBranch, which takes it
      switchBranch: async (file, name) => (await this.conversation(file)).switchBranch(name),
      folderOf: (session) => this.#folderOf(session),
      checkpointingEnabled: this.#settings.fileCheckpointing.enabled,
      warn: this.#warn,
    };
  }

  /** A file's content at a user message's snapshot (undefined: it did not exist then, or there is no snapshot). */
  async fileAtAnchor(sessionRef: string, anchorEntryId: string, relPath: string): Promise<Buffer | undefined> {
    const session = await this.view(sessionRef);
    const cp = this.#checkpointerOf(session);
    return cp ? cp.readFileAtAnchor(session.sessionId, (await filesAnchorOf(session, anchorEntryId, cp)).key, relPath) : undefined;
  }

  /** A file's changes since a user message as hunks a rewind can take back one by one (rewindFiles' `hunks`), or why
   *  it can only be taken back whole. Reads only. */
  async fileHunks(sessionRef: string, anchorEntryId: string, relPaths: readonly string[]): Promise<FileHunks[]> {
    const session = await this.view(sessionRef);
    const cp = this.#checkpointerOf(session);
    if (!cp) throw new FolderNotOpenError(session.cwd, 'its files cannot be rewound here');
    return cp.fileHunks(session.sessionId, (await filesAnchorOf(session, anchorEntryId, cp)).key, relPaths);
  }

  /** The open workspace folder a session's files are in, or undefined when it is not open here. */
  async workspaceRootOf(sessionRef: string): Promise<string | undefined> {
    return this.#checkpoints.rootFor((await this.view(sessionRef)).cwd);
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
  return { canRewind: false, error, filesChanged: [], insertions: 0, deletions: 0, userModified: [], otherSessions: [], skipped: [], files: [] };
}
