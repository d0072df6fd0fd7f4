// Claude Code behind the source interface: transcripts found under each Claude config folder by the cwd their lines
// name, read in place (never written), and "Rewind to here" continued in a fork file Claude Code itself resumes.
import { ReadCache } from '../read-cache';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Warn } from '../../branches/records';
import type { SessionListing } from '../listings';
import { contentText } from '../../transcript/transcript';
import type { AgentMessage } from '../../session/types';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import type { OriginCheckpoint, SessionView } from '../session-view';
import { claudeConfigDirs, discoverClaudeSessions, looksLikeClaudeTranscript } from './discovery';
import { writeClaudeFork } from './fork';
import { isSafeSessionId, matchPromptRecords, promptRecordsFile, readPromptRecords, type PromptRecord } from './prompt-records';
import { readClaudeSession } from './reader';
import { filesWrittenByToolCalls } from '../tool-call-writes';
import type { ClaudeSession } from './session';

const AGENT = 'Claude Code';
const MAX_CACHED = 16;
/** Forks of forks followed back this far for a copied prompt's snapshot. */
const MAX_FORK_CHAIN = 4;

export class ClaudeSource implements SourceAdapter {
  readonly kinds = ['claude'] as const;
  readonly writable = false;
  readonly #configDirs: readonly string[];
  readonly #enabled: boolean;
  readonly #cache = new ReadCache<ClaudeSession>(MAX_CACHED);
  /**
   * What forks need of each origin read for them: every prompt's snapshot keys, its own origins' included, with the
   * origin's stamp. A fork is read again on every line Claude Code appends, its origin seldom changes, and reading a
   * long transcript costs hundreds of ms. Kept once computed, never shared while being computed: forks can name each
   * other in a cycle, and two reads waiting on each other would wait forever.
   */
  readonly #originKeys = new Map<string, { stamp: string; keys: ReadonlyMap<string, readonly OriginCheckpoint[]> }>();

  readonly #home: string | undefined;

