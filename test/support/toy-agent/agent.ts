// A toy agent that lives only in the test tree (issue 21): ALL its sessions are rows of ONE SQLite database (sql.js),
// `<TOY_AGENT_HOME>/toy.db` (a `session` row per session, `message` rows), as OpenCode keeps its sessions, so nothing
// of it is a file per session: a session is named by the ref `<database>#<session id>`, its version (stamp) is its
// row's `updated` counter, and a change of the database may have changed any of its sessions (refsOfChange). Its hook
// is a script that runs `agent-rewind hook toy`. Loaded through $AGENT_REWIND_AGENT_MODULES like any extra agent; no
// line of production code names it.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AgentAdapter, HookOutcome } from '../../../src/core/sources/agent';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../../../src/core/sources/source-adapter';
import type { SessionListing } from '../../../src/core/sources/listings';
import type { ForeignSessionView, SessionView, SubagentView } from '../../../src/core/sources/session-view';
import type { SessionRef, SessionStamp } from '../../../src/core/sources/session-ref';
import { ForeignSessionBase } from '../../../src/core/sources/foreign-session';
import { ReadCache } from '../../../src/core/sources/read-cache';
import { isInside } from '../../../src/core/sources/workspace-paths';
import { loadSqlJs } from '../../../src/core/sqljs-loader';
import type { SessionEntry } from '../../../src/core/session/types';

export interface ToyMessage {
  id: string;
  parentId: string | null;
  role: 'user' | 'assistant';
  text: string;
  at: string;
}

export interface ToySessionRows {
  id: string;
  cwd: string;
  title: string;
  created: string;
  forkedFrom?: string;
  messages: ToyMessage[];
}

/** A session as read from the database, with its row's version. */
interface ToyRow extends ToySessionRows {
  updated: number;
}

const toyHome = () => resolve(process.env.TOY_AGENT_HOME ?? join(process.env.HOME ?? '.', '.toy'));
/** The one database every toy session is a row of. */
export const toyDatabase = (home = toyHome()) => join(home, 'toy.db');
export const toyRef = (db: string, sessionId: string): SessionRef => `${db}#${sessionId}`;
const idOfRef = (db: string, ref: SessionRef): string | undefined => (ref.startsWith(`${db}#`) ? ref.slice(db.length + 1) : undefined);

const SCHEMA = `CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, cwd TEXT, title TEXT, created TEXT, forked_from TEXT, updated INTEGER);
CREATE TABLE IF NOT EXISTS message (session_id TEXT, seq INTEGER, id TEXT, parent_id TEXT, role TEXT, text TEXT, at TEXT);`;

/** Changes the database as the toy agent would, written whole to a temporary file and renamed over it (readers see
 *  the old or the new database, never half of one). The changed session's `updated` goes up. */
async function changeDatabase(home: string, change: (db: import('sql.js').Database) => void): Promise<void> {
  const SQL = await loadSqlJs();
  const file = toyDatabase(home);
  await mkdir(home, { recursive: true });
  const bytes = await readFile(file).catch(() => undefined);
  const db = bytes ? new SQL.Database(bytes) : new SQL.Database();
  try {
    db.run(SCHEMA);
    change(db);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, db.export());
    renameSync(temp, file);
  } finally {
    db.close();
  }
}

function nextVersion(db: import('sql.js').Database): number {
  return Number(db.exec('SELECT coalesce(max(updated), 0) + 1 FROM session')[0]?.values[0]?.[0] ?? 1);
}

/** Writes one session (its row and its message rows, replacing what the database held of it); returns its ref. */
export async function writeToySession(home: string, s: ToySessionRows): Promise<SessionRef> {
  await changeDatabase(home, (db) => {
    // the version before the row goes: taken after, a database of this one session gave it 1 at every write, so its
    // stamp never moved and the catalog kept the first write's messages (flow 8's search found nothing)
    const version = nextVersion(db);
    db.run('DELETE FROM message WHERE session_id = ?', [s.id]);
    db.run('DELETE FROM session WHERE id = ?', [s.id]);
    db.run('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?)', [s.id, s.cwd, s.title, s.created, s.forkedFrom ?? null, version]);
    s.messages.forEach((m, i) => db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?, ?, ?)', [s.id, i, m.id, m.parentId, m.role, m.text, m.at]));
  });
  return toyRef(toyDatabase(home), s.id);
}

