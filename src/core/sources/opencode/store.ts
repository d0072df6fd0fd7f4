// One OpenCode data folder as the source adapter reads it: opencode.db kept open in memory (sql.js) as last committed,
// read again only when the main file or its -wal changed (size, mtime, inode), plus the older storage/ tree. It
// answers the listing, each session's cheap version (its stamp) and each session's read, so the adapter never
// copies the database once per question.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { convertSession } from './convert';
import { listDbSessions, openOpenCodeDb, readDbSession } from './db-rows';
import { jsonSessionFile, listJsonSessions, readJsonSession } from './json-rows';
import { dbPathOf, storageDirOf } from './paths';
import { mergeSessionRows, OC_ID, type OcSessionInfo } from './rows';
import { OpenCodeSession } from './session';
import type { ForkOrigin } from '../session-view';

interface Loaded {
  /** The main file's and the -wal's identity when read: equal means unchanged. */
  key: string;
  db?: Database;
  sessions: Map<string, OcSessionInfo>;
  error?: string;
}

async function fileKey(path: string): Promise<string> {
  const s = await stat(path).catch(() => undefined);
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '-';
}

export class OpenCodeStore {
  readonly dataDir: string;
  readonly dbPath: string;
  #loaded: Loaded | undefined;
  #loading: Promise<Loaded> | undefined;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
    this.dbPath = dbPathOf(dataDir);
  }

  async #key(): Promise<string> {
    return `${await fileKey(this.dbPath)}|${await fileKey(`${this.dbPath}-wal`)}`;
  }

  /** The database as committed now (read again when its files changed since the last read). */
  async #current(): Promise<Loaded> {
    const key = await this.#key();
    if (this.#loaded?.key === key) return this.#loaded;
    this.#loading ??= (async () => {
      try {
        const loaded: Loaded = { key, sessions: new Map() };
        try {
          loaded.db = await openOpenCodeDb(this.dbPath);
          for (const s of listDbSessions(loaded.db)) loaded.sessions.set(s.id, s);
        } catch (err) {
          loaded.db?.close();
          delete loaded.db;
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') loaded.error = (err as Error).message;
        }
        this.#loaded?.db?.close();
        this.#loaded = loaded;
        return loaded;
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  /** Every session of both layouts (no messages), one per id, the database's first. */
  async list(warn: (message: string) => void): Promise<OcSessionInfo[]> {
    const loaded = await this.#current();
    if (loaded.error) warn(`OpenCode sessions in ${this.dbPath} could not be listed: ${loaded.error}`);
    const byId = new Map<string, OcSessionInfo>();
    for (const s of await listJsonSessions(storageDirOf(this.dataDir))) byId.set(s.id, s);
    for (const [id, s] of loaded.sessions) byId.set(id, s);
    return [...byId.values()];
  }

  /** A version of one session that moves whenever it may have changed: from the database, its row's update time and
   *  its messages' and parts' count and latest update; from the JSON, the session file's identity and its message
   *  folder's time (a part rewritten in place is not seen: OpenCode versions that write this layout are long gone).
   *  Undefined: neither has it. */
  async stamp(sessionId: string): Promise<string | undefined> {
    if (!OC_ID.test(sessionId)) return undefined;
    const loaded = await this.#current();
    const info = loaded.sessions.get(sessionId);
    let fromDb = '';
    if (info && loaded.db) {
      const row = loaded.db.exec(
        'SELECT (SELECT count(*) || ":" || ifnull(max(time_updated), 0) FROM message WHERE session_id = $id), (SELECT count(*) || ":" || ifnull(max(time_updated), 0) FROM part WHERE session_id = $id)',
        { $id: sessionId },
      )[0]?.values[0];
      fromDb = `${info.updatedMs}:${String(row?.[0])}:${String(row?.[1])}:${info.revert?.messageID ?? ''}:${info.revert?.partID ?? ''}`;
    }
    const storage = storageDirOf(this.dataDir);
    const file = await jsonSessionFile(storage, sessionId);
    if (!info && !file) return undefined;
    const messageDir = await stat(join(storage, 'message', sessionId)).catch(() => undefined);
    return `${fromDb}|${file ? await fileKey(file) : ''}:${messageDir?.mtimeMs ?? ''}`;
  }

  /** One session read whole; undefined when neither layout has it. `forkedFrom`: its origin, when known otherwise
   *  than by its parent_id. */
  async read(sessionId: string, sessionRef: string, forkedFrom?: ForkOrigin): Promise<OpenCodeSession | undefined> {
    if (!OC_ID.test(sessionId)) return undefined;
    const loaded = await this.#current();
    if (loaded.error) throw new Error(`${this.dbPath}: ${loaded.error}`);
    const fromDb = loaded.db ? readDbSession(loaded.db, sessionId) : undefined;
    const fromJson = await readJsonSession(storageDirOf(this.dataDir), sessionId);
    const rows = mergeSessionRows(fromDb, fromJson);
    if (!rows) return undefined;
    const skippedRows = (fromDb?.skipped ?? 0) + (fromJson?.skipped ?? 0);
    const skipped = skippedRows ? [{ line: 0, reason: `${skippedRows} row(s) or file(s) of this session could not be read` }] : [];
    return new OpenCodeSession({ info: rows.info, sessionRef, tree: convertSession(rows), report: { skipped }, ...(forkedFrom ? { forkedFrom } : {}) });
  }

  dispose(): void {
    this.#loaded?.db?.close();
    this.#loaded = undefined;
  }
}
