// VS Code's own chat behind the source interface: sessions found in the window storage folders of every VS Code on
// the machine (storage-folders.ts), read in place and never written. VS Code continues a conversation only from its
// own chat view, so "Rewind to here" puts the files back and leaves the conversation to VS Code (forkNote says so).
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Warn } from '../../branches/records';
import type { SessionListing } from '../listings';
import { ReadCache } from '../read-cache';
import { fileStamp } from '../session-ref';
import type { FileCheckpoints } from '../../files/types';
import type { ConversationRewind, NewPromptSnapshots, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import type { SessionView } from '../session-view';
import { listStorageFolder } from './discovery';
import { matchPromptRecords, readVsPromptRecords } from './prompt-records';
import { vscodeHooksInstalled } from './hooks-settings';
import { editorChatTarget, runEditorChatAction, type CommandRunner, type EditorChatAction, type EditorChatTarget } from './editor-chat';
import { readLateSnapshotRecords, snapshotNewRequests } from './late-snapshots';
import { readVsChatSession } from './reader';
import { VSCODE_CHAT_KIND, VsChatSession } from './session';
import { EDITING_DIR, editingFolderOf, SESSIONS_DIR, sessionFilesIn, sessionIdOfFile, storageFolderOf, storageFolders } from './storage-folders';

const AGENT = 'VS Code chat';
/** Under a window storage folder: the session logs and the editing states beside them. */
const WATCHED = `{${SESSIONS_DIR}/*.jsonl,${SESSIONS_DIR}/*.json,${EDITING_DIR}/*/state.json}`;
const MAX_CACHED = 16;

export interface VsChatSourceOptions {
  home: string;
  /** This window's storage folder, when running inside VS Code (the parent of the extension's storageUri). */
  editorStorage?: string;
  env?: NodeJS.ProcessEnv;
  userHome?: string;
}

/** What the preview and the error say the conversation part is: agent-rewind does the files, VS Code the chat. */
export const CONVERSATION_NOTE =
  "agent-rewind puts the workspace's files back as they were when this request was sent (terminal changes included); it never writes VS Code's chat files, so the conversation stays as it is here. VS Code rewinds it: open this session in VS Code's chat and use its own Restore Checkpoint on the request (it sets this request and the later ones aside and puts the request's text back into the input, to edit and send again).";

/** Our hooks in the workspace's hook file; an unreadable file runs no hook either. */
function hooksInstalledIn(workspace: string): boolean {
  try {
    return vscodeHooksInstalled(workspace).includes('UserPromptSubmit');
  } catch {
    return false;
  }
}

export class VsChatSource implements SourceAdapter {
  readonly kinds = [VSCODE_CHAT_KIND] as const;
  readonly writable = false;
  readonly #opts: VsChatSourceOptions;
  readonly #cache = new ReadCache<VsChatSession>(MAX_CACHED);
  /** Session file → the folder its listing placed it in (so open() agrees with the listing). */
  readonly #placed = new Map<string, string>();
  #roots: readonly string[] = [];
  /** The late snapshot run going on per session id. */
  readonly #lateRuns = new Map<string, Promise<unknown>>();

  constructor(opts: VsChatSourceOptions) {
    this.#opts = opts;
  }

  #storages(): string[] {
    return storageFolders({
      ...(this.#opts.editorStorage ? { editorStorage: this.#opts.editorStorage } : {}),
      ...(this.#opts.env ? { env: this.#opts.env } : {}),
      ...(this.#opts.userHome ? { home: this.#opts.userHome } : {}),
    });
  }

  #windowFolderOf(storage: string | undefined): string | undefined {
    // the extension's own window: its storage folder's sessions are this window's, in its first folder
    return storage && this.#opts.editorStorage && resolve(storage) === resolve(this.#opts.editorStorage) ? this.#roots[0] : undefined;
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    this.#roots = ctx.workspaceRoots;
    if (ctx.workspaceRoots.length === 0) return [];
    const out: SessionListing[] = [];
    for (const storage of this.#storages()) {
      const windowFolder = this.#windowFolderOf(storage);
      for (const l of await listStorageFolder(storage, { roots: ctx.workspaceRoots, ...(windowFolder ? { windowFolder } : {}) })) {
        this.#placed.set(resolve(l.sessionRef), l.cwd);
        out.push(l);
      }
    }
    return out.sort((a, b) => b.modifiedMs - a.modifiedMs);
  }

  /** The change signal: a session is its log and its editing state (`chatEditingSessions/<id>/state.json`). */
  watchFolders(): WatchedFolder[] {
    return this.#storages().map((s) => ({ path: resolve(s), source: VSCODE_CHAT_KIND, pattern: WATCHED }));
  }

  /** A change of the log is its session's; one of an editing state is the session of that id in the same window. */
  async refsOfChange(path: string): Promise<string[]> {
    const p = resolve(path);
    const session = dirname(p);
    if (basename(p) === 'state.json' && basename(dirname(session)) === EDITING_DIR) {
      const id = basename(session);
      return sessionFilesIn(dirname(dirname(session))).filter((f) => sessionIdOfFile(f) === id);
    }
    return [p];
  }

  /** The log's size and mtime, and its editing state's. */
  async stamp(ref: string): Promise<string | undefined> {
    const log = await fileStamp(ref);
    if (log === undefined) return undefined;
    const editing = editingFolderOf(ref);
    return `${log}|${(editing && (await fileStamp(join(editing, 'state.json')))) || '-'}`;
  }

  fileOf(ref: string): string {
    return ref;
  }

  owns(file: string): boolean {
    const path = resolve(file);
    const storage = storageFolderOf(path);
    if (!storage || !/\.jsonl?$/.test(path)) return false;
    return path.includes(`${sep}workspaceStorage${sep}`) || (this.#opts.editorStorage !== undefined && resolve(this.#opts.editorStorage) === storage);
  }

  async findById(id: string): Promise<string[]> {
    const files = this.#storages().flatMap((s) => sessionFilesIn(s));
    const exact = files.filter((f) => sessionIdOfFile(f) === id);
    return exact.length ? exact : files.filter((f) => sessionIdOfFile(f).startsWith(id));
  }

  async open(file: string): Promise<VsChatSession> {
    const path = resolve(file);
    const windowFolder = this.#placed.get(path) ?? this.#windowFolderOf(storageFolderOf(path));
    const view = await this.#cache.get(path, (p) =>
      readVsChatSession(p, { home: this.#opts.home, roots: this.#roots, ...(windowFolder ? { windowFolder } : {}) }),
    );
    view.useHookKeys(matchPromptRecords(readVsPromptRecords(this.#opts.home, view.sessionId), view.requests()));
    view.useLateSnapshots(readLateSnapshotRecords(this.#opts.home, view.sessionId));
    return view;
  }

  /** Without our hooks in the session's workspace, its newest request gets a snapshot when it appears in the log
   *  (late-snapshots.ts). One run per session at a time: two log changes in a row must not snapshot it twice. */
  snapshotNewPrompts(view: SessionView, checkpoints: Pick<FileCheckpoints, 'listSnapshots' | 'snapshot' | 'workspaceRoot'>): Promise<NewPromptSnapshots> {
    if (!(view instanceof VsChatSession)) return Promise.resolve({ taken: [], skipped: [] });
    const previous = this.#lateRuns.get(view.sessionId) ?? Promise.resolve();
    const run = previous.then(async (): Promise<NewPromptSnapshots> => {
      const r = await snapshotNewRequests({
        home: this.#opts.home,
        sessionId: view.sessionId,
        requests: view.requests(),
        keysOf: (id) => view.checkpointKeysOf(id),
        listSnapshots: () => checkpoints.listSnapshots(view.sessionId),
        snapshot: (anchorId) => checkpoints.snapshot(view.sessionId, anchorId, 'user-message'),
        hooksInstalled: () => hooksInstalledIn(checkpoints.workspaceRoot),
      });
      if (r.taken.length) view.useLateSnapshots(readLateSnapshotRecords(this.#opts.home, view.sessionId));
      return {
        taken: r.taken.map((t) => ({ entryId: t.requestId, lagMs: t.takenAtMs - t.requestAtMs })),
        skipped: r.skipped.map((s) => ({ entryId: s.requestId, reason: s.reason })),
      };
    });
    const settled = run.catch(() => undefined);
    this.#lateRuns.set(view.sessionId, settled);
    void settled.then(() => {
      if (this.#lateRuns.get(view.sessionId) === settled) this.#lateRuns.delete(view.sessionId);
    });
    return run;
  }

  /** The files VS Code's edit tools wrote, by request: its log's responses and its editing state (written-files.ts). */
  async filesWrittenByTurn(view: SessionView): Promise<ReadonlyMap<string, readonly string[]>> {
    return view instanceof VsChatSession ? view.filesWrittenByRequest() : new Map();
  }

  async rewindConversation(_view: SessionView, _userEntryId: string, _warn: Warn): Promise<ConversationRewind> {
    throw new Error(`The conversation of a ${AGENT} session is rewound in VS Code itself. ${CONVERSATION_NOTE}`);
  }

  forkNote(): { error: string } {
    return { error: CONVERSATION_NOTE };
  }

  /** VS Code's own commands act on the request (editor-chat.ts): the preview offers them. */
  editorChatTarget(view: SessionView, userEntryId: string): EditorChatTarget | undefined {
    return view instanceof VsChatSession ? editorChatTarget(view.sessionId, view.request(userEntryId)) : undefined;
  }

  runEditorChatAction<U>(action: EditorChatAction, target: EditorChatTarget, run: CommandRunner<U>): Promise<void> {
    return runEditorChatAction(action, target, run);
  }

  async forget(file: string): Promise<void> {
    this.#cache.forget(file);
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
  }
}
