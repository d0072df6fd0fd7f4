// The session store: an append-only JSONL tree (docs/ARCHITECTURE.md, session files) with a movable leaf. This is the
// facade; its jobs live beside it: loading (session-file-read.ts), writing (session-file-write.ts) and cross-process
// sync (session-file-sync.ts), with the write queue and its latched errors in session-write-queue.ts. Here: the entries
// in memory, appends, what each change needs written, and transactions.
import { SerialQueue } from '../serial-queue';
import { dirname, join } from 'node:path';
import { BlobStore } from './blob-store';
import { buildSessionContext, indexById, pathToLeaf } from './context';
import { CUSTOM_ENTRY_ID_RE, newEntryId, newSessionId } from './ids';
import { blobsDir, sessionDirFor, sessionFileName, sessionsRoot } from './paths';
import { resolveBlobRefs, storeBlobs, type PendingBlob } from './persist-transform';
import { invalidEntryReason, readSessionFile, type LoadReport, type UpgradePlan } from './session-file-read';
import { lockSessionFile, readAppended, ReadCursor, CONSUMED_TAIL_BYTES } from './session-file-sync';
import { backupFile, entryLines, upgradedFileBytes, wholeFileText } from './session-file-write';
import { SessionWriteQueue } from './session-write-queue';
import { FileSessionStorage, MemorySessionStorage, type SessionStorage } from './storage';
import { resolveHome } from '../home';
import {
  CURRENT_SESSION_VERSION,
  type AgentMessage,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContentBlock,
  type CustomEntry,
  type CustomMessageEntry,
  type LabelEntry,
  type MessageEntry,
  type ModeChangeEntry,
  type ModelChangeEntry,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionInitEntry,
  type ThinkingLevelChangeEntry,
  type TtsrInjectionEntry,
} from './types';

export { InvalidSessionFileError, type LoadReport } from './session-file-read';
export { SessionPersistenceError } from './session-file-write';

export interface SessionManagerOptions {
  /** Default FileSessionStorage (real fs); MemorySessionStorage for tests. */
  storage?: SessionStorage;
  /** Default <home>/blobs. */
  blobStore?: BlobStore;
  /** Default resolveHome() from src/core/home.ts. */
  home?: string;
  /** pi writes nothing before the first assistant message. Default true; the CLI and the extension API pass false
   *  because every CLI call is its own process and an anchor must exist on disk before files are snapshotted. */
  deferUntilAssistant?: boolean;
  /** What open() does with a file whose first record is not a valid header, or an existing empty file: 'replace'
   *  (default, as pi does: back the bytes up, then start a new session there) or 'throw' (an InvalidSessionFileError;
   *  the file is not touched). A missing file is a new session either way. */
  onInvalidHeader?: 'replace' | 'throw';
}

export interface CreateSessionOptions extends SessionManagerOptions {
  title?: string;
  parentSession?: string;
  /** Folder for the new file; default <home>/sessions/--<encoded cwd>--. */
  sessionDir?: string;
}

function nowIso(): string {
  return new Date().toISOString();
}

function addChild(children: Map<string | null, SessionEntry[]>, e: SessionEntry): void {
  const siblings = children.get(e.parentId);
  if (siblings) siblings.push(e);
  else children.set(e.parentId, [e]);
}

type NewEntry<T extends SessionEntry> = Omit<T, 'id' | 'parentId' | 'timestamp'>;

export class SessionManager {
  readonly #storage: SessionStorage;
  readonly #blobs: BlobStore;
  readonly #defer: boolean;
  readonly #onInvalidHeader: 'replace' | 'throw';
  /** false for inMemory(): nothing is ever written. */
  readonly #persist: boolean;
  #file: string | undefined;
  #header: SessionHeader;
  /** A `{"type":"title"}` line found before the header, kept byte for byte. */
  #titleLine: string | undefined;
  #entries: SessionEntry[] = [];
  #byId = new Map<string, SessionEntry>();
  /** Built on the first getChildren() call, then kept up to date (loading does not pay for it). */
  #children: Map<string | null, SessionEntry[]> | undefined;
  #labels = new Map<string, string>();
  #leafId: string | null = null;
  #hasAssistant = false;
  #report: LoadReport = { skipped: [] };
  /** An old-format file read and migrated in memory only: the upgrade of the file waits for the first write. */
  #upgrade: UpgradePlan | undefined;

  /** Whether header + entries up to #writtenCount have been scheduled for the file. */
  #onDisk = false;
  #writtenCount = 0;
  readonly #writes: SessionWriteQueue;
  #closed = false;
  /** How far the file has been read (syncFromDisk reads from there) and whether its last line may be open. */
  #cursor = new ReadCursor();
  readonly #txQueue = new SerialQueue();

