// Reading and writing <home>/catalog.sqlite. sql.js keeps the database in memory, so the file is written whole:
// temp file + fsync + rename (+ fsync of the folder), so a crash leaves the old or the new file, and two windows (or
// the CLI) saving at once leave one complete file (the last rename wins, which is fine for a rebuildable index).
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { FileSessionStorage } from '../session/storage';
import { CATALOG_SCHEMA_VERSION, checkDatabase, createSchema } from './schema';

export const CATALOG_FILE_NAME = 'catalog.sqlite';

export function catalogPath(home: string): string {
  return join(home, CATALOG_FILE_NAME);
}

/** Why the catalog started empty: no file yet, a file that is not a readable database (its bytes are dropped), or a
 *  database of another schema version. */
export type CatalogRebuildReason = 'missing' | 'corrupt' | 'schema';

export interface LoadedCatalogDb {
  db: Database;
  rebuiltBecause?: CatalogRebuildReason;
  /** The reason in words (the SQLite error for a corrupt file). */
  detail?: string;
}

function emptyDb(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  createSchema(db);
  return db;
}

export async function loadCatalogDb(SQL: SqlJsStatic, file: string): Promise<LoadedCatalogDb> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { db: emptyDb(SQL), rebuiltBecause: 'missing' };
    return { db: emptyDb(SQL), rebuiltBecause: 'corrupt', detail: (error as Error).message };
  }
  if (bytes.length === 0) return { db: emptyDb(SQL), rebuiltBecause: 'corrupt', detail: 'empty file' };
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const version = checkDatabase(db);
    if (version !== CATALOG_SCHEMA_VERSION) {
      db.close();
      return { db: emptyDb(SQL), rebuiltBecause: 'schema', detail: `schema version ${version}, expected ${CATALOG_SCHEMA_VERSION}` };
    }
    return { db };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // a database that failed to open may not close either; it holds nothing we need
    }
    return { db: emptyDb(SQL), rebuiltBecause: 'corrupt', detail: (error as Error).message };
  }
}

export async function saveCatalogDb(db: Database, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await new FileSessionStorage().writeTextAtomic(file, Buffer.from(db.export()));
}
