// Synthetic OpenCode data for the reader's tests: a session as rows, written as an opencode.db (sql.js, the columns
// OpenCode 1.18 has) or as the older storage/ JSON tree, and a SQLite WAL encoder (frames with salts and the running
// checksum, written from the format's description) to put committed and uncommitted pages beside a database.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../../../../src/core/sqljs-loader';

export interface TestSession {
  id: string;
  directory: string;
  title?: string;
  parentId?: string;
  revert?: Record<string, unknown>;
  model?: Record<string, unknown>;
  created?: number;
  messages: { id: string; data: Record<string, unknown>; parts: { id: string; data: Record<string, unknown> }[] }[];
}

let seq = 0;
/** An id of OpenCode's shape that sorts after every earlier one of this process. */
export function ocId(prefix: 'ses' | 'msg' | 'prt'): string {
  seq++;
  return `${prefix}_${String(seq).padStart(12, '0')}testid`;
}

export function userMessage(text: string, created = 1_800_000_000_000): TestSession['messages'][number] {
  const id = ocId('msg');
  return {
    id,
    data: { role: 'user', time: { created }, agent: 'build', model: { providerID: 'fake', modelID: 'fake-model' } },
    parts: [{ id: ocId('prt'), data: { type: 'text', text } }],
  };
}

export function assistantMessage(parentId: string, parts: Record<string, unknown>[], created = 1_800_000_000_500): TestSession['messages'][number] {
  return {
    id: ocId('msg'),
    data: {
      role: 'assistant',
      parentID: parentId,
      providerID: 'fake',
      modelID: 'fake-model',
      path: { cwd: '/w', root: '/w' },
      time: { created, completed: created + 10 },
    },
    parts: parts.map((data) => ({ id: ocId('prt'), data })),
  };
}

const SCHEMA = `
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
  directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer,
  summary_deletions integer, summary_files integer, summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL,
  revert text, permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
`;

export function insertSession(db: Database, s: TestSession): void {
  const t = s.created ?? 1_800_000_000_000;
  db.run(
    'INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, model, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
    [
      s.id,
      'proj',
      s.parentId ?? null,
      'slug',
      s.directory,
      s.title ?? '',
      '1.18.33',
      s.revert ? JSON.stringify(s.revert) : null,
      s.model ? JSON.stringify(s.model) : null,
      t,
      t + 1000,
    ],
  );
  for (const m of s.messages) {
    db.run('INSERT INTO message VALUES (?,?,?,?,?)', [m.id, s.id, t, t, JSON.stringify(m.data)]);
    for (const p of m.parts) db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', [p.id, m.id, s.id, t, t, JSON.stringify(p.data)]);
  }
}

/** An in-memory database with OpenCode's tables holding `sessions` (the caller closes it). */
export async function memoryDb(sessions: TestSession[]): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec(SCHEMA);
  for (const s of sessions) insertSession(db, s);
  return db;
}

/** `<dataDir>/opencode.db` holding `sessions` (no WAL). */
export async function writeDb(dataDir: string, sessions: TestSession[]): Promise<string> {
  mkdirSync(dataDir, { recursive: true });
  const db = await memoryDb(sessions);
  const file = join(dataDir, 'opencode.db');
  writeFileSync(file, db.export());
  db.close();
  return file;
}

/** The older layout: storage/session/<project>/<id>.json, storage/message/<session>/<id>.json,
 *  storage/part/<message>/<id>.json. */
export function writeJsonLayout(dataDir: string, s: TestSession): void {
  const storage = join(dataDir, 'storage');
  const t = s.created ?? 1_800_000_000_000;
  mkdirSync(join(storage, 'session', 'proj'), { recursive: true });
  writeFileSync(
    join(storage, 'session', 'proj', `${s.id}.json`),
    JSON.stringify({
      id: s.id,
      projectID: 'proj',
      directory: s.directory,
      title: s.title ?? '',
      version: '0.9',
      time: { created: t, updated: t + 1000 },
      ...(s.parentId ? { parentID: s.parentId } : {}),
      ...(s.revert ? { revert: s.revert } : {}),
    }),
  );
  for (const m of s.messages) {
    mkdirSync(join(storage, 'message', s.id), { recursive: true });
    writeFileSync(join(storage, 'message', s.id, `${m.id}.json`), JSON.stringify({ id: m.id, sessionID: s.id, ...m.data }));
    for (const p of m.parts) {
      mkdirSync(join(storage, 'part', m.id), { recursive: true });
      writeFileSync(join(storage, 'part', m.id, `${p.id}.json`), JSON.stringify({ id: p.id, sessionID: s.id, messageID: m.id, ...p.data }));
    }
  }
}

// ---- a WAL writer, from https://www.sqlite.org/fileformat2.html#walformat (little-endian checksums) ----

function walChecksum(data: Buffer, s0: number, s1: number): [number, number] {
  for (let i = 0; i < data.length; i += 8) {
    s0 = (s0 + data.readUInt32LE(i) + s1) >>> 0;
    s1 = (s1 + data.readUInt32LE(i + 4) + s0) >>> 0;
  }
  return [s0, s1];
}

export interface WalFrame {
  pageNo: number;
  page: Uint8Array;
  /** The database's size in pages after this frame when it ends a transaction; 0 otherwise. */
  commit: number;
}

/** A WAL file holding `frames` in order, with salts `salts`. `corruptFrame` writes that frame's checksum wrong. */
export function encodeWal(pageSize: number, frames: WalFrame[], opts: { salts?: [number, number]; corruptFrame?: number } = {}): Buffer {
  const [salt1, salt2] = opts.salts ?? [0x1234, 0x5678];
  const header = Buffer.alloc(32);
  header.writeUInt32BE(0x377f0682, 0);
  header.writeUInt32BE(3007000, 4);
  header.writeUInt32BE(pageSize, 8);
  header.writeUInt32BE(0, 12);
  header.writeUInt32BE(salt1, 16);
  header.writeUInt32BE(salt2, 20);
  let [s0, s1] = walChecksum(header.subarray(0, 24), 0, 0);
  header.writeUInt32BE(s0, 24);
  header.writeUInt32BE(s1, 28);
  const out: Buffer[] = [header];
  frames.forEach((f, i) => {
    const fh = Buffer.alloc(24);
    fh.writeUInt32BE(f.pageNo, 0);
    fh.writeUInt32BE(f.commit, 4);
    fh.writeUInt32BE(salt1, 8);
    fh.writeUInt32BE(salt2, 12);
    [s0, s1] = walChecksum(fh.subarray(0, 8), s0, s1);
    [s0, s1] = walChecksum(Buffer.from(f.page), s0, s1);
    fh.writeUInt32BE(opts.corruptFrame === i ? (s0 ^ 1) >>> 0 : s0, 16);
    fh.writeUInt32BE(s1, 20);
    out.push(fh, Buffer.from(f.page));
  });
  return Buffer.concat(out);
}

/** Every page of `db` as frames of one transaction (what a writer that changed them all would log). */
export function framesOf(db: Uint8Array, pageSize: number): WalFrame[] {
  const n = db.byteLength / pageSize;
  return Array.from({ length: n }, (_, i) => ({ pageNo: i + 1, page: db.subarray(i * pageSize, (i + 1) * pageSize), commit: i === n - 1 ? n : 0 }));
}
