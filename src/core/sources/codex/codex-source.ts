// Codex behind the source interface: rollouts found under $CODEX_HOME by the cwd they name, read in place (never
// written), and "Rewind to here" continued in a fork rollout Codex itself resumes (`codex resume <id>`).
import { ReadCache } from '../read-cache';
import { stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Warn } from '../../branches/records';
import type { SessionListing } from '../listings';
import { contentText } from '../../transcript/transcript';
import type { AgentMessage } from '../../session/types';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import type { SessionView } from '../session-view';
import { codexHome, discoverCodexSessions, listRolloutFiles, looksLikeCodexRollout, newestSegments, threadIdFromName } from './discovery';
import { writeCodexFork } from './fork';
import { codexWrittenPaths } from './patch-writes';
import { readCodexSession } from './reader';
import type { CodexSession } from './session';
import { filesWrittenByToolCalls } from '../tool-call-writes';

const AGENT = 'Codex';
const MAX_CACHED = 16;

export class CodexSource implements SourceAdapter {
  readonly kinds = ['codex'] as const;
  readonly writable = false;
  readonly #home: string;
  readonly #enabled: boolean;
  readonly #cache = new ReadCache<CodexSession>(MAX_CACHED);

  constructor(opts: { home?: string; enabled?: boolean } = {}) {
    this.#home = resolve(opts.home ?? codexHome());
    this.#enabled = opts.enabled !== false;
  }

  get home(): string {
    return this.#home;
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    if (!this.#enabled || ctx.workspaceRoots.length === 0) return [];
    const found = await discoverCodexSessions({ workspaceRoots: ctx.workspaceRoots, home: this.#home });
    return found.map((l) => ({
      sessionRef: l.sessionRef,
      sessionId: l.sessionId,
      title: l.title,
      source: 'codex' as const,
      modifiedMs: l.modifiedMs,
      createdAt: l.createdAt,
      cwd: l.cwd,
      ...(l.forkedFromId ? { fork: { originSessionId: l.forkedFromId } } : {}),
    }));
  }

  watchFolders(): WatchedFolder[] {
    if (!this.#enabled) return [];
    return [
      { path: join(this.#home, 'sessions'), source: 'codex' as const, pattern: '**/rollout-*.jsonl' },
      { path: join(this.#home, 'archived_sessions'), source: 'codex' as const, pattern: '**/rollout-*.jsonl' },
    ];
  }

  owns(file: string, firstLine: string | undefined): boolean {
    const path = resolve(file);
    if ([join(this.#home, 'sessions'), join(this.#home, 'archived_sessions')].some((d) => path.startsWith(d + sep))) return true;
    return looksLikeCodexRollout(firstLine);
  }

  /** The newest segment of each thread whose id is `id` (else starts with it). */
  async findById(id: string): Promise<string[]> {
    const want = id.toLowerCase();
    const files = (await listRolloutFiles(this.#home)).filter((f) => threadIdFromName(f)?.startsWith(want));
    const withTimes = await Promise.all(files.map(async (file) => ({ file, mtimeMs: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })));
    const newest = newestSegments(withTimes).map((f) => f.file);
    const exact = newest.filter((f) => threadIdFromName(f) === want);
    return exact.length ? exact : newest.filter((f) => threadIdFromName(f)?.startsWith(want));
  }

  /** Read afresh whenever the file's size or mtime moved (Codex appends while it runs, and on resume). */
  async open(file: string): Promise<CodexSession> {
    return this.#cache.get(resolve(file), (path) => readCodexSession(path, { home: this.#home }));
  }

  /** The rollout stays as it is: a new one holds the conversation up to just before the message, which
   *  `codex resume <id>` continues; the message's text is handed back to be sent again. */
  async rewindConversation(view: SessionView, userEntryId: string, _warn: Warn): Promise<ConversationRewind> {
    const session = view as CodexSession;
    const { sessionId, sessionRef } = await writeCodexFork(session, userEntryId, { home: this.#home });
    const entry = session.getEntry(userEntryId);
    const promptText = entry?.type === 'message' ? contentText((entry.message as AgentMessage).content) : '';
    return { kind: 'fork', sessionId, sessionRef, agent: AGENT, resumeCommand: ['codex', 'resume', sessionId], promptText };
  }

  /** The files its apply_patch calls wrote (added, updated, deleted, moved to), by the prompt whose turn made them. */
  async filesWrittenByTurn(view: SessionView): Promise<ReadonlyMap<string, readonly string[]>> {
    return filesWrittenByToolCalls(view, codexWrittenPaths);
  }

  forkNote(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } {
    const session = view as CodexSession;
    const prompt = session.promptOf?.(userEntryId);
    if (prompt && prompt.prefix.startsWith('ref'))
      return { error: `This message belongs to the ${AGENT} session this one continues: rewind it there. The files can still be rewound.` };
    const before = view.getPath(userEntryId).slice(0, -1);
    if (!before.some((e) => e.type === 'message')) {
      return {
        error: `This is the first message of the ${AGENT} session: there is no conversation before it to continue (start a new one with \`codex\`). The files can still be rewound.`,
      };
    }
    return { agent: AGENT, resumeHint: 'codex resume <the new session id>' };
  }

  async forget(file: string): Promise<void> {
    this.#cache.forget(resolve(file));
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
  }
}
