// The session catalog: a sql.js index over every session file of a workspace (sessions, branches, checkpoints and
// message text with full-text search), so the tree and "Search sessions" answer without reading every file.
//
// It is an index, never the only copy: every row is derived from a session file (and the file-checkpoint records),
// a missing/corrupt/other-version db starts empty and is refilled by refresh(), and refresh() reindexes a file whose
// size or mtime changed and drops the rows of a file that is gone. It never writes to a session file.
//
// This is the facade: when to refresh, one pass at a time, and when to save. What goes into the db is
// catalog-write.ts, what comes out catalog-query.ts, the db file itself catalog-file.ts.
import { SerialQueue } from '../serial-queue';
import { dirname, resolve } from 'node:path';
import type { Database } from 'sql.js';
import { FileSessionStorage, type StorageStat } from '../session/storage';
import type { SessionSource } from '../session/types';
import type { SessionView } from '../sources/session-view';
import { catalogPath, loadCatalogDb, saveCatalogDb, type CatalogRebuildReason } from './catalog-file';
import {
  branchesIn,
  checkpointsIn,
  listSessionsIn,
  searchIn,
  type CatalogScope,
  type CatalogSession,
  type SearchHit,
  type SearchOptions,
} from './catalog-query';
import { deleteSessionRows, filesToIndex, inTransaction, knownFiles, writeSessionRows, type CatalogFile, type CatalogFolder } from './catalog-write';
import { readSessionForCatalog, type IndexedBranch, type IndexedCheckpoint, type IndexedSession } from './session-reader';
import { loadSqlJs } from '../sqljs-loader';

export type { CatalogScope, CatalogSession, SearchHit, SearchOptions } from './catalog-query';
export type { CatalogFile, CatalogFolder } from './catalog-write';

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

export interface RefreshResult {
  indexed: number;
  removed: number;
  unchanged: number;
  /** Files that could not be read; their old rows (if any) are kept until they can. */
  failed: { file: string; error: string }[];
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
      const { files, scopes } = filesToIndex(input);
      const result: RefreshResult = { indexed: 0, removed: 0, unchanged: 0, failed: [] };
      const known = knownFiles(this.#db);
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
      const known = knownFiles(this.#db).get(path);
      const outcome = await this.#refreshOne(path, known?.source ?? source, known);
      if (outcome === 'indexed' || outcome === 'removed') this.#markDirty();
      return outcome;
    });
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
      await writeSessionRows(this.#db, indexed, () => this.#closing);
    } catch (error) {
      // half-written rows would answer searches with part of a session: drop them, the next refresh retries
      if (!this.#closed) this.#removeSession(file);
      return { error: (error as Error).message };
    }
    return 'indexed';
  }

  #removeSession(file: string): void {
    inTransaction(this.#db, () => deleteSessionRows(this.#db, file));
  }

  // ── reading ─────────────────────────────────────────────────────────────────

  /** Indexed sessions, newest first; a string is a working folder (the sessions whose header names it). */
  listSessions(scope: string | CatalogScope = {}): CatalogSession[] {
    this.#throwIfClosed();
    return listSessionsIn(this.#db, scope);
  }

  /** The branches of an indexed session (main first, as derived), [] when the file is not indexed. */
  branchesOf(file: string): IndexedBranch[] {
    this.#throwIfClosed();
    return branchesIn(this.#db, file);
  }

  /** Named checkpoints, then file checkpoints, of an indexed session. */
  checkpointsOf(file: string): IndexedCheckpoint[] {
    this.#throwIfClosed();
    return checkpointsIn(this.#db, file);
  }

  /**
   * Messages whose text matches every word of the query (the last word also as a prefix; "quoted words" as a
   * phrase), newest session first and in conversation order within a session. Any input is safe: FTS operators
   * and quotes in it are searched as text, never parsed as query syntax.
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    this.#throwIfClosed();
    return searchIn(this.#db, query, opts);
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
