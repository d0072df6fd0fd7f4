// A VS Code chat session as the engine's read model (ForeignSessionView), plus what only it has: the requests with
// their model and mode, and the keys its hook snapshots were taken under (a hook is given no request id: its prompt
// records are tied to the requests when the log is read, prompt-records.ts).
import { ForeignSessionBase, type ForeignSessionFacts } from '../foreign-session';
import type { ForeignSessionView, SubagentView } from '../session-view';
import type { ChatRequestInfo, ConvertedChat } from './convert';
import { VSCODE_CHAT_KIND } from './kind';
import { lateSnapshotNote, type LateSnapshotRecord } from './late-snapshots';
import { editingStateWrites } from './written-files';

export { VSCODE_CHAT_KIND };

export interface VsChatSessionParts extends ForeignSessionFacts {
  tree: ConvertedChat;
  /** requestId → the anchors of the hook snapshots taken for it, best first. */
  hookKeys: ReadonlyMap<string, readonly string[]>;
  /** The session's editing-state folder (chatEditingSessions/<id>), when there is one. */
  editingFolder?: string;
}

export class VsChatSession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = VSCODE_CHAT_KIND;
  readonly #requests: Map<string, ChatRequestInfo>;
  #hookKeys: ReadonlyMap<string, readonly string[]>;
  #late: ReadonlyMap<string, LateSnapshotRecord> = new Map();

  constructor(private readonly parts: VsChatSessionParts) {
    super(parts, parts.tree);
    this.#requests = new Map(parts.tree.requests.map((r) => [r.requestId, r]));
    this.#hookKeys = parts.hookKeys;
  }

  /** The hook records tied again (a hook may record a prompt after the log was read: the view is kept while the log
   *  does not change). */
  useHookKeys(keys: ReadonlyMap<string, readonly string[]>): void {
    this.#hookKeys = keys;
  }

  /** The snapshots the extension took late, without hooks, by request id (late-snapshots.ts). */
  useLateSnapshots(late: ReadonlyMap<string, LateSnapshotRecord>): void {
    this.#late = late;
  }

  /** A snapshot under the bare request id that the extension took late says how late; a hook's says nothing. */
  snapshotNoteOf(userEntryId: string, key: string): string | undefined {
    const late = key === userEntryId ? this.#late.get(userEntryId) : undefined;
    return late ? lateSnapshotNote(late) : undefined;
  }

  subagentsOf(): readonly SubagentView[] {
    return [];
  }

  /** A hook's snapshot (keyed by the prompt it saw), then one keyed by the request id itself (taken by the extension
   *  when it saw the request appear, without hooks). */
  checkpointKeysOf(userEntryId: string): readonly string[] {
    if (!this.#requests.has(userEntryId)) return [];
    return [...(this.#hookKeys.get(userEntryId) ?? []), userEntryId];
  }

  requests(): readonly ChatRequestInfo[] {
    return this.parts.tree.requests;
  }

  request(requestId: string): ChatRequestInfo | undefined {
    return this.#requests.get(requestId);
  }

  get editingFolder(): string | undefined {
    return this.parts.editingFolder;
  }

  /** By request id, the files VS Code's edit tools wrote for it: what its log's response says, and what its editing
   *  state says (read now: VS Code rewrites it while the log may stay as it was). */
  async filesWrittenByRequest(): Promise<Map<string, string[]>> {
    const out = new Map<string, Set<string>>();
    const add = (id: string, files: readonly string[]) => {
      if (this.#requests.has(id)) out.set(id, new Set([...(out.get(id) ?? []), ...files]));
    };
    for (const [id, files] of this.parts.tree.writes) add(id, files);
    for (const [id, files] of await editingStateWrites(this.parts.editingFolder)) add(id, files);
    return new Map([...out].map(([k, v]) => [k, [...v]]));
  }

  /** The model and mode of the latest request on the active path, as VS Code's picker names them. */
  get modelAndMode(): { model?: string; mode?: string } {
    const last = [...this.parts.tree.requests].reverse().find((r) => !r.removed);
    return { ...(last?.modelId ? { model: last.modelId } : {}), ...(last?.mode ? { mode: last.mode } : {}) };
  }
}
