// Writing the catalog's rows (docs/ARCHITECTURE.md, "Where things are"): which session files a refresh looks at,
// what the db already knows of them, and replacing or deleting one session's rows. The Catalog facade (catalog.ts)
// decides when, one pass at a time.
import { dirname, join, resolve } from 'node:path';
import type { Database } from 'sql.js';
import type { SessionSummary } from '../sources';
import { FileSessionStorage } from '../session/storage';
import type { SessionSource } from '../session/types';
import type { IndexedSession } from './session-reader';
import { TimeSlicer } from './time-slice';

/** One session file to index (a listing, or a discovery summary). */
export type CatalogFile = Pick<SessionSummary, 'file' | 'source'>;

/** A folder of session files (the engine's SessionFolder has this shape). */
export interface CatalogFolder {
  path: string;
  source: SessionSource;
}

export interface KnownFile {
  size: number;
  mtimeMs: number;
  source: SessionSource;
}

/** The session files a refresh looks at (each listed file, each *.jsonl of a folder) and the folders in which a file
 *  the db knows but the pass did not see is gone. */
export function filesToIndex(input: readonly CatalogFile[] | readonly CatalogFolder[]): {
  files: { file: string; source: SessionSource }[];
  scopes: Set<string>;
} {
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

/** The files the db has rows of, with the size and mtime they had when indexed. */
export function knownFiles(db: Database): Map<string, KnownFile> {
  const out = new Map<string, KnownFile>();
  const rows = db.exec('SELECT file, size, mtime_ms, source FROM sessions')[0]?.values ?? [];
  for (const [file, size, mtimeMs, source] of rows)
    out.set(String(file), { size: Number(size), mtimeMs: Number(mtimeMs), source: String(source) as SessionSource });
  return out;
}

/** Deletes one session's rows (call inside a transaction). */
export function deleteSessionRows(db: Database, file: string): void {
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
export async function writeSessionRows(db: Database, s: IndexedSession, closing: () => boolean): Promise<void> {
  const slicer = new TimeSlicer();
  let sessionRow = 0;
  inTransaction(db, () => {
    deleteSessionRows(db, s.file);
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
  db.run('UPDATE sessions SET size = ?, mtime_ms = ? WHERE id = ?', [s.size, s.mtimeMs, sessionRow]);
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
