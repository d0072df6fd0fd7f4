// The catalog's tables. The version lives in the db (PRAGMA user_version); a db of another version is rebuilt from
// the sessions rather than migrated, since everything in it can be derived again. Bump the version also when what is
// extracted from a session changes, so rows of sessions that did not change are derived again.
//
// A session is keyed by its ref (sources/session-ref.ts) and indexed as of its stamp: version 2 replaced the file
// path, size and mtime of version 1, so sessions that are rows of a database or a log with side files are indexed
// like files.
//
// Full-text search uses FTS4: sql.js 1.16's build (SQLite 3.54, ENABLE_FTS3 + FTS3_PARENTHESIS) has no FTS5.
// The message text lives only in the FTS table (docid = messages.id), so it is stored once.
import type { Database } from 'sql.js';

export const CATALOG_SCHEMA_VERSION = 2;

export const CATALOG_DDL = `
CREATE TABLE sessions (
  id            INTEGER PRIMARY KEY,
  session_id    TEXT NOT NULL,
  ref           TEXT NOT NULL UNIQUE,
  folder        TEXT NOT NULL,
  source        TEXT NOT NULL,
  cwd           TEXT NOT NULL,
  title         TEXT NOT NULL,
  created       TEXT NOT NULL,
  modified      TEXT NOT NULL,
  stamp         TEXT NOT NULL,
  modified_ms   REAL NOT NULL,
  entry_count   INTEGER NOT NULL,
  active_branch TEXT,
  file_version  INTEGER NOT NULL,
  problem       TEXT
);
CREATE INDEX sessions_cwd ON sessions (cwd);
CREATE INDEX sessions_folder ON sessions (folder);

CREATE TABLE branches (
  session       INTEGER NOT NULL REFERENCES sessions (id),
  name          TEXT NOT NULL,
  head_entry_id TEXT,
  message_count INTEGER NOT NULL,
  active        INTEGER NOT NULL
);
CREATE INDEX branches_session ON branches (session);

CREATE TABLE checkpoints (
  session  INTEGER NOT NULL REFERENCES sessions (id),
  name     TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  kind     TEXT NOT NULL CHECK (kind IN ('named', 'file')),
  created  TEXT,
  files    INTEGER
);
CREATE INDEX checkpoints_session ON checkpoints (session);

CREATE TABLE messages (
  id        INTEGER PRIMARY KEY,
  session   INTEGER NOT NULL REFERENCES sessions (id),
  seq       INTEGER NOT NULL,
  entry_id  TEXT NOT NULL,
  kind      TEXT NOT NULL,
  title     TEXT,
  branch    TEXT,
  timestamp TEXT
);
CREATE INDEX messages_session ON messages (session);

CREATE VIRTUAL TABLE messages_fts USING fts4(text, tokenize=unicode61 "remove_diacritics=2");
`;

/** Per-connection settings; sql.js resets them whenever it exports the db, so they are applied again after a save.
 *  The db lives in wasm memory and the file is written whole and atomically, so a journal on (in-memory) disk and
 *  syncs buy nothing: with them, the small transactions indexing uses cost ~5× more. */
export function applyConnectionPragmas(db: Database): void {
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;');
}

/** Creates the tables in an empty db. */
export function createSchema(db: Database): void {
  db.run('BEGIN');
  db.run(CATALOG_DDL);
  // Merge FTS4 segments a little after each transaction rather than all at once when a level fills up: indexing
  // commits often (small slices), and the all-at-once merges were the longest stalls (stored in the db).
  db.run(`INSERT INTO messages_fts (messages_fts) VALUES ('automerge=8')`);
  db.run(`PRAGMA user_version = ${CATALOG_SCHEMA_VERSION}`);
  db.run('COMMIT');
}

/** Throws when the db is unreadable (truncated, not a database) or malformed; returns its schema version. */
export function checkDatabase(db: Database): number {
  const check = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
  if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
  return Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
}
