// Reading the catalog (docs/ARCHITECTURE.md, "Where things are"): sessions in a scope, a session's branches and
// checkpoints, and full-text search with snippets. Pure queries over the db; the Catalog facade (catalog.ts) checks
// that it is open and passes its db in.
import { resolve } from 'node:path';
import type { Database, SqlValue } from 'sql.js';
import type { SessionSource } from '../session/types';
import type { SessionRef } from '../sources/session-ref';
import { toFtsQuery } from './fts-query';
import type { IndexedBranch, IndexedCheckpoint, IndexedSession } from './session-reader';

export type CatalogSession = Omit<IndexedSession, 'branches' | 'checkpoints' | 'messages'> & { messageCount: number };

/** Which sessions a query looks at: those whose header names this working folder, whose file is directly in one of
 *  these folders (a workspace's session folders), or that are one of these refs (another agent's sessions, whose
 *  folders are shared by many working folders). Several given: any matches. None: all. */
export interface CatalogScope {
  cwd?: string;
  folders?: readonly string[];
  refs?: readonly SessionRef[];
}

export interface SearchOptions extends CatalogScope {
  /** Most hits returned. Default 50. */
  limit?: number;
  /** Most hits per session, so one long session does not hide the others. Default 5. */
  perSession?: number;
}

export interface SearchHit {
  sessionId: string;
  ref: SessionRef;
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
    parts.push(scope.folders.length ? `s.folder IN (${scope.folders.map(() => '?').join(',')})` : '0');
    params.push(...scope.folders.map((f) => resolve(f)));
  }
  if (scope.refs !== undefined) {
    parts.push(scope.refs.length ? `s.ref IN (${scope.refs.map(() => '?').join(',')})` : '0');
    params.push(...scope.refs);
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

/** Indexed sessions, newest first; a string is a working folder (the sessions whose header names it). */
export function listSessionsIn(db: Database, scope: string | CatalogScope = {}): CatalogSession[] {
  const where = scopeWhere(typeof scope === 'string' ? { cwd: scope } : scope);
  const rows =
    db.exec(
      `SELECT s.session_id, s.ref, s.source, s.cwd, s.title, s.created, s.modified, s.stamp, s.modified_ms, s.entry_count,
            s.active_branch, s.file_version, s.problem, (SELECT count(*) FROM messages m WHERE m.session = s.id)
     FROM sessions s WHERE ${where.sql} ORDER BY s.modified_ms DESC, s.created DESC`,
      where.params,
    )[0]?.values ?? [];
  return rows.map((r) => {
    const out: CatalogSession = {
      sessionId: String(r[0]),
      ref: String(r[1]),
      source: String(r[2]) as SessionSource,
      cwd: String(r[3]),
      title: String(r[4]),
      created: String(r[5]),
      modified: String(r[6]),
      stamp: String(r[7]),
      modifiedMs: Number(r[8]),
      entryCount: Number(r[9]),
      fileVersion: Number(r[11]),
      messageCount: Number(r[13]),
    };
    if (r[10] !== null) out.activeBranch = String(r[10]);
    if (r[12] !== null) out.problem = String(r[12]);
    return out;
  });
}

/** The branches of an indexed session (main first, as derived), [] when it is not indexed. */
export function branchesIn(db: Database, ref: SessionRef): IndexedBranch[] {
  const rows =
    db.exec(
      `SELECT b.name, b.head_entry_id, b.message_count, b.active FROM branches b JOIN sessions s ON s.id = b.session
     WHERE s.ref = ? ORDER BY b.rowid`,
      [ref],
    )[0]?.values ?? [];
  return rows.map((r) => ({ name: String(r[0]), headEntryId: str(r[1]) ?? null, messageCount: Number(r[2]), active: r[3] === 1 }));
}

/** Named checkpoints, then file checkpoints, of an indexed session. */
export function checkpointsIn(db: Database, ref: SessionRef): IndexedCheckpoint[] {
  const rows =
    db.exec(
      `SELECT c.name, c.entry_id, c.kind, c.created, c.files FROM checkpoints c JOIN sessions s ON s.id = c.session
     WHERE s.ref = ? ORDER BY c.kind = 'file', c.rowid`,
      [ref],
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
export function searchIn(db: Database, query: string, opts: SearchOptions = {}): SearchHit[] {
  const { match } = toFtsQuery(query);
  if (!match) return [];
  const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_LIMIT));
  const perSession = Math.max(1, Math.floor(opts.perSession ?? DEFAULT_PER_SESSION));
  const where = scopeWhere(opts);
  // First the rows (cheap), then snippets only for those kept: a common word can match thousands of messages.
  const picked =
    db
      .exec(
        `SELECT docid FROM (
       SELECT messages_fts.docid AS docid, s.modified_ms AS mtime, m.session AS session, m.seq AS seq,
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
    db.exec(
      `SELECT messages_fts.docid, snippet(messages_fts, ${marks}), s.session_id, s.ref, s.source, s.cwd, s.title,
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
      ref: String(r[3]),
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