/** Appends a message to one session, as the toy agent does while it runs: only that session's row changes. */
export async function appendToyMessage(home: string, sessionId: string, m: ToyMessage): Promise<void> {
  await changeDatabase(home, (db) => {
    const seq = Number(db.exec('SELECT count(*) FROM message WHERE session_id = ?', [sessionId])[0]?.values[0]?.[0] ?? 0);
    db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?, ?, ?)', [sessionId, seq, m.id, m.parentId, m.role, m.text, m.at]);
    db.run('UPDATE session SET updated = ? WHERE id = ?', [nextVersion(db), sessionId]);
  });
}

/** Every session of the database, read once (never written: sql.js reads the bytes into memory). */
async function readToyDatabase(file: string): Promise<Map<string, ToyRow>> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(await readFile(file));
  try {
    const out = new Map<string, ToyRow>();
    for (const v of db.exec('SELECT id, cwd, title, created, forked_from, updated FROM session')[0]?.values ?? [])
      out.set(String(v[0]), {
        id: String(v[0]),
        cwd: String(v[1]),
        title: String(v[2]),
        created: String(v[3]),
        ...(v[4] ? { forkedFrom: String(v[4]) } : {}),
        updated: Number(v[5]),
        messages: [],
      });
    for (const v of db.exec('SELECT session_id, id, parent_id, role, text, at FROM message ORDER BY session_id, seq')[0]?.values ?? [])
      out.get(String(v[0]))?.messages.push({
        id: String(v[1]),
        parentId: v[2] === null ? null : String(v[2]),
        role: v[3] === 'user' ? 'user' : 'assistant',
        text: String(v[4]),
        at: String(v[5]),
      });
    return out;
  } finally {
    db.close();
  }
}

class ToySession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'toy';
  constructor(
    readonly rows: ToySessionRows,
    ref: SessionRef,
  ) {
    const entries: SessionEntry[] = rows.messages.map((m) => ({
      type: 'message',
      id: m.id,
      parentId: m.parentId,
      timestamp: m.at,
      message: { role: m.role, content: [{ type: 'text', text: m.text }], timestamp: Date.parse(m.at) },
    }));
    super(
      {
        sessionId: rows.id,
        sessionRef: ref,
        cwd: rows.cwd,
        title: rows.title,
        createdAt: rows.created,
        report: { skipped: [] },
        ...(rows.forkedFrom ? { forkedFrom: { sessionId: rows.forkedFrom } } : {}),
      },
      { entries, byId: new Map(entries.map((e) => [e.id, e])), leafId: entries.at(-1)?.id ?? null },
    );
  }
  subagentsOf(): readonly SubagentView[] {
    return [];
  }
  /** The toy's hook snapshots each prompt under the message's own id. */
  checkpointKeysOf(userEntryId: string): readonly string[] {
    return [userEntryId];
  }
}

class ToySource implements SourceAdapter {
  readonly kinds = ['toy'];
  readonly writable = false;
  /** The database, read again only when the file's size or mtime moved. */
  readonly #database = new ReadCache<Map<string, ToyRow>>(1);
  /** Each session, read again only when its row's stamp moved. */
  readonly #sessions = new ReadCache<ToySession>(16, (ref) => this.stamp(ref));

