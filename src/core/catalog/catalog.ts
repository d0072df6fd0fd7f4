// The session catalog: a sql.js index over every session of a workspace (sessions, branches, checkpoints and message
// text with full-text search), so the tree and "Search sessions" answer without reading every session.
//
// It is an index, never the only copy: every row is derived from a session (and the file-checkpoint records), a
// missing/corrupt/other-version db starts empty and is refilled by refresh(), and refresh() reindexes a session whose
// stamp changed (sources/session-ref.ts: a file's size and mtime, another agent's version of a row) and drops the
// rows of a session that is gone. Sessions are keyed by their refs. It never writes to a session.
//
// This is the facade: when to refresh, one pass at a time, and when to save. What goes into the db is
// catalog-write.ts, what comes out catalog-query.ts, the db file itself catalog-file.ts.
import { SerialQueue } from '../serial-queue';
import { resolve } from 'node:path';
import type { Database } from 'sql.js';
import { FileSessionStorage } from '../session/storage';
import type { SessionSource } from '../session/types';
import type { SessionView } from '../sources/session-view';
import { isReadOnlySource } from '../sources/registry';
import type { SessionRef, SessionStamp } from '../sources/session-ref';
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
import {
  deleteSessionRows,
  folderOf,
  inTransaction,
  knownSessions,
  sessionsToIndex,
  writeSessionRows,
  type CatalogFolder,
  type CatalogRef,
  type KnownSession,
} from './catalog-write';
import { readSessionForCatalog, type IndexedBranch, type IndexedCheckpoint, type IndexedSession, type SessionVersion } from './session-reader';
import { loadSqlJs } from '../sqljs-loader';

export type { CatalogScope, CatalogSession, SearchHit, SearchOptions } from './catalog-query';
export type { CatalogRef, CatalogFolder } from './catalog-write';

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
  /** Reads another agent's session read-only (Claude Code, Codex); without it those sessions are not indexed. */
  openForeign?: (ref: SessionRef) => Promise<SessionView | undefined>;
  /** Another agent's stamp of its session (its adapter's, sources/session-ref.ts); without it, the size and mtime of
   *  the ref as a file. */
  stampOf?: (ref: SessionRef) => Promise<SessionStamp | undefined>;
}

