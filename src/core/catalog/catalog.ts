// The session catalog: a sql.js index over every session file of a workspace (sessions, branches, checkpoints and
// message text with full-text search), so the tree and "Search sessions" answer without reading every file.
//
// It is an index, never the only copy: every row is derived from a session file (and the file-checkpoint records),
// a missing/corrupt/other-version db starts empty and is refilled by refresh(), and refresh() reindexes a file whose
// size or mtime changed and drops the rows of a file that is gone. It never writes to a session file.
import { SerialQueue } from '../serial-queue';
import { dirname, join, resolve } from 'node:path';
import type { Database, SqlValue } from 'sql.js';
import type { SessionSummary } from '../session/discovery';
import { FileSessionStorage, type StorageStat } from '../session/storage';
import type { SessionSource } from '../session/types';
import type { SessionView } from '../sources/session-view';
import { catalogPath, loadCatalogDb, saveCatalogDb, type CatalogRebuildReason } from './catalog-file';
import { toFtsQuery } from './fts-query';
import { readSessionForCatalog, type IndexedBranch, type IndexedCheckpoint, type IndexedSession } from './session-reader';
import { loadSqlJs } from './sqljs-loader';
import { TimeSlicer } from './time-slice';

export interface CatalogOptions {
  /** The agent-rewind home; the catalog is <home>/catalog.sqlite unless `file` says otherwise. */
  home: string;
  file?: string;
  /** The sql.js wasm bytes; default: sql-wasm.wasm next to the bundle, else from node_modules. */
  wasmBinary?: Uint8Array;
  /** How long after a change the db is written (changes in between share one write). Default 1500 ms. */
  saveDelayMs?: number;
  /** Where a working folder's file checkpoints are (default <home>/checkpoints/<folder>-<hash>). */
  fileCheckpointStore?: (cwd: string) => string | undefined;
  warn?: (message: string) => void;
  /** Reads another agent's session read-only (Claude Code, Codex); without it those files are not indexed. */
  openForeign?: (file: string) => Promise<SessionView | undefined>;
}

/** A folder of session files (the engine's SessionFolder has this shape). */
/** One session file to index (a listing, or a discovery summary). */
export type CatalogFile = Pick<SessionSummary, 'file' | 'source'>;

export interface CatalogFolder {
  path: string;
  source: SessionSource;
}

export interface RefreshResult {
  indexed: number;
  removed: number;
  unchanged: number;
  /** Files that could not be read; their old rows (if any) are kept until they can. */
  failed: { file: string; error: string }[];
}

export type CatalogSession = Omit<IndexedSession, 'branches' | 'checkpoints' | 'messages'> & { messageCount: number };

/** Which sessions a query looks at: those whose header names this working folder, whose file is directly in one of
 *  these folders (a workspace's session folders), or that are one of these files (another agent's sessions, whose
 *  folders are shared by many working folders). Several given: any matches. None: all. */
export interface CatalogScope {
  cwd?: string;
  folders?: readonly string[];
  files?: readonly string[];
}

export interface SearchOptions extends CatalogScope {
  /** Most hits returned. Default 50. */
  limit?: number;
  /** Most hits per session, so one long session does not hide the others. Default 5. */
  perSession?: number;
}

export interface SearchHit {
  sessionId: string;
  file: string;
  source: SessionSource;
  cwd: string;
  /** The session's title. */
  title: string;
  entryId: string;
  /** false for a v1 file: its entry ids are made up on load and change when the file is migrated (opened for writing). */
  entryIdStable: boolean;
  kind: string;
  /** The branch the message is on (the active one when it is on its path). */
  branch?: string;
  timestamp?: string;
  /** Plain text around the match (one line, "…" where text was cut). */
  snippet: string;
  /** [start, end) character ranges of `snippet` that matched. */
  highlights: [number, number][];
}

const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const DEFAULT_LIMIT = 50;
const DEFAULT_PER_SESSION = 5;