  private constructor(header: SessionHeader, file: string | undefined, opts: SessionManagerOptions, persist: boolean) {
    const home = opts.home ?? resolveHome();
    this.#storage = opts.storage ?? new FileSessionStorage();
    this.#blobs = opts.blobStore ?? new BlobStore(blobsDir(home), this.#storage);
    this.#defer = opts.deferUntilAssistant ?? true;
    this.#onInvalidHeader = opts.onInvalidHeader ?? 'replace';
    this.#persist = persist;
    this.#header = header;
    this.#file = file;
    this.#writes = new SessionWriteQueue(this.#storage, file);
  }

  // ── construction ────────────────────────────────────────────────────────────

  /** A new session in <home>/sessions/--<cwd>--/ (or sessionDir). Nothing is written before the first assistant
   *  message unless deferUntilAssistant is false. */
  static create(cwd: string, opts: CreateSessionOptions = {}): SessionManager {
    const id = newSessionId();
    const timestamp = nowIso();
    const dir = opts.sessionDir ?? sessionDirFor(sessionsRoot(opts.home ?? resolveHome()), cwd);
    const header: SessionHeader = { type: 'session', version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
    if (opts.title !== undefined) header.title = opts.title;
    if (opts.parentSession !== undefined) header.parentSession = opts.parentSession;
    const m = new SessionManager(header, join(dir, sessionFileName(timestamp, id)), opts, true);
    m.#storage.ensureDirSync(dir);
    m.#schedulePersist();
    return m;
  }

  /** A session that never touches any storage. */
  static inMemory(cwd: string = process.cwd()): SessionManager {
    const header: SessionHeader = { type: 'session', version: CURRENT_SESSION_VERSION, id: newSessionId(), timestamp: nowIso(), cwd };
    return new SessionManager(header, undefined, { storage: new MemorySessionStorage(), home: '/nonexistent' }, false);
  }

  /** Loads a session file leniently (see LoadReport). A missing or empty file → a new empty session at that path; an
   *  invalid header → a new session, with the old bytes copied to a backup first. */
  static async open(file: string, opts: SessionManagerOptions = {}): Promise<SessionManager> {
    const fresh: SessionHeader = { type: 'session', version: CURRENT_SESSION_VERSION, id: newSessionId(), timestamp: nowIso(), cwd: process.cwd() };
    for (let attempt = 1; ; attempt++) {
      const m = new SessionManager(fresh, file, opts, true);
      // 'changed': another process migrated (or wrote) the file while we were about to; read it again as it is now
      if ((await m.#load(file)) !== 'changed' || attempt >= 5) return m;
    }
  }

  /** Reads the file into this (fresh) manager (session-file-read.ts); 'changed' when an upgrade found the file changed under the lock. */
  async #load(file: string): Promise<'changed' | void> {
    const read = await readSessionFile(this.#storage, file, this.#onInvalidHeader);
    if (read.kind === 'new') {
      this.#storage.ensureDirSync(dirname(file));
      this.#schedulePersist();
      return;
    }
    this.#report.skipped = read.skipped;
    if (read.kind === 'invalid') {
      // A new session replaces it, but only after the old bytes are safe in a backup.
      this.#report.backupFile = await backupFile(this.#storage, file, 'corrupt');
      this.#schedulePersist();
      return;
    }
    this.#header = read.header;
    this.#titleLine = read.titleLine;
    this.#cursor = read.cursor;
    this.#onDisk = true;
    for (const e of read.entries) this.#index(e);
    this.#writtenCount = read.entries.length;
    this.#leafId = read.entries.length ? read.entries[read.entries.length - 1]!.id : null;
    await this.#resolveBlobs(read.entries);
    if (read.upgrade) {
      // migrated in memory only: the file is upgraded by the first write (#upgradeFile), never by reading
      this.#report.migratedFrom = read.upgrade.from;
      this.#upgrade = read.upgrade;
    }
  }

  async #resolveBlobs(entries: readonly SessionEntry[]): Promise<void> {
    for (const e of entries) {
      const content = e.type === 'message' ? (e as MessageEntry).message?.content : e.type === 'custom_message' ? (e as CustomMessageEntry).content : undefined;
      if (!Array.isArray(content)) continue;
      let hasRef = false;
      for (const b of content) if ((b as { type?: unknown }).type === 'image' && String((b as { data?: unknown }).data).startsWith('blob:')) hasRef = true;
      if (!hasRef) continue;
      const missing = await resolveBlobRefs(content, this.#blobs);
      if (missing.length) (this.#report.missingBlobs ??= []).push(...missing);
    }
  }

  #index(e: SessionEntry): void {
    if (e.parentId === undefined) e.parentId = null;
    this.#entries.push(e);
    this.#byId.set(e.id, e);
    if (this.#children) addChild(this.#children, e);
    if (e.type === 'label') {
      const l = e as LabelEntry;
      if (typeof l.label === 'string') this.#labels.set(l.targetId, l.label);
      else this.#labels.delete(l.targetId);
    } else if (e.type === 'message' && (e as MessageEntry).message?.role === 'assistant') {
      this.#hasAssistant = true;
    }
  }

  // ── reading ─────────────────────────────────────────────────────────────────

  get sessionId(): string {
    return this.#header.id;
  }
  get sessionFile(): string | undefined {
    return this.#file;
  }
  /** How the source layer names this session (sources/session-ref.ts): ours are files, so their path. */
  get sessionRef(): string | undefined {
    return this.#file;
  }
  get cwd(): string {
    return typeof this.#header.cwd === 'string' ? this.#header.cwd : '';
  }
  getHeader(): SessionHeader {
    return this.#header;
  }
  /** Every entry in insertion (file) order. */
  getEntries(): readonly SessionEntry[] {
    return this.#entries;
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }
  getLeafId(): string | null {
    return this.#leafId;
  }
  /** Root → leaf (default: the current leaf). */
  getPath(leafId: string | null = this.#leafId): SessionEntry[] {
    if (leafId === null) return [];
    const leaf = this.#byId.get(leafId);
    if (!leaf) throw new Error(`no entry ${leafId} in session ${this.sessionId}`);
    return pathToLeaf(leaf, this.#byId);
  }
  getChildren(parentId: string | null): SessionEntry[] {
    if (!this.#children) {
      this.#children = new Map();
      for (const e of this.#entries) addChild(this.#children, e);
    }
    return [...(this.#children.get(parentId) ?? [])];
  }
  getLabel(entryId: string): string | undefined {
    return this.#labels.get(entryId);
  }
  getLoadReport(): LoadReport {
    return this.#report;
  }
  /** buildSessionContext for a leaf (default: the current leaf; null → empty). */
  buildSessionContext(leafId: string | null | undefined = this.#leafId): SessionContext {
    return buildSessionContext(this.#entries, leafId, this.#byId);
  }

  // ── appending ───────────────────────────────────────────────────────────────

  #append<T extends SessionEntry>(fields: NewEntry<T>, id?: string): string {
    this.#throwIfUnusable();
    if (id !== undefined) {
      if (!CUSTOM_ENTRY_ID_RE.test(id)) throw new Error(`invalid entry id "${id}": use 1-64 letters, digits, _ or -`);
      if (this.#byId.has(id)) throw new Error(`entry id ${id} already exists in session ${this.sessionId}`);
    }
    // the tree fields first, as pi writes them
    const ordered = { type: fields.type, id: id ?? newEntryId(this.#byId), parentId: this.#leafId, timestamp: nowIso() } as SessionEntry;
    Object.assign(ordered, fields, { id: ordered.id, parentId: ordered.parentId, timestamp: ordered.timestamp });
    this.#index(ordered);
    this.#leafId = ordered.id;
    this.#schedulePersist();
    return ordered.id;
  }

  appendMessage(message: AgentMessage, opts: { id?: string } = {}): string {
    if (!message || typeof message.role !== 'string') throw new Error('a message needs a string role');
    return this.#append<MessageEntry>({ type: 'message', message }, opts.id);
  }
  appendThinkingLevelChange(level: string): string {
    return this.#append<ThinkingLevelChangeEntry>({ type: 'thinking_level_change', thinkingLevel: level });
  }
  appendModelChange(model: string, role?: string): string {
    return this.#append<ModelChangeEntry>(role === undefined ? { type: 'model_change', model } : { type: 'model_change', model, role });
  }
  appendCompaction(summary: string, firstKeptEntryId: string, tokensBefore?: number, extra: Partial<CompactionEntry> = {}): string {
    if (!this.#byId.has(firstKeptEntryId)) throw new Error(`compaction: no entry ${firstKeptEntryId} to keep from`);
    const { type: _t, id: _i, parentId: _p, timestamp: _ts, ...rest } = extra;
    const fields: NewEntry<CompactionEntry> = { type: 'compaction', summary, firstKeptEntryId, ...rest };
    if (tokensBefore !== undefined) fields.tokensBefore = tokensBefore;
    return this.#append<CompactionEntry>(fields);
  }
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.#append<CustomEntry>(data === undefined ? { type: 'custom', customType } : { type: 'custom', customType, data });
  }
  appendCustomMessageEntry(customType: string, content: string | ContentBlock[], display: boolean, details?: unknown): string {
    const fields: NewEntry<CustomMessageEntry> = { type: 'custom_message', customType, content, display };
    if (details !== undefined) fields.details = details;
    return this.#append<CustomMessageEntry>(fields);
  }
  /** label undefined clears the target's label. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.#byId.has(targetId)) throw new Error(`label: no entry ${targetId} in session ${this.sessionId}`);
    return this.#append<LabelEntry>(label === undefined ? { type: 'label', targetId } : { type: 'label', targetId, label });
  }
  appendTtsrInjection(rules: string[]): string {
    return this.#append<TtsrInjectionEntry>({ type: 'ttsr_injection', injectedRules: [...rules] });
  }
  appendSessionInit(init: Omit<SessionInitEntry, 'type' | 'id' | 'parentId' | 'timestamp'>): string {
    return this.#append<SessionInitEntry>({ ...init, type: 'session_init' });
  }
  appendModeChange(mode: string, data?: unknown): string {
    return this.#append<ModeChangeEntry>(data === undefined ? { type: 'mode_change', mode } : { type: 'mode_change', mode, data });
  }
  appendSessionInfo(name: string): string {
    return this.#append<SessionInfoEntry>({ type: 'session_info', name });
  }

  // ── tree navigation ─────────────────────────────────────────────────────────

  /** Moves the leaf only (nothing is written; pi takes the file's last entry as the leaf on load). */
  branch(entryId: string): void {
    if (!this.#byId.has(entryId)) throw new Error(`no entry ${entryId} in session ${this.sessionId}`);
    this.#leafId = entryId;
  }
  /** The next append becomes a new root. */
  resetLeaf(): void {
    this.#leafId = null;
  }
  /** Moves the leaf to fromId (null → root) and appends a branch_summary there; returns its id. */
  branchWithSummary(fromId: string | null, summary: string, details?: unknown, fromExtension?: boolean): string {
    if (fromId === null) this.resetLeaf();
    else this.branch(fromId);
    const fields: NewEntry<BranchSummaryEntry> = { type: 'branch_summary', fromId: fromId ?? 'root', summary };
    if (details !== undefined) fields.details = details;
    if (fromExtension !== undefined) fields.fromExtension = fromExtension;
    return this.#append<BranchSummaryEntry>(fields);
  }

  // ── persistence ─────────────────────────────────────────────────────────────

  #throwIfUnusable(): void {
    this.#writes.throwIfFailed();
    if (this.#closed) throw new Error(`session ${this.sessionId} is closed`);
  }

  /** Decides what the latest appends need: nothing yet (deferred), a full write, or an incremental append. */
  #schedulePersist(): void {
    if (!this.#persist || !this.#file) return;
    if (!this.#onDisk) {
      if (this.#defer && !this.#hasAssistant) return;
      this.#onDisk = true;
      const count = (this.#writtenCount = this.#entries.length);
      this.#writes.enqueue(() => this.#rewriteFile(count));
      return;
    }
    if (this.#writtenCount >= this.#entries.length) return;
    if (this.#upgrade) this.#writes.enqueue(() => this.#upgradeFile());
    const { lines, blobs } = entryLines(this.#entries.slice(this.#writtenCount));
    this.#writtenCount = this.#entries.length;
    this.#writes.enqueue(() => this.#appendLines(lines, blobs));
  }

  async #appendLines(lines: string[], blobs: PendingBlob[]): Promise<void> {
    const file = this.#file!;
    if (blobs.length) await storeBlobs(this.#blobs, blobs);
    let text = lines.join('\n') + '\n';
    if (this.#cursor.tailMayBeOpen) {
      // a writer died mid-line: end that line so ours starts on its own (the torn one is reported as skipped on load)
      const st = await this.#storage.stat(file);
      if (st && st.size > 0) {
        const last = await this.#storage.readBytesFrom(file, st.size - 1);
        if (last[0] !== 0x0a) text = '\n' + text;
      }
      this.#cursor.tailMayBeOpen = false;
    }
    await this.#writes.append(file, text);
  }

  /** Upgrades an old-format file before the first write to it (under the transaction's lock when there is one), after
   *  a `.bak` of its bytes (session-file-write.ts). If the file is no longer the one read (another process upgraded
   *  it), nothing is rewritten. */
  async #upgradeFile(): Promise<void> {
    const up = this.#upgrade;
    if (!up || !this.#file) return;
    this.#upgrade = undefined;
    const file = this.#file;
    const current = await this.#storage.readBytesFrom(file, 0);
    if (!current.subarray(0, up.bytes.length).equals(up.bytes)) return;
    this.#report.backupFile = await backupFile(this.#storage, file, `v${up.from}`);
    const { data, lines, blobs } = upgradedFileBytes(current, up, this.#header);
    if (blobs.length) await storeBlobs(this.#blobs, blobs);
    await this.#writes.closeWriter();
    await this.#storage.writeTextAtomic(file, data);
    this.#cursor.readUpTo(data.length, lines, data);
    this.#cursor.tailMayBeOpen = data.length > 0 && data[data.length - 1] !== 0x0a;
  }

  /** Writes the whole session atomically (temp file, fsync, rename, fsync folder). */
  async #rewriteFile(count: number): Promise<void> {
    const file = this.#file!;
    const { text, lines, blobs } = wholeFileText(this.#titleLine, this.#header, this.#entries.slice(0, count));
    if (blobs.length) await storeBlobs(this.#blobs, blobs);
    await this.#writes.closeWriter();
    this.#storage.ensureDirSync(dirname(file));
    await this.#storage.writeTextAtomic(file, text);
    this.#cursor.readUpTo(Buffer.byteLength(text), lines, Buffer.from(text.slice(-CONSUMED_TAIL_BYTES)));
    this.#cursor.tailMayBeOpen = false;
  }

  /** Waits until every queued write has been handed to the OS, without fsync (durability needs flush()). */
  drain(): Promise<void> {
    return this.#writes.drain();
  }

  /** Waits for every queued write and makes it durable (fsync). Rethrows a latched persistence error. */
  flush(): Promise<void> {
    return this.#writes.flush();
  }

  /** Flushes and releases the file. Later appends throw. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      await this.#writes.release();
    }
    this.#writes.throwIfFailed();
  }

  // ── cross-process ───────────────────────────────────────────────────────────

  /** Reads entries other processes appended since we last read the file; returns how many were new. If any were,
   *  the leaf becomes the file's last entry, as on a fresh open. A line still being written is left for later. */
  async syncFromDisk(): Promise<number> {
    this.#throwIfUnusable();
    if (!this.#persist || !this.#file || !this.#onDisk) return 0;
    await this.#writes.idle();
    const parsed = await readAppended(this.#storage, this.#file, this.#cursor);
    if (!parsed) return 0;
    const fresh: SessionEntry[] = [];
    const seen = new Set<string>();
    for (const { value, line } of parsed.records) {
      if (value.type === 'session' || value.type === 'title') continue;
      if (typeof value.id === 'string' && this.#byId.has(value.id)) continue; // ours, or read before
      const reason = invalidEntryReason(value, seen);
      if (reason) {
        if (!this.#report.skipped.some((x) => x.line === line)) this.#report.skipped.push({ line, reason });
        continue;
      }
      seen.add(value.id as string);
      fresh.push(value as SessionEntry);
    }
    for (const sk of parsed.skipped) if (!this.#report.skipped.some((x) => x.line === sk.line)) this.#report.skipped.push(sk);
    await this.#resolveBlobs(fresh);
    for (const e of fresh) this.#index(e);
    this.#writtenCount = this.#entries.length;
    if (fresh.length) this.#leafId = fresh[fresh.length - 1]!.id;
    return fresh.length;
  }

  /** Cross-process safe mutation: take the file lock, read entries other processes appended (the leaf then becomes
   *  the file's last entry, as on a fresh open), run fn, write what it appended, fsync, release. */
  transaction<T>(fn: (session: SessionManager) => T | Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.#throwIfUnusable();
      if (!this.#persist || !this.#file || !this.#storage.shared) {
        const result = await fn(this);
        await this.flush();
        return result;
      }
      await this.#writes.idle();
      this.#storage.ensureDirSync(dirname(this.#file));
      const lock = await lockSessionFile(this.#file);
      try {
        if (this.#upgrade && this.#upgrade.bytes.length === this.#cursor.bytes) {
          // nothing read since the load: an old-format file is upgraded before anything is appended to it
          this.#writes.enqueue(() => this.#upgradeFile());
          await this.#writes.idle();
        }
        await this.syncFromDisk();
        const result = await fn(this);
        await this.flush();
        if (!(await lock.stillHeld())) throw new Error(`lost the lock on ${this.#file}: ${this.#file}.lock was removed or taken over meanwhile`);
        return result;
      } finally {
        // entries fn appended before it threw are kept; they must be written before another process may write
        await this.#writes.idle();
        await lock.release().catch(() => undefined);
      }
    };
    return this.#txQueue.run(run);
  }
}

export { indexById };
