// OpenCode behind the source interface: its sessions are rows of one database (and files of the older JSON tree), so
// a session is named by the ref `<data folder>/opencode.db#<session id>`, and the change signal is the adapter's:
// watch opencode.db* and storage/, every session of the folder may have changed, and a session's stamp moves with its
// rows (store.ts). Read in place, never written; "Rewind to here" continues in OpenCode's own fork (fork.ts), which
// names no origin, so the fork is linked to its origin through our own record of it (fork-records.ts).
import { basename, dirname, resolve } from 'node:path';
import type { Warn } from '../../branches/records';
import type { AgentMessage } from '../../session/types';
import { contentText } from '../../transcript/transcript';
import type { SessionListing } from '../listings';
import { ReadCache } from '../read-cache';
import type { SessionRef, SessionStamp } from '../session-ref';
import type { SessionView } from '../session-view';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import { isInside } from '../workspace-paths';
import { forkOpenCodeSession, openCodeCommand } from './fork';
import { OpenCodeForkRecords } from './fork-records';
import { openCodeDataDir, storageDirOf } from './paths';
import { OC_ID } from './rows';
import type { OpenCodeSession } from './session';
import { OpenCodeStore } from './store';

const AGENT = 'OpenCode';
const MAX_CACHED = 16;

export class OpenCodeSource implements SourceAdapter {
  readonly kinds = ['opencode'] as const;
  readonly writable = false;
  readonly #enabled: boolean;
  readonly #store: OpenCodeStore;
  readonly #cache = new ReadCache<OpenCodeSession>(MAX_CACHED, (ref) => this.stamp(ref));
  readonly #command: readonly string[];
  readonly #forks: OpenCodeForkRecords | undefined;

  /** recordsHome: the agent-rewind home, where the forks "Rewind to here" made are recorded (none: not recorded). */
  constructor(opts: { dataDir?: string; enabled?: boolean; command?: readonly string[]; recordsHome?: string } = {}) {
    this.#store = new OpenCodeStore(resolve(opts.dataDir ?? openCodeDataDir()));
    this.#enabled = opts.enabled !== false;
    this.#command = opts.command ?? openCodeCommand();
    this.#forks = opts.recordsHome ? new OpenCodeForkRecords(opts.recordsHome) : undefined;
  }