/** A WHERE condition on sessions `s` for a scope, with its parameters. */
function scopeWhere(scope: CatalogScope): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (scope.cwd !== undefined) {
    parts.push('s.cwd = ?');
    params.push(resolve(scope.cwd));
  }
  if (scope.folders !== undefined) {
    parts.push(scope.folders.length ? `s.dir IN (${scope.folders.map(() => '?').join(',')})` : '0');
    params.push(...scope.folders.map((f) => resolve(f)));
  }
  if (scope.files !== undefined) {
    parts.push(scope.files.length ? `s.file IN (${scope.files.map(() => '?').join(',')})` : '0');
    params.push(...scope.files.map((f) => resolve(f)));
  }
  return { sql: parts.length ? `(${parts.join(' OR ')})` : '1', params };
}

function str(v: SqlValue | undefined): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

/** Snippet text with the FTS markers turned into ranges, on one line. */
function parseSnippet(marked: string): { snippet: string; highlights: [number, number][] } {
  // code fences (```json) are markdown plumbing, not text anyone searched for
  const flat = marked
    .replace(/`{3,}[\w-]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const highlights: [number, number][] = [];
  let out = '';
  let start = -1;
  for (const ch of flat) {
    if (ch === MARK_OPEN) start = out.length;
    else if (ch === MARK_CLOSE) {
      if (start >= 0 && out.length > start) highlights.push([start, out.length]);
      start = -1;
    } else out += ch;
  }
  return { snippet: out, highlights };
}

export class Catalog {
  readonly file: string;
  readonly #home: string;
  #db: Database;
  readonly #rebuiltBecause: CatalogRebuildReason | undefined;
  readonly #rebuildDetail: string | undefined;
  readonly #saveDelayMs: number;
  readonly #opts: CatalogOptions;
  #dirty: boolean;
  #saveTimer: NodeJS.Timeout | undefined;
  /** refresh and save run one at a time; reads are synchronous and see the state between two sessions' writes. */
  readonly #queue = new SerialQueue();
  #closed = false;
  /** close() was called: refresh passes stop at the next file or slice, so closing never waits for a long pass. */
  #closing = false;

  private constructor(db: Database, file: string, opts: CatalogOptions, rebuilt: CatalogRebuildReason | undefined, detail: string | undefined) {
    this.#db = db;
    this.file = file;
    this.#home = resolve(opts.home);
    this.#opts = opts;
    this.#saveDelayMs = opts.saveDelayMs ?? 1500;
    this.#rebuiltBecause = rebuilt;
    this.#rebuildDetail = detail;
    // A corrupt or old file is replaced at the next save even if nothing gets indexed.
    this.#dirty = rebuilt === 'corrupt' || rebuilt === 'schema';
  }

  /** Loads sql.js (first use only) and the db file; a missing, unreadable or other-version file gives an empty catalog
   *  (see rebuiltBecause) that the next refresh() fills from the session files. */
  static async open(opts: CatalogOptions): Promise<Catalog> {
    const SQL = await loadSqlJs(opts.wasmBinary);
    const file = resolve(opts.file ?? catalogPath(opts.home));
    const loaded = await loadCatalogDb(SQL, file);
    if (loaded.rebuiltBecause === 'corrupt' || loaded.rebuiltBecause === 'schema') {
      opts.warn?.(`The session catalog ${file} is rebuilt from the session files (${loaded.detail ?? loaded.rebuiltBecause}).`);
    }
    return new Catalog(loaded.db, file, opts, loaded.rebuiltBecause, loaded.detail);
  }

  /** Why the catalog started empty, when it did. */
  get rebuiltBecause(): CatalogRebuildReason | undefined {
    return this.#rebuiltBecause;
  }
  get rebuildDetail(): string | undefined {
    return this.#rebuildDetail;
  }

  // ── indexing ────────────────────────────────────────────────────────────────

  /**
   * Brings the catalog up to date with session files: each listed file (a summary) or each *.jsonl in a folder is
   * reindexed when its size or mtime changed; rows of files in those folders that are gone are removed. Rows of
   * other folders are left alone. The db is saved once, a moment after the pass.
   */
  refresh(input: readonly CatalogFile[] | readonly CatalogFolder[]): Promise<RefreshResult> {
    return this.#enqueue(async () => {
      const { files, scopes } = this.#filesOf(input);
      const result: RefreshResult = { indexed: 0, removed: 0, unchanged: 0, failed: [] };
      const known = this.#knownFiles();
      const seen = new Set<string>();
      const unique = files.filter(({ file }) => !seen.has(file) && seen.add(file));
      // every file's stat data at once (one at a time, the thread-pool round trips were most of a refresh that
      // finds nothing changed); the files that did change are then indexed one by one
      const storage = new FileSessionStorage();
      const stats: (StorageStat | undefined)[] = [];
      for (let i = 0; i < unique.length; i += 32) stats.push(...(await Promise.all(unique.slice(i, i + 32).map(({ file }) => storage.stat(file)))));
      let interrupted = false;
      for (const [i, { file, source }] of unique.entries()) {
        if (this.#closing) {
          interrupted = true;
          break;
        }
        const outcome = await this.#refreshOne(file, source, known.get(file), stats[i]);
        if (outcome === 'indexed') result.indexed++;
        else if (outcome === 'removed') result.removed++;
        else if (outcome === 'unchanged') result.unchanged++;
        else result.failed.push({ file, error: outcome.error });
      }
      // an interrupted pass has not seen every file, so it cannot tell which are gone
      for (const [file] of interrupted ? [] : known) {
        if (seen.has(file) || !scopes.has(dirname(file))) continue;
        this.#removeSession(file);
        result.removed++;
      }
      if (result.indexed + result.removed > 0) this.#markDirty();
      else if (this.#dirty) this.#scheduleSave();
      return result;
    });
  }

  /** Reindexes one file (a watcher saw it change) or removes its rows when it is gone. */
  refreshFile(file: string, source: SessionSource = 'agent-rewind'): Promise<'indexed' | 'removed' | 'unchanged' | { error: string }> {
    return this.#enqueue(async () => {
      const path = resolve(file);
      const known = this.#knownFiles().get(path);
      const outcome = await this.#refreshOne(path, known?.source ?? source, known);
      if (outcome === 'indexed' || outcome === 'removed') this.#markDirty();
      return outcome;
    });
  }

  #filesOf(input: readonly CatalogFile[] | readonly CatalogFolder[]): { files: { file: string; source: SessionSource }[]; scopes: Set<string> } {
    const files: { file: string; source: SessionSource }[] = [];
    const scopes = new Set<string>();
    const storage = new FileSessionStorage();
    for (const item of input) {
      if ('file' in item) {
        const file = resolve(item.file);
        files.push({ file, source: item.source });
        scopes.add(dirname(file));
      } else {
        const dir = resolve(item.path);
        scopes.add(dir);
        for (const name of storage.listFilesSync(dir).sort()) {
          if (name.endsWith('.jsonl')) files.push({ file: join(dir, name), source: item.source });
        }
      }
    }
    return { files, scopes };
  }

  #knownFiles(): Map<string, { size: number; mtimeMs: number; source: SessionSource }> {
    const out = new Map<string, { size: number; mtimeMs: number; source: SessionSource }>();
    const rows = this.#db.exec('SELECT file, size, mtime_ms, source FROM sessions')[0]?.values ?? [];
    for (const [file, size, mtimeMs, source] of rows)
      out.set(String(file), { size: Number(size), mtimeMs: Number(mtimeMs), source: String(source) as SessionSource });
    return out;
  }

  async #refreshOne(
    file: string,
    source: SessionSource,
    known: { size: number; mtimeMs: number } | undefined,
    statNow?: StorageStat,
  ): Promise<'indexed' | 'removed' | 'unchanged' | { error: string }> {
    const st = statNow ?? (await new FileSessionStorage().stat(file));
    if (!st?.isFile) {
      if (!known) return 'unchanged';
      this.#removeSession(file);
      return 'removed';
    }
    if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return 'unchanged';
    let indexed: IndexedSession | undefined;
    try {
      indexed = await readSessionForCatalog(file, source, {
        home: this.#home,
        fileCheckpointStore: this.#opts.fileCheckpointStore,
        warn: this.#opts.warn,
        openForeign: this.#opts.openForeign,
      });
    } catch (error) {
      const message = (error as Error).message;
      this.#opts.warn?.(`The catalog could not read ${file}: ${message}`);
      return { error: message };
    }
    if (this.#closing) return { error: 'the catalog is closing' };
    if (!indexed) {
      if (!known) return 'unchanged';
      this.#removeSession(file);
      return 'removed';
    }
    try {
      await this.#writeSession(indexed);
    } catch (error) {
      // half-written rows would answer searches with part of a session: drop them, the next refresh retries
      if (!this.#closed) this.#removeSession(file);
      return { error: (error as Error).message };
    }
    return 'indexed';
  }

  #removeSession(file: string): void {
    this.#transaction(() => this.#deleteRows(file));
  }

  #deleteRows(file: string): void {
    const db = this.#db;
    const id = db.exec('SELECT id FROM sessions WHERE file = ?', [file])[0]?.values[0]?.[0];
    if (id === undefined) return;
    db.run('DELETE FROM messages_fts WHERE docid IN (SELECT id FROM messages WHERE session = ?)', [id]);
    db.run('DELETE FROM messages WHERE session = ?', [id]);
    db.run('DELETE FROM branches WHERE session = ?', [id]);
    db.run('DELETE FROM checkpoints WHERE session = ?', [id]);
    db.run('DELETE FROM sessions WHERE id = ?', [id]);
  }

  /**
   * Replaces a session's rows. Messages go in in small transactions with a turn for the event loop in between (a
   * large session's full-text insert would otherwise block for hundreds of ms, FTS4 merging at each commit). Until
   * the last step the session row carries size -1, so a pass that dies halfway is redone by the next refresh.
   */
  async #writeSession(s: IndexedSession): Promise<void> {
    const db = this.#db;
    const slicer = new TimeSlicer();
    let sessionRow = 0;
    this.#transaction(() => {
      this.#deleteRows(s.file);
      db.run(
        `INSERT INTO sessions (session_id, file, dir, source, cwd, title, created, modified, size, mtime_ms, entry_count, active_branch, file_version, problem)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, -1, -1, ?, ?, ?, ?)`,
        [
          s.sessionId,
          s.file,
          dirname(s.file),
          s.source,
          s.cwd,
          s.title,
          s.created,
          s.modified,
          s.entryCount,
          s.activeBranch ?? null,
          s.fileVersion,
          s.problem ?? null,
        ],
      );
      sessionRow = Number(db.exec('SELECT last_insert_rowid()')[0]!.values[0]![0]);
      const branch = db.prepare('INSERT INTO branches (session, name, head_entry_id, message_count, active) VALUES (?, ?, ?, ?, ?)');
      const checkpoint = db.prepare('INSERT INTO checkpoints (session, name, entry_id, kind, created, files) VALUES (?, ?, ?, ?, ?, ?)');
      try {
        for (const b of s.branches) branch.run([sessionRow, b.name, b.headEntryId, b.messageCount, b.active ? 1 : 0]);
        for (const c of s.checkpoints) checkpoint.run([sessionRow, c.name, c.entryId, c.kind, c.created ?? null, c.files ?? null]);
      } finally {
        branch.free();
        checkpoint.free();
      }
    });
    let next = 0;
    while (next < s.messages.length) {
      await slicer.maybeYield();
      if (this.#closing) throw new Error('the catalog is closing');
      this.#transaction(() => {
        const message = db.prepare('INSERT INTO messages (session, seq, entry_id, kind, title, branch, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)');
        const text = db.prepare('INSERT INTO messages_fts (docid, text) VALUES (last_insert_rowid(), ?)');
        try {
          let chars = 0;
          // ~32 KiB of text per transaction keeps each FTS4 flush short
          while (next < s.messages.length && chars < 32 * 1024 && !slicer.due) {
            const m = s.messages[next]!;
            message.run([sessionRow, next, m.entryId, m.kind, m.title ?? null, m.branch ?? null, m.timestamp ?? null]);
            text.run([m.text]);
            chars += m.text.length;
            next++;
          }
        } finally {
          message.free();
          text.free();
        }
      });
    }
    db.run('UPDATE sessions SET size = ?, mtime_ms = ? WHERE id = ?', [s.size, s.mtimeMs, sessionRow]);
  }

  #transaction(fn: () => void): void {
    this.#db.run('BEGIN');
    try {
      fn();
      this.#db.run('COMMIT');
    } catch (error) {
      this.#db.run('ROLLBACK');
      throw error;
    }
  }

  // ── reading ─────────────────────────────────────────────────────────────────

  /** Indexed sessions, newest first; a string is a working folder (the sessions whose header names it). */
  listSessions(scope: string | CatalogScope = {}): CatalogSession[] {
    this.#throwIfClosed();
    const where = scopeWhere(typeof scope === 'string' ? { cwd: scope } : scope);
    const rows =
      this.#db.exec(
        `SELECT s.session_id, s.file, s.source, s.cwd, s.title, s.created, s.modified, s.size, s.mtime_ms, s.entry_count,
              s.active_branch, s.file_version, s.problem, (SELECT count(*) FROM messages m WHERE m.session = s.id)
       FROM sessions s WHERE ${where.sql} ORDER BY s.mtime_ms DESC, s.created DESC`,
        where.params,
      )[0]?.values ?? [];
    return rows.map((r) => {
      const out: CatalogSession = {
        sessionId: String(r[0]),
        file: String(r[1]),
        source: String(r[2]) as SessionSource,
        cwd: String(r[3]),
        title: String(r[4]),
        created: String(r[5]),
        modified: String(r[6]),
        size: Number(r[7]),
        mtimeMs: Number(r[8]),
        entryCount: Number(r[9]),
        fileVersion: Number(r[11]),
        messageCount: Number(r[13]),
      };
      if (r[10] !== null) out.activeBranch = String(r[10]);
      if (r[12] !== null) out.problem = String(r[12]);
      return out;
    });
  }

  /** The branches of an indexed session (main first, as derived), [] when the file is not indexed. */
  branchesOf(file: string): IndexedBranch[] {
    this.#throwIfClosed();
    const rows =
      this.#db.exec(
        `SELECT b.name, b.head_entry_id, b.message_count, b.active FROM branches b JOIN sessions s ON s.id = b.session
       WHERE s.file = ? ORDER BY b.rowid`,
        [resolve(file)],
      )[0]?.values ?? [];
    return rows.map((r) => ({ name: String(r[0]), headEntryId: str(r[1]) ?? null, messageCount: Number(r[2]), active: r[3] === 1 }));
  }

  /** Named checkpoints, then file checkpoints, of an indexed session. */
  checkpointsOf(file: string): IndexedCheckpoint[] {
    this.#throwIfClosed();
    const rows =
      this.#db.exec(
        `SELECT c.name, c.entry_id, c.kind, c.created, c.files FROM checkpoints c JOIN sessions s ON s.id = c.session
       WHERE s.file = ? ORDER BY c.kind = 'file', c.rowid`,
        [resolve(file)],
      )[0]?.values ?? [];
    return rows.map((r) => {
      const c: IndexedCheckpoint = { name: String(r[0]), entryId: String(r[1]), kind: r[2] === 'file' ? 'file' : 'named' };
      if (r[3] !== null) c.created = String(r[3]);
      if (r[4] !== null) c.files = Number(r[4]);
      return c;
    });
  }

  /**
   * Messages whose text matches every word of the query (the last word also as a prefix; "quoted words" as a
   * phrase), newest session first and in conversation order within a session. Any input is safe: FTS operators
   * and quotes in it are searched as text, never parsed as query syntax.
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    this.#throwIfClosed();
    const { match } = toFtsQuery(query);
    if (!match) return [];
    const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_LIMIT));
    const perSession = Math.max(1, Math.floor(opts.perSession ?? DEFAULT_PER_SESSION));
    const where = scopeWhere(opts);
    // First the rows (cheap), then snippets only for those kept: a common word can match thousands of messages.
    const picked =
      this.#db
        .exec(
          `SELECT docid FROM (
         SELECT messages_fts.docid AS docid, s.mtime_ms AS mtime, m.session AS session, m.seq AS seq,
                row_number() OVER (PARTITION BY m.session ORDER BY m.seq) AS nth
         FROM messages_fts JOIN messages m ON m.id = messages_fts.docid JOIN sessions s ON s.id = m.session
         WHERE messages_fts MATCH ? AND ${where.sql})
       WHERE nth <= ? ORDER BY mtime DESC, session, seq LIMIT ?`,
          [match, ...where.params, perSession, limit],
        )[0]
        ?.values.map((r) => Number(r[0])) ?? [];
    if (picked.length === 0) return [];
    const marks = `'${MARK_OPEN}', '${MARK_CLOSE}', '…', -1, 16`;
    const rows =
      this.#db.exec(
        `SELECT messages_fts.docid, snippet(messages_fts, ${marks}), s.session_id, s.file, s.source, s.cwd, s.title,
              s.file_version, m.entry_id, m.kind, m.branch, m.timestamp
       FROM messages_fts JOIN messages m ON m.id = messages_fts.docid JOIN sessions s ON s.id = m.session
       WHERE messages_fts MATCH ? AND messages_fts.docid IN (${picked.map(() => '?').join(',')})`,
        [match, ...picked],
      )[0]?.values ?? [];
    const byDocid = new Map(rows.map((r) => [Number(r[0]), r]));
    const hits: SearchHit[] = [];
    for (const docid of picked) {
      const r = byDocid.get(docid);
      if (!r) continue;
      const hit: SearchHit = {
        sessionId: String(r[2]),
        file: String(r[3]),
        source: String(r[4]) as SessionSource,
        cwd: String(r[5]),
        title: String(r[6]),
        entryIdStable: Number(r[7]) >= 2,
        entryId: String(r[8]),
        kind: String(r[9]),
        ...parseSnippet(String(r[1] ?? '')),
      };
      if (r[10] !== null) hit.branch = String(r[10]);
      if (r[11] !== null) hit.timestamp = String(r[11]);
      hits.push(hit);
    }
    return hits;
  }

  // ── persistence ─────────────────────────────────────────────────────────────

  #markDirty(): void {
    this.#dirty = true;
    this.#scheduleSave();
  }

  #scheduleSave(): void {
    if (this.#closing || this.#saveTimer) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      this.save().catch((error: Error) => this.#opts.warn?.(`The session catalog could not be saved: ${error.message}`));
    }, this.#saveDelayMs);
    // A pending save never keeps a CLI process alive; close() writes what is left.
    this.#saveTimer.unref();
  }

  /** Writes the db now (atomically) if anything changed since the last write. */
  save(): Promise<void> {
    return this.#enqueue(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      try {
        await saveCatalogDb(this.#db, this.file);
      } catch (error) {
        this.#dirty = true;
        throw error;
      }
    });
  }

  /** Saves pending changes and frees the db. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    try {
      await this.save();
    } finally {
      this.#closed = true;
      await this.#queue.idle();
      this.#db.close();
    }
  }

  #enqueue<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queue.run(() => {
      this.#throwIfClosed();
      return fn();
    });
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new Error('the session catalog is closed');
  }
}
