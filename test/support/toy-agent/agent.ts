// A toy agent that lives only in the test tree (issue 21): its sessions are rows of a SQLite database (sql.js), one
// database file per session (`<TOY_AGENT_HOME>/<id>.toydb`: a `session` row and its `message` rows), and its hook is
// a script that runs `agent-rewind hook toy`. Loaded through $AGENT_REWIND_AGENT_MODULES like any extra agent; no line
// of production code names it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AgentAdapter, HookOutcome } from '../../../src/core/sources/agent';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../../../src/core/sources/source-adapter';
import type { SessionListing } from '../../../src/core/sources/listings';
import type { ForeignSessionView, SessionView, SubagentView } from '../../../src/core/sources/session-view';
import { ForeignSessionBase } from '../../../src/core/sources/foreign-session';
import { isInside } from '../../../src/core/sources/workspace-paths';
import { loadSqlJs } from '../../../src/core/catalog/sqljs-loader';
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

const toyHome = () => resolve(process.env.TOY_AGENT_HOME ?? join(process.env.HOME ?? '.', '.toy'));

/** Writes one session as rows of a new database file. */
export async function writeToySession(dir: string, s: ToySessionRows): Promise<string> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE session (id TEXT, cwd TEXT, title TEXT, created TEXT, forked_from TEXT)');
  db.run('CREATE TABLE message (seq INTEGER, id TEXT, parent_id TEXT, role TEXT, text TEXT, at TEXT)');
  db.run('INSERT INTO session VALUES (?, ?, ?, ?, ?)', [s.id, s.cwd, s.title, s.created, s.forkedFrom ?? null]);
  s.messages.forEach((m, i) => db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?, ?)', [i, m.id, m.parentId, m.role, m.text, m.at]));
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${s.id}.toydb`);
  writeFileSync(file, db.export());
  db.close();
  return file;
}

export async function readToySession(file: string): Promise<ToySessionRows> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(await readFile(file));
  try {
    const [session] = db.exec('SELECT id, cwd, title, created, forked_from FROM session');
    const row = session?.values[0];
    if (!row) throw new Error(`${file} holds no toy session`);
    const [messages] = db.exec('SELECT id, parent_id, role, text, at FROM message ORDER BY seq');
    return {
      id: String(row[0]),
      cwd: String(row[1]),
      title: String(row[2]),
      created: String(row[3]),
      ...(row[4] ? { forkedFrom: String(row[4]) } : {}),
      messages: (messages?.values ?? []).map((v) => ({
        id: String(v[0]),
        parentId: v[1] === null ? null : String(v[1]),
        role: v[2] === 'user' ? 'user' : 'assistant',
        text: String(v[3]),
        at: String(v[4]),
      })),
    };
  } finally {
    db.close();
  }
}

class ToySession extends ForeignSessionBase implements ForeignSessionView {
  readonly source = 'toy';
  constructor(
    readonly rows: ToySessionRows,
    file: string,
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
        sessionRef: file,
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
  #files(): string[] {
    try {
      return readdirSync(toyHome())
        .filter((n) => n.endsWith('.toydb'))
        .map((n) => join(toyHome(), n));
    } catch {
      return [];
    }
  }
  async list(ctx: SourceContext): Promise<SessionListing[]> {
    const out: SessionListing[] = [];
    for (const file of this.#files()) {
      const s = await readToySession(file);
      if (!ctx.workspaceRoots.some((r) => isInside(s.cwd, r))) continue;
      out.push({ sessionRef: file, sessionId: s.id, title: s.title, source: 'toy', modifiedMs: statSync(file).mtimeMs, createdAt: s.created, cwd: s.cwd });
    }
    return out;
  }
  watchFolders(): WatchedFolder[] {
    return [{ path: toyHome(), source: 'toy', pattern: '*.toydb' }];
  }
  async findById(id: string): Promise<string[]> {
    return this.#files().filter((f) => f.endsWith(`${id}.toydb`) || f.slice(toyHome().length + 1).startsWith(id));
  }
  owns(file: string): boolean {
    return file.endsWith('.toydb');
  }
  async open(file: string): Promise<SessionView> {
    return new ToySession(await readToySession(file), file);
  }
  /** A fork: a new session whose rows are the messages before the user message, which the person sends again. */
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
  async forget(): Promise<void> {}
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
