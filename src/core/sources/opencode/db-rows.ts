// OpenCode's opencode.db (SQLite, WAL) read into rows.ts's shapes. The bytes are read as committed (wal-read.ts) and
// opened in memory by sql.js, so the real file is never opened by SQLite, locked or written. The columns asked for are
// the ones the file has (OpenCode adds columns between versions); a row whose JSON does not parse is skipped and
// counted, never fatal.
import type { Database, SqlValue } from 'sql.js';
import { parseBoundedJson } from '../../json-depth';
import { loadSqlJs } from '../../sqljs-loader';
import { byId, num, obj, OC_ID, parseRevert, str, type Json, type OcMessage, type OcPart, type OcSessionInfo, type OcSessionRows } from './rows';
import { readCommittedDatabase } from './wal-read';

export const DB_FILE_NAME = 'opencode.db';

/** The database as committed, opened in memory (the caller closes it). Throws for a file that is not a database. */
export async function openOpenCodeDb(dbPath: string): Promise<Database> {
  const bytes = await readCommittedDatabase(dbPath);
  const SQL = await loadSqlJs();
  const db = new SQL.Database(bytes);
  try {
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch (err) {
    db.close();
    throw new Error(`${dbPath}: not a readable SQLite database (${(err as Error).message})`);
  }
  return db;
}

function columnsOf(db: Database, table: string): Set<string> {
  const r = db.exec(`PRAGMA table_info(${table})`);
  return new Set((r[0]?.values ?? []).map((v) => String(v[1])));
}

function query(db: Database, sql: string, params: SqlValue[] = []): Record<string, SqlValue>[] {
  const st = db.prepare(sql);
  try {
    st.bind(params);
    const out: Record<string, SqlValue>[] = [];
    while (st.step()) out.push(st.getAsObject());
    return out;
  } finally {
    st.free();
  }
}

/** Each row of `sql` handed to `each` as it is stepped: a long session's rows are tens of megabytes of JSON text, and
 *  holding them all until the last is parsed kept that text alive through every garbage collection of the read. */
function eachRow(db: Database, sql: string, params: SqlValue[], each: (row: SqlValue[]) => void): void {
  const st = db.prepare(sql);
  try {
    st.bind(params);
    while (st.step()) each(st.get());
  } finally {
    st.free();
  }
}

function parseJson(text: SqlValue | undefined): Json | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return obj(parseBoundedJson(text));
  } catch {
    return undefined;
  }
}

const SESSION_COLUMNS = ['id', 'project_id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated', 'revert', 'model', 'time_archived'];

function sessionSelect(db: Database): string | undefined {
  const have = columnsOf(db, 'session');
  if (!have.has('id') || !have.has('directory')) return undefined;
  return `SELECT ${SESSION_COLUMNS.filter((c) => have.has(c)).join(', ')} FROM session`;
}

function sessionInfo(row: Record<string, SqlValue>): OcSessionInfo | undefined {
  const id = str(row.id);
  const directory = str(row.directory);
  if (!id || !OC_ID.test(id) || !directory) return undefined;
  const revert = parseRevert(parseJson(row.revert));
  const model = parseJson(row.model);
  const modelId = str(model?.id) ?? str(model?.modelID);
  const provider = str(model?.providerID);
  const parentId = str(row.parent_id);
  const projectId = str(row.project_id);
  return {
    id,
    directory,
    title: str(row.title) ?? '',
    createdMs: num(row.time_created) ?? 0,
    updatedMs: num(row.time_updated) ?? num(row.time_created) ?? 0,
    ...(projectId ? { projectId } : {}),
    ...(parentId && OC_ID.test(parentId) ? { parentId } : {}),
    ...(revert ? { revert } : {}),
    ...(modelId ? { model: provider ? `${provider}/${modelId}` : modelId } : {}),
  };
}

/** Every session in the database (archived ones too), without their messages. */
export function listDbSessions(db: Database): OcSessionInfo[] {
  const sql = sessionSelect(db);
  if (!sql) return [];
  return query(db, sql)
    .map(sessionInfo)
    .filter((s): s is OcSessionInfo => !!s);
}

/** One session with its messages and parts; undefined when the database has no such session. `skipped` counts rows
 *  whose JSON could not be used. */
export function readDbSession(db: Database, sessionId: string): (OcSessionRows & { skipped: number }) | undefined {
  const sql = sessionSelect(db);
  if (!sql) return undefined;
  const info = query(db, `${sql} WHERE id = ?`, [sessionId]).map(sessionInfo)[0];
  if (!info) return undefined;
  let skipped = 0;
  const messages: OcMessage[] = [];
  // rows as arrays, not objects: a long session has tens of thousands of parts
  eachRow(db, 'SELECT id, time_created, data FROM message WHERE session_id = ?', [sessionId], ([rid, created, text]) => {
    const data = parseJson(text);
    const id = str(rid);
    if (!data || !id) skipped++;
    else messages.push({ id, sessionId, createdMs: num(created) ?? num(obj(data.time)?.created) ?? 0, data });
  });
  const parts = new Map<string, OcPart[]>();
  eachRow(db, 'SELECT id, message_id, data FROM part WHERE session_id = ?', [sessionId], ([rid, mid, text]) => {
    const data = parseJson(text);
    const id = str(rid);
    const messageId = str(mid);
    if (!data || !id || !messageId) {
      skipped++;
      return;
    }
    const list = parts.get(messageId);
    if (list) list.push({ id, messageId, data });
    else parts.set(messageId, [{ id, messageId, data }]);
  });
  // ordered here, not by SQLite: its sorter would copy every row's JSON text once more
  messages.sort(byId);
  for (const list of parts.values()) list.sort(byId);
  return { info, messages, parts, skipped };
}