export interface RefreshResult {
  indexed: number;
  removed: number;
  unchanged: number;
  /** Sessions that could not be read; their old rows (if any) are kept until they can. */
  failed: { ref: SessionRef; error: string }[];
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
   * Brings the catalog up to date with sessions: each listed ref or each *.jsonl in a folder is reindexed when its
   * stamp changed; rows of sessions in those folders that are gone are removed. Rows of other folders are left alone.
   * The db is saved once, a moment after the pass.
   */
  refresh(input: readonly CatalogRef[] | readonly CatalogFolder[]): Promise<RefreshResult> {
    return this.#enqueue(async () => {
      const { sessions, scopes } = sessionsToIndex(input);
      const result: RefreshResult = { indexed: 0, removed: 0, unchanged: 0, failed: [] };
      const known = knownSessions(this.#db);
      const seen = new Set<string>();
      const unique = sessions.filter(({ ref }) => !seen.has(ref) && seen.add(ref));
      // every session's stamp at once (one at a time, the thread-pool round trips were most of a refresh that finds
      // nothing changed); the sessions that did change are then indexed one by one
      const versions: (SessionVersion | undefined)[] = [];
      for (let i = 0; i < unique.length; i += 32) versions.push(...(await Promise.all(unique.slice(i, i + 32).map((s) => this.#versionOf(s)))));
      let interrupted = false;
      for (const [i, { ref, source }] of unique.entries()) {
        if (this.#closing) {
          interrupted = true;
          break;
        }
        const outcome = await this.#refreshOne(ref, source, known.get(ref), versions[i]);
        if (outcome === 'indexed') result.indexed++;
        else if (outcome === 'removed') result.removed++;
        else if (outcome === 'unchanged') result.unchanged++;
        else result.failed.push({ ref, error: outcome.error });
      }
      // an interrupted pass has not seen every session, so it cannot tell which are gone
      for (const [ref] of interrupted ? [] : known) {
        if (seen.has(ref) || !scopes.has(folderOf(ref))) continue;
        this.#removeSession(ref);
        result.removed++;
      }
      if (result.indexed + result.removed > 0) this.#markDirty();
      else if (this.#dirty) this.#scheduleSave();
      return result;
    });
  }

  /** Reindexes one session (a watcher saw it change) or removes its rows when it is gone. */
  refreshSession(ref: SessionRef, source: SessionSource = 'agent-rewind'): Promise<'indexed' | 'removed' | 'unchanged' | { error: string }> {
    return this.#enqueue(async () => {
      const known = knownSessions(this.#db).get(ref);
      const kind = known?.source ?? source;
      const outcome = await this.#refreshOne(ref, kind, known, await this.#versionOf({ ref, source: kind }));
      if (outcome === 'indexed' || outcome === 'removed') this.#markDirty();
      return outcome;
    });
  }

  /** The session's version now (undefined: gone): another agent's stamp, else our file's size and mtime. */
  async #versionOf({ ref, source, modifiedMs }: CatalogRef): Promise<SessionVersion | undefined> {
    if (this.#opts.stampOf && isReadOnlySource(source)) {
      const stamp = await this.#opts.stampOf(ref);
      return stamp === undefined ? undefined : { stamp, modifiedMs: modifiedMs ?? Date.now() };
    }
    const st = await new FileSessionStorage().stat(ref);
    return st?.isFile ? { stamp: `${st.size}:${st.mtimeMs}`, modifiedMs: st.mtimeMs } : undefined;
  }

  async #refreshOne(
    ref: SessionRef,
    source: SessionSource,
    known: KnownSession | undefined,
    version: SessionVersion | undefined,
  ): Promise<'indexed' | 'removed' | 'unchanged' | { error: string }> {
    if (!version) {
      if (!known) return 'unchanged';
      this.#removeSession(ref);
      return 'removed';
    }
    if (known && known.stamp === version.stamp) return 'unchanged';
    let indexed: IndexedSession | undefined;
    try {
      indexed = await readSessionForCatalog(ref, source, version, {
        home: this.#home,
        fileCheckpointStore: this.#opts.fileCheckpointStore,
        warn: this.#opts.warn,
        openForeign: this.#opts.openForeign,
      });
    } catch (error) {
      const message = (error as Error).message;
      this.#opts.warn?.(`The catalog could not read ${ref}: ${message}`);
      return { error: message };
    }
    if (this.#closing) return { error: 'the catalog is closing' };
    if (!indexed) {
      if (!known) return 'unchanged';
      this.#removeSession(ref);
      return 'removed';
    }
    try {
      await writeSessionRows(this.#db, indexed, () => this.#closing);
    } catch (error) {
      // half-written rows would answer searches with part of a session: drop them, the next refresh retries
      if (!this.#closed) this.#removeSession(ref);
      return { error: (error as Error).message };
    }
    return 'indexed';
  }

  #removeSession(ref: SessionRef): void {
    inTransaction(this.#db, () => deleteSessionRows(this.#db, ref));
  }

  // ── reading ─────────────────────────────────────────────────────────────────

  /** Indexed sessions, newest first; a string is a working folder (the sessions whose header names it). */
  listSessions(scope: string | CatalogScope = {}): CatalogSession[] {
    this.#throwIfClosed();
    return listSessionsIn(this.#db, scope);
  }

  /** The branches of an indexed session (main first, as derived), [] when it is not indexed. */
  branchesOf(ref: SessionRef): IndexedBranch[] {
    this.#throwIfClosed();
    return branchesIn(this.#db, ref);
  }

  /** Named checkpoints, then file checkpoints, of an indexed session. */
  checkpointsOf(ref: SessionRef): IndexedCheckpoint[] {
    this.#throwIfClosed();
    return checkpointsIn(this.#db, ref);
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
