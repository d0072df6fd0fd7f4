// Where OpenCode keeps its data, and its sessions read from both layouts there (opencode.db and the older storage/
// tree), de-duplicated by id: the database's copy wins, and the JSON adds only what the database lacks.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { convertSession } from './convert';
import { DB_FILE_NAME, listDbSessions, openOpenCodeDb, readDbSession } from './db-rows';
import { listJsonSessions, readJsonSession } from './json-rows';
import { mergeSessionRows, type OcSessionInfo } from './rows';
import { OpenCodeSession } from './session';

/** `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (OpenCode uses the XDG folders on every platform). */
export function openCodeDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.local', 'share'), 'opencode');
}

export const dbPathOf = (dataDir: string): string => join(dataDir, DB_FILE_NAME);
export const storageDirOf = (dataDir: string): string => join(dataDir, 'storage');

const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Every session of both layouts (no messages), one per id. A database that cannot be read is reported through
 *  `warn` and its sessions left out; the JSON ones are still listed. */
export async function listOpenCodeSessions(dataDir: string, warn: (message: string) => void = () => undefined): Promise<OcSessionInfo[]> {
  const byId = new Map<string, OcSessionInfo>();
  for (const s of await listJsonSessions(storageDirOf(dataDir))) byId.set(s.id, s);
  try {
    const db = await openOpenCodeDb(dbPathOf(dataDir));
    try {
      for (const s of listDbSessions(db)) byId.set(s.id, s);
    } finally {
      db.close();
    }
  } catch (err) {
    if (!missing(err)) warn(`OpenCode sessions in ${dbPathOf(dataDir)} could not be listed: ${(err as Error).message}`);
  }
  return [...byId.values()];
}

/** One session read whole from both layouts into the common model; undefined when neither has it. `sessionFile` is
 *  what the view reports as its file. */
export async function readOpenCodeSession(dataDir: string, sessionId: string, sessionFile: string): Promise<OpenCodeSession | undefined> {
  let fromDb: Awaited<ReturnType<typeof readDbSession>>;
  try {
    const db = await openOpenCodeDb(dbPathOf(dataDir));
    try {
      fromDb = readDbSession(db, sessionId);
    } finally {
      db.close();
    }
  } catch (err) {
    if (!missing(err)) throw err;
  }
  const fromJson = await readJsonSession(storageDirOf(dataDir), sessionId);
  const rows = mergeSessionRows(fromDb, fromJson);
  if (!rows) return undefined;
  const skippedRows = (fromDb?.skipped ?? 0) + (fromJson?.skipped ?? 0);
  const skipped = skippedRows ? [{ line: 0, reason: `${skippedRows} row(s) or file(s) of this session could not be read` }] : [];
  return new OpenCodeSession({ info: rows.info, sessionFile, tree: convertSession(rows), report: { skipped } });
}
