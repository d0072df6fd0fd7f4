// Writing the catalog's rows (docs/ARCHITECTURE.md, "Where things are"): which sessions a refresh looks at, what the
// db already knows of them, and replacing or deleting one session's rows. The Catalog facade (catalog.ts) decides
// when, one pass at a time.
import { dirname, join, resolve } from 'node:path';
import type { Database } from 'sql.js';
import { FileSessionStorage } from '../session/storage';
import type { SessionSource } from '../session/types';
import type { SessionRef, SessionStamp } from '../sources/session-ref';
import type { IndexedSession } from './session-reader';
import { TimeSlicer } from './time-slice';

/** One session to index (a listing), by its ref. */
export interface CatalogRef {
  ref: SessionRef;
  source: SessionSource;
  /** When the listing says it last changed (a session that is no file of its own has no mtime to stat). */
  modifiedMs?: number;
}

/** A folder of our session files (the engine's SessionFolder has this shape): each *.jsonl in it is a session. */
export interface CatalogFolder {
  path: string;
  source: SessionSource;
}

export interface KnownSession {
  stamp: SessionStamp;
  source: SessionSource;
}

/** The folder a session counts as listed from (a file's folder; a row's: its database's), where a refresh of that
 *  folder finds it gone. */
export function folderOf(ref: SessionRef): string {
  return dirname(ref);
}

/** The sessions a refresh looks at (each listed ref, each *.jsonl of a folder) and the folders in which a session the
 *  db knows but the pass did not see is gone. */
export function sessionsToIndex(input: readonly CatalogRef[] | readonly CatalogFolder[]): {
  sessions: CatalogRef[];
  scopes: Set<string>;
} {
  const sessions: CatalogRef[] = [];
  const scopes = new Set<string>();
  const storage = new FileSessionStorage();
  for (const item of input) {
    if ('ref' in item) {
      sessions.push(item);
      scopes.add(folderOf(item.ref));
    } else {
      const dir = resolve(item.path);
      scopes.add(dir);
      for (const name of storage.listFilesSync(dir).sort()) {
        if (name.endsWith('.jsonl')) sessions.push({ ref: join(dir, name), source: item.source });
      }
    }
  }
  return { sessions, scopes };
}

/** The sessions the db has rows of, with the stamp they had when indexed ('' while their rows are being written). */
export function knownSessions(db: Database): Map<SessionRef, KnownSession> {
  const out = new Map<SessionRef, KnownSession>();
  const rows = db.exec('SELECT ref, stamp, source FROM sessions')[0]?.values ?? [];
  for (const [ref, stamp, source] of rows) out.set(String(ref), { stamp: String(stamp), source: String(source) as SessionSource });
  return out;
}

/** Deletes one session's rows (call inside a transaction). */
export function deleteSessionRows(db: Database, ref: SessionRef): void {
  const id = db.exec('SELECT id FROM sessions WHERE ref = ?', [ref])[0]?.values[0]?.[0];
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
 * the last step the session row carries an empty stamp, so a pass that dies halfway is redone by the next refresh.
 */
export async function writeSessionRows(db: Database, s: IndexedSession, closing: () => boolean): Promise<void> {
  const slicer = new TimeSlicer();
  let sessionRow = 0;
  inTransaction(db, () => {
    deleteSessionRows(db, s.ref);
    db.run(
      `INSERT INTO sessions (session_id, ref, folder, source, cwd, title, created, modified, stamp, modified_ms, entry_count, active_branch, file_version, problem)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?)`,
      [
        s.sessionId,
        s.ref,
        folderOf(s.ref),
        s.source,
        s.cwd,
        s.title,
        s.created,
        s.modified,
        s.modifiedMs,
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
    if (closing()) throw new Error('the catalog is closing');
    inTransaction(db, () => {
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
  db.run('UPDATE sessions SET stamp = ? WHERE id = ?', [s.stamp, sessionRow]);
}

export function inTransaction(db: Database, fn: () => void): void {
  db.run('BEGIN');
  try {
    fn();
    db.run('COMMIT');
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
}