  async #rows(): Promise<Map<string, ToyRow>> {
    return this.#database.get(toyDatabase(), readToyDatabase).catch(() => new Map<string, ToyRow>());
  }
  async list(ctx: SourceContext): Promise<SessionListing[]> {
    const db = toyDatabase();
    return [...(await this.#rows()).values()]
      .filter((s) => ctx.workspaceRoots.some((r) => isInside(s.cwd, r)))
      .map((s) => ({
        sessionRef: toyRef(db, s.id),
        sessionId: s.id,
        title: s.title,
        source: 'toy',
        modifiedMs: Date.parse(s.messages.at(-1)?.at ?? s.created),
        createdAt: s.created,
        cwd: s.cwd,
        stamp: String(s.updated),
        ...(s.forkedFrom ? { fork: { originSessionId: s.forkedFrom } } : {}),
      }));
  }
  /** The change signal: the database file (renamed into place whole), which holds every session. */
  watchFolders(): WatchedFolder[] {
    return [{ path: toyHome(), source: 'toy', pattern: 'toy.db' }];
  }
  async refsOfChange(): Promise<SessionRef[]> {
    const db = toyDatabase();
    return [...(await this.#rows()).keys()].map((id) => toyRef(db, id));
  }
  async stamp(ref: SessionRef): Promise<SessionStamp | undefined> {
    const id = idOfRef(toyDatabase(), ref);
    const row = id === undefined ? undefined : (await this.#rows()).get(id);
    return row ? String(row.updated) : undefined;
  }
  fileOf(): string {
    return toyDatabase();
  }
  async findById(id: string): Promise<SessionRef[]> {
    const ids = [...(await this.#rows()).keys()];
    const exact = ids.filter((i) => i === id);
    return (exact.length ? exact : ids.filter((i) => i.startsWith(id))).map((i) => toyRef(toyDatabase(), i));
  }
  owns(ref: SessionRef): boolean {
    return idOfRef(toyDatabase(), ref) !== undefined;
  }
  async open(ref: SessionRef): Promise<SessionView> {
    return this.#sessions.get(ref, async () => {
      const row = (await this.#rows()).get(idOfRef(toyDatabase(), ref) ?? '');
      if (!row) throw new Error(`No toy session ${ref}`);
      return new ToySession(row, ref);
    });
  }
  /** A fork: a new session row whose messages are those before the user message, which the person sends again. */
  async rewindConversation(view: SessionView, userEntryId: string): Promise<ConversationRewind> {
    const rows = (view as ToySession).rows;
    const at = rows.messages.findIndex((m) => m.id === userEntryId);
    const id = randomUUID();
    const sessionRef = await writeToySession(toyHome(), {
      ...rows,
      id,
      forkedFrom: rows.id,
      created: new Date().toISOString(),
      messages: rows.messages.slice(0, at),
    });
    return { kind: 'fork', sessionId: id, sessionRef, agent: 'Toy Agent', resumeCommand: ['toy', 'resume', id], promptText: rows.messages[at]?.text ?? '' };
  }
  forkNote(): { agent: string; resumeHint: string } {
    return { agent: 'Toy Agent', resumeHint: 'toy resume <the new session id>' };
  }
  async forget(ref: SessionRef): Promise<void> {
    this.#sessions.forget(ref);
  }
  async dispose(): Promise<void> {}
}

const logFile = (home: string) => join(home, 'logs', 'toy-hooks.log');

export const agent: AgentAdapter = {
  id: 'toy',
  displayName: 'Toy Agent',
  icon: 'beaker',
  kinds: [{ id: 'toy', label: 'Toy Agent' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: true, ownFileHistory: false },
  source: () => new ToySource(),
  hooks: {
    /** The toy's hooks are one script in the workspace, `.toy/hook.sh`, that runs the launcher. */
    async install(target, launcher) {
      if (target.scope !== 'workspace') throw new Error('the toy agent has workspace hooks only');
      const file = join(target.workspace, '.toy', 'hook.sh');
      await mkdir(join(target.workspace, '.toy'), { recursive: true });
      writeFileSync(file, `#!/bin/sh\nexec ${[launcher.command, ...(launcher.args ?? []), 'hook', 'toy'].map((a) => `'${a}'`).join(' ')}\n`, { mode: 0o755 });
      return { file, result: { installed: true }, text: `Toy Agent hooks: wrote ${file}`, notes: [] };
    },
    async uninstall(target) {
      const file = target.scope === 'workspace' ? join(target.workspace, '.toy', 'hook.sh') : '';
      if (file) writeFileSync(file, '#!/bin/sh\n');
      return { file, result: { installed: false }, text: `Toy Agent hooks: emptied ${file}`, notes: [] };
    },
    async installed(target) {
      return target.scope === 'workspace' && readFileSync(join(target.workspace, '.toy', 'hook.sh'), 'utf8').includes('hook') ? ['prompt'] : [];
    },
    /** stdin: {"session_id", "message_id", "cwd"}: the workspace as it is when that message is sent. */
    async handle(stdin, run): Promise<HookOutcome> {
      let input: { session_id?: string; message_id?: string; cwd?: string };
      try {
        input = JSON.parse(stdin) as typeof input;
      } catch {
        this.logProblem(run.home, 'stdin is not JSON');
        return { status: 'bad-input' };
      }
      if (!input.session_id || !input.message_id || !input.cwd) {
        this.logProblem(run.home, 'session_id, message_id and cwd are needed');
        return { status: 'bad-input' };
      }
      const { summary, realRoot } = await run.snapshot({ root: input.cwd, sessionId: input.session_id, anchorId: input.message_id, kind: 'user-message' });
      return { status: 'done', workspace: realRoot, summary };
    },
    logProblem(home, message) {
      require('node:fs').mkdirSync(join(home, 'logs'), { recursive: true });
      require('node:fs').appendFileSync(logFile(home), `${message}\n`);
    },
  },
};