  /** home: where our hooks keep their prompt records (they tie a snapshot to its prompt when no prompt id does). */
  constructor(opts: { configDirs?: readonly string[]; enabled?: boolean; home?: string } = {}) {
    this.#configDirs = (opts.configDirs ?? claudeConfigDirs()).map((d) => resolve(d));
    this.#enabled = opts.enabled !== false;
    this.#home = opts.home;
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    if (!this.#enabled || ctx.workspaceRoots.length === 0) return [];
    const found = await discoverClaudeSessions({ workspaceRoots: ctx.workspaceRoots, configDirs: this.#configDirs });
    return found.map((l) => ({
      sessionRef: l.sessionRef,
      sessionId: l.sessionId,
      title: l.title,
      source: 'claude' as const,
      modifiedMs: l.modifiedMs,
      createdAt: l.createdAt,
      cwd: l.cwd,
      ...(l.fork ? { fork: l.fork } : {}),
    }));
  }

  watchFolders(): WatchedFolder[] {
    if (!this.#enabled) return [];
    return this.#configDirs.map((dir) => ({ path: join(dir, 'projects'), source: 'claude' as const, pattern: '*/*.jsonl' }));
  }

  owns(file: string, firstLine: string | undefined): boolean {
    const path = resolve(file);
    if (this.#configDirs.some((d) => path.startsWith(join(d, 'projects') + sep))) return true;
    return firstLine !== undefined && looksLikeClaudeTranscript([firstLine]);
  }

  async findById(id: string): Promise<string[]> {
    const exact: string[] = [];
    const prefixed: string[] = [];
    for (const dir of this.#configDirs) {
      const projects = join(dir, 'projects');
      for (const project of await readdir(projects).catch(() => [] as string[])) {
        for (const name of await readdir(join(projects, project)).catch(() => [] as string[])) {
          if (!name.endsWith('.jsonl') || name.startsWith('agent-')) continue;
          const sessionId = name.slice(0, -'.jsonl'.length);
          if (sessionId === id) exact.push(join(projects, project, name));
          else if (sessionId.startsWith(id)) prefixed.push(join(projects, project, name));
        }
      }
    }
    return exact.length ? exact : prefixed;
  }

  /** Read afresh whenever the file's size or mtime moved (Claude Code appends while it runs). */
  async open(file: string): Promise<ClaudeSession> {
    return this.#cache.get(resolve(file), (path) => {
      const configDir = this.#configDirs.find((d) => path.startsWith(join(d, 'projects') + sep));
      return readClaudeSession(path, configDir ? { configDir } : {})
        .then((s) => this.#withHookRecords(s))
        .then((s) => this.#withOriginKeys(s, configDir, new Set([path])));
    });
  }

  /**
   * A fork's copied prompts were snapshotted by the origin's hook, under the origin's session id and its prompt ids
   * (a --fork-session gives the copies new ones): read the origin (and its own origin, up to a few) to tell the engine
   * where to look. An origin that is gone or unreadable leaves the fork as it was.
   */
  async #withOriginKeys(session: ClaudeSession, configDir: string | undefined, seen: ReadonlySet<string>): Promise<ClaudeSession> {
    const from = session.forkedFrom;
    const file = from?.sessionRef && resolve(from.sessionRef);
    if (!from || !file || seen.has(file) || seen.size > MAX_FORK_CHAIN) return session;
    const copied = session.userPrompts().filter((p) => session.isInherited(p.entryId));
    if (copied.length === 0) return session;
    let originKeys: ReadonlyMap<string, readonly OriginCheckpoint[]> | undefined;
    try {
      originKeys = await this.#originKeysOf(file, from.sessionId, configDir, seen);
    } catch {
      return session;
    }
    if (!originKeys) return session;
    const keys = new Map<string, readonly OriginCheckpoint[]>();
    for (const p of copied) {
      const chain = originKeys.get(p.entryId);
      if (chain) keys.set(p.entryId, chain);
    }
    session.useOriginKeys(keys);
    return session;
  }

  /** Each prompt of the origin `file` → where its snapshot may be (nearest session first); undefined when the file is
   *  not that session. From #originKeys while the origin and its prompt records are unchanged. */
  async #originKeysOf(
    file: string,
    sessionId: string,
    configDir: string | undefined,
    seen: ReadonlySet<string>,
  ): Promise<ReadonlyMap<string, readonly OriginCheckpoint[]> | undefined> {
    const stamp = await this.#stampOf(file, sessionId);
    const hit = this.#originKeys.get(file);
    this.#originKeys.delete(file);
    if (hit?.stamp === stamp) {
      this.#originKeys.set(file, hit);
      return hit.keys;
    }
    let origin = this.#withHookRecords(await readClaudeSession(file, { ...(configDir ? { configDir } : {}), subagents: false }));
    if (origin.sessionId !== sessionId) return undefined;
    origin = await this.#withOriginKeys(origin, configDir, new Set([...seen, file]));
    const keys = new Map<string, readonly OriginCheckpoint[]>();
    for (const p of origin.userPrompts()) {
      const chain = [{ sessionId: origin.sessionId, keys: origin.checkpointKeysOf(p.entryId) }, ...origin.originCheckpointsOf(p.entryId)].filter(
        (c) => c.keys.length > 0,
      );
      if (chain.length) keys.set(p.entryId, chain);
    }
    this.#originKeys.set(file, { stamp, keys });
    for (const old of [...this.#originKeys.keys()].slice(0, Math.max(0, this.#originKeys.size - MAX_CACHED))) this.#originKeys.delete(old);
    return keys;
  }

  /** What an origin's keys depend on: its transcript and its hook prompt records, by size and mtime. */
  async #stampOf(file: string, sessionId: string): Promise<string> {
    const of = async (path: string | undefined) => {
      const st = path ? await stat(path).catch(() => undefined) : undefined;
      return st ? `${st.size}:${st.mtimeMs}` : '-';
    };
    const records = this.#home && isSafeSessionId(sessionId) ? promptRecordsFile(this.#home, sessionId) : undefined;
    return `${await of(file)}|${await of(records)}`;
  }

  #withHookRecords(session: ClaudeSession): ClaudeSession {
    if (!this.#home || !isSafeSessionId(session.sessionId)) return session;
    let records: PromptRecord[];
    try {
      records = readPromptRecords(this.#home, session.sessionId);
    } catch {
      return session; // no records (hooks not installed) or unreadable: prompt ids alone then
    }
    if (records.length) session.useMatchedKeys(matchPromptRecords(session.userPrompts(), records));
    return session;
  }

  /** Claude Code's own transcript stays as it is: a new one beside it holds the conversation up to just before the
   *  message, which `claude --resume <id>` continues; the message's text is handed back to be sent again. */
  /** The files its Write, Edit, MultiEdit and NotebookEdit calls wrote, by the prompt whose turn made them. */
  async filesWrittenByTurn(view: SessionView): Promise<ReadonlyMap<string, readonly string[]>> {
    return filesWrittenByToolCalls(view, claudeWrittenPaths);
  }

  async rewindConversation(view: SessionView, userEntryId: string, _warn: Warn): Promise<ConversationRewind> {
    const session = view as ClaudeSession;
    const { sessionId, sessionRef } = await writeClaudeFork(session, userEntryId);
    const entry = session.getEntry(userEntryId);
    const promptText = entry?.type === 'message' ? contentText((entry.message as AgentMessage).content) : '';
    return { kind: 'fork', sessionId, sessionRef, agent: AGENT, resumeCommand: ['claude', '--resume', sessionId], promptText };
  }

  forkNote(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } {
    const before = view.getPath(userEntryId).slice(0, -1);
    if (!before.some((e) => e.type === 'message')) {
      return {
        error: `This is the first message of the ${AGENT} session: there is no conversation before it to continue (start a new one with \`claude\`). The files can still be rewound.`,
      };
    }
    return { agent: AGENT, resumeHint: 'claude --resume <the new session id>' };
  }

  async forget(file: string): Promise<void> {
    this.#cache.forget(resolve(file));
    this.#originKeys.delete(resolve(file));
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
    this.#originKeys.clear();
  }
}

/** Claude Code's file tools and the argument naming the file each writes. */
const CLAUDE_FILE_TOOLS: Readonly<Record<string, string>> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

function claudeWrittenPaths(name: string, args: Record<string, unknown>): string[] {
  const key = CLAUDE_FILE_TOOLS[name];
  const path = key === undefined ? undefined : args[key];
  return typeof path === 'string' && path !== '' ? [path] : [];
}