  /** The session a fork came from: our record of a fork we made, else its parent_id. */
  #originOf(s: { id: string; parentId?: string }): string | undefined {
    return this.#forks?.of(s.id)?.originSessionId ?? s.parentId;
  }

  get dataDir(): string {
    return this.#store.dataDir;
  }

  refOf(sessionId: string): SessionRef {
    return `${this.#store.dbPath}#${sessionId}`;
  }

  /** The session id a ref of this folder names; undefined for any other ref. */
  idOf(ref: SessionRef): string | undefined {
    const prefix = `${this.#store.dbPath}#`;
    const id = ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
    return id !== undefined && OC_ID.test(id) ? id : undefined;
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    if (!this.#enabled || ctx.workspaceRoots.length === 0) return [];
    const sessions = await this.#store.list(ctx.warn);
    return sessions
      .filter((s) => ctx.workspaceRoots.some((r) => isInside(s.directory, r)))
      .map((s) => {
        const origin = this.#originOf(s);
        return {
          sessionRef: this.refOf(s.id),
          sessionId: s.id,
          title: s.title || s.id,
          source: 'opencode' as const,
          modifiedMs: s.updatedMs,
          createdAt: new Date(s.createdMs).toISOString(),
          cwd: s.directory,
          ...(origin ? { fork: { originSessionId: origin } } : {}),
        };
      });
  }

  watchFolders(): WatchedFolder[] {
    if (!this.#enabled) return [];
    return [
      { path: this.dataDir, source: 'opencode', pattern: 'opencode.db*' },
      { path: storageDirOf(this.dataDir), source: 'opencode', pattern: '**/*.json' },
    ];
  }

  /** Any change of the database (or the JSON tree) may concern any of its sessions; their stamps tell which did. */
  async refsOfChange(): Promise<SessionRef[]> {
    if (!this.#enabled) return [];
    return (await this.#store.list(() => undefined)).map((s) => this.refOf(s.id));
  }

  async stamp(ref: SessionRef): Promise<SessionStamp | undefined> {
    const id = this.idOf(ref);
    const stamp = id ? await this.#store.stamp(id) : undefined;
    // a fork recorded after its view was read (the database changed first) is read again with its origin
    const recorded = id && stamp !== undefined ? this.#forks?.of(id) : undefined;
    return recorded ? `${stamp}|fork:${recorded.originSessionId}` : stamp;
  }

  fileOf(): string {
    return this.#store.dbPath;
  }

  async findById(id: string): Promise<SessionRef[]> {
    const ids = (await this.#store.list(() => undefined)).map((s) => s.id);
    const exact = ids.filter((s) => s === id);
    return (exact.length ? exact : ids.filter((s) => s.startsWith(id))).map((s) => this.refOf(s));
  }

  owns(ref: SessionRef): boolean {
    return this.idOf(ref) !== undefined;
  }

  async open(ref: SessionRef): Promise<OpenCodeSession> {
    const id = this.idOf(ref);
    if (!id) throw new Error(`${ref} is not an OpenCode session of ${this.dataDir}`);
    return this.#cache.get(ref, async () => {
      const recorded = this.#forks?.of(id);
      const forkedFrom = recorded ? { sessionId: recorded.originSessionId, sessionRef: this.refOf(recorded.originSessionId) } : undefined;
      const view = await this.#store.read(id, ref, forkedFrom);
      if (!view) throw new Error(`OpenCode session ${id} was not found in ${this.dataDir}`);
      return view;
    });
  }

  /** OpenCode's own fork at the message (its server API), which `opencode run --session <id>` continues; the
   *  message's text is handed back to be sent again. */
  async rewindConversation(view: SessionView, userEntryId: string, warn: Warn): Promise<ConversationRewind> {
    const session = view as OpenCodeSession;
    const note = this.forkNote(view, userEntryId);
    if ('error' in note) throw new Error(note.error);
    const env = basename(this.dataDir) === 'opencode' ? { ...process.env, XDG_DATA_HOME: dirname(this.dataDir) } : process.env;
    const sessionId = await forkOpenCodeSession(session.sessionId, userEntryId, { command: this.#command, cwd: session.cwd, env });
    try {
      this.#forks?.add({ v: 1, sessionId, originSessionId: session.sessionId, atMessageId: userEntryId, at: new Date().toISOString() });
    } catch (err) {
      warn(
        `The new ${AGENT} session ${sessionId} was made but could not be recorded as a fork of ${session.sessionId} (${(err as Error).message}): it is listed on its own.`,
      );
    }
    const entry = session.getEntry(userEntryId);
    const promptText = entry?.type === 'message' ? contentText((entry.message as AgentMessage).content) : '';
    return { kind: 'fork', sessionId, sessionRef: this.refOf(sessionId), agent: AGENT, resumeCommand: ['opencode', '--session', sessionId], promptText };
  }

  forkNote(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } {
    const session = view as OpenCodeSession;
    if (!session.promptOf(userEntryId)) return { error: `This is not a prompt of the ${AGENT} session. The files can still be rewound.` };
    if (session.userPrompts()[0]?.entryId === userEntryId)
      return {
        error: `This is the first message of the ${AGENT} session: there is no conversation before it to continue (start a new one with \`opencode\`). The files can still be rewound.`,
      };
    return { agent: AGENT, resumeHint: 'opencode --session <the new session id>' };
  }

  async forget(ref: SessionRef): Promise<void> {
    this.#cache.forget(ref);
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
    this.#store.dispose();
  }
}
