// The engine facade: everything the extension (tree, status bar, panels, commands, API, LM tools) does to sessions,
// over the core pieces (session store, branches, state, file checkpoints). No `vscode` here, so the tests drive it
// over real temp folders.
//
// One anchor (docs/ARCHITECTURE.md): "Rewind to here" on user message U is a new branch whose head is U, state and
// artifacts as before invocation U, and the workspace files as they were when U was sent.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Conversation } from '../branches/conversation';
import type { BranchInfo, CheckpointInfo } from '../branches/derive';
import { CheckpointNotFoundError } from '../branches/errors';
import { CHECKPOINT_RECORD, onceWarn, type Warn } from '../branches/records';
import type { SessionManager } from '../session/session-manager';
import type { SessionEntry } from '../session/types';
import type { TranscriptItem, TranscriptModel } from '../../shared/view-models';
import { SessionCache } from './session-cache';
import { branchesOf, describeSession, listingOf } from './session-details';
import { sessionFoldersFor, sourceOfPath, type SessionFolder } from './session-folders';
import type { EngineSettings } from './settings';
import { buildTranscriptItems, isUserMessage, previewOf, toTranscriptItem } from './transcript';
import type { SessionDetails, SessionListing } from './types';

export interface RewindEngineOptions {
  settings: EngineSettings;
  /** The open workspace folders: sessions are listed for them, and only their files are ever snapshotted or restored. */
  workspaceRoots: readonly string[];
  warn?: Warn;
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
  #sessions: SessionCache;

  constructor(opts: RewindEngineOptions) {
    this.#settings = opts.settings;
    this.#roots = opts.workspaceRoots.map((r) => resolve(r));
    this.#warn = onceWarn(opts.warn);
    this.#sessions = new SessionCache(this.#settings.home);
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
    if (homeChanged) {
      const old = this.#sessions;
      this.#sessions = new SessionCache(settings.home);
      await old.dispose();
    }
  }

  setWorkspaceRoots(roots: readonly string[]): void {
    this.#roots = roots.map((r) => resolve(r));
  }

  async dispose(): Promise<void> {
    await this.#sessions.dispose();
  }

  // ── sessions ───────────────────────────────────────────────────────────────

  sessionFolders(): SessionFolder[] {
    return sessionFoldersFor(this.#settings, this.#roots);
  }

  /** The session, up to date with the file. Throws a clear error for a missing file. */
  session(sessionFile: string): Promise<SessionManager> {
    return this.#sessions.get(sessionFile);
  }

  /** A session file changed on disk (or vanished): the next read re-checks it. */
  async sessionChanged(sessionFile: string): Promise<void> {
    const exists = await stat(sessionFile).then((s) => s.isFile(), () => false);
    if (!exists) await this.#sessions.evict(sessionFile);
  }

  async listSessions(): Promise<SessionListing[]> {
    const files: { file: string; source: SessionFolder['source']; modifiedMs: number }[] = [];
    for (const folder of this.sessionFolders()) {
      const names = await readdir(folder.path).catch(() => [] as string[]);
      for (const name of names) {
        if (!name.endsWith('.jsonl')) continue;
        const file = join(folder.path, name);
        const info = await stat(file).catch(() => undefined);
        if (info?.isFile()) files.push({ file, source: folder.source, modifiedMs: info.mtimeMs });
      }
    }
    const listings: SessionListing[] = [];
    for (const f of files) {
      try {
        const session = await this.#sessions.get(f.file);
        listings.push(listingOf(session, f.source, f.modifiedMs));
      } catch (error) {
        this.#warn(`Cannot list session ${f.file}: ${(error as Error).message}`);
      }
    }
    return listings.sort((a, b) => b.modifiedMs - a.modifiedMs);
  }

  async describeSession(sessionFile: string): Promise<SessionDetails> {
    const session = await this.session(sessionFile);
    const info = await stat(sessionFile);
    const listing = listingOf(session, sourceOfPath(sessionFile), info.mtimeMs);
    return describeSession(session, listing, await this.fileSnapshotsOf(session), this.#warn);
  }

  /** The user messages of the active branch, newest last (for pickers and the API). */
  async userMessages(sessionFile: string): Promise<UserMessageRef[]> {
    const session = await this.session(sessionFile);
    return session
      .getPath()
      .filter((e) => isUserMessage(e))
      .map((e) => ({ entryId: e.id, preview: previewOf(e), timestamp: e.timestamp }));
  }

  // ── transcript ─────────────────────────────────────────────────────────────

  async loadTranscript(sessionFile: string): Promise<{ model: TranscriptModel; items: TranscriptItem[] }> {
    const session = await this.session(sessionFile);
    const snap = branchesOf(session, this.#warn);
    const path = session.getPath();
    const otherBranchesAt = otherBranchesAlong(session, path, snap.branches);
    const snapshots = await this.fileSnapshotsOf(session);
    const items = buildTranscriptItems(path, {
      otherBranchesAt,
      fileCheckpoints: new Map(snapshots.map((s) => [s.anchorId, s.files])),
      fileCheckpointsKnown: true,
      labelOf: (id) => session.getLabel(id),
    });
    const listing = listingOf(session, sourceOfPath(sessionFile), 0);
    return {
      model: { sessionId: session.sessionId, title: listing.title, source: listing.source, branch: snap.active.name, total: items.length },
      items,
    };
  }

  // ── branches and named checkpoints ─────────────────────────────────────────

  async conversation(sessionFile: string): Promise<Conversation<SessionManager>> {
    return new Conversation(await this.session(sessionFile), { warn: this.#warn });
  }

  async branches(sessionFile: string): Promise<BranchInfo[]> {
    return (await this.conversation(sessionFile)).branches();
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

  // ── file checkpoints ───────────────────────────────────────────────────────

  /** The per-message file snapshots of a session (none while file checkpointing is off). */
  async fileSnapshotsOf(_session: SessionManager): Promise<{ anchorId: string; files: number; createdAt?: string }[]> {
    return [];
  }
}

/** For each entry of the active path where another branch leaves it: that branch's name and head. */
function otherBranchesAlong(
  session: SessionManager,
  path: readonly SessionEntry[],
  branches: readonly { name: string; isActive: boolean; headMessageId: string | null; leafId: string | null }[],
): Map<string, { name: string; headEntryId: string }[]> {
  const onPath = new Set(path.map((e) => e.id));
  // A fork can sit on an entry that is no chat row (a branch record): show it on the nearest row before it.
  const rowAt = new Map<string, string>();
  let lastRow: string | undefined;
  for (const e of path) {
    if (toTranscriptItem(e, {})) lastRow = e.id;
    if (lastRow) rowAt.set(e.id, lastRow);
  }
  const out = new Map<string, { name: string; headEntryId: string }[]>();
  for (const b of branches) {
    if (b.isActive || !b.leafId) continue;
    // Walk up from the branch's leaf to the first entry on the active path: that is where it leaves.
    let id: string | null = b.leafId;
    let forkAt: string | undefined;
    while (id) {
      if (onPath.has(id)) {
        forkAt = id;
        break;
      }
      id = session.getEntry(id)?.parentId ?? null;
    }
    const at = forkAt === undefined ? undefined : rowAt.get(forkAt);
    if (!at) continue;
    const list = out.get(at) ?? [];
    list.push({ name: b.name, headEntryId: b.headMessageId ?? b.leafId });
    out.set(at, list);
  }
  return out;
}
