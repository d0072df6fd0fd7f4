// Reading and writing <home>/catalog.sqlite. sql.js keeps the database in memory, so the file is written whole:
// temp file + fsync + rename (+ fsync of the folder), so a crash leaves the old or the new file, and two windows (or
// the CLI) saving at once leave one complete file (the last rename wins, which is fine for a rebuildable index).
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { applyConnectionPragmas, CATALOG_SCHEMA_VERSION, checkDatabase, createSchema } from './schema';

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
  applyConnectionPragmas(db);
  createSchema(db);
  return db;
}

/** A writer killed between creating its temp file and the rename leaves `.<name>.<pid>.<ms>.<n>.tmp` behind (the
 *  naming saveCatalogDb uses). Removed when that process is gone or the file is an hour old. */
export async function removeAbandonedTemps(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.(\d+)\.\d+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m) continue;
    const pid = Number(m[1]);
    const abandoned = Date.now() - Number(m[2]) > 3_600_000 || !processAlive(pid);
    if (abandoned) await unlink(join(dir, name)).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function loadCatalogDb(SQL: SqlJsStatic, file: string): Promise<LoadedCatalogDb> {
  await removeAbandonedTemps(file);
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
    applyConnectionPragmas(db);
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

let tempCounter = 0;

export async function saveCatalogDb(db: Database, file: string): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${Date.now()}.${tempCounter++}.tmp`);
  const fh = await open(tmp, 'wx');
  try {
    const bytes = db.export();
    applyConnectionPragmas(db);
    await fh.writeFile(bytes);
    await fh.sync();
    await fh.close();
    await rename(tmp, file);
  } catch (error) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  // the rename itself is durable only once the folder is synced (not possible on every platform)
  const dh = await open(dir, 'r').catch(() => undefined);
  await dh?.sync().catch(() => undefined);
  await dh?.close();
}
