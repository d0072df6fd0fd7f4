// Gemini CLI behind the source interface: sessions found under its home by the project root they belong to, read in
// place (never written), hook snapshots tied to their prompts through the hooks' prompt records, and "Rewind to here"
// continued in a new session file Gemini itself resumes (`gemini --resume <id>`).
import { resolve, sep } from 'node:path';
import type { Warn } from '../../branches/records';
import type { AgentMessage } from '../../session/types';
import { contentText } from '../../transcript/transcript';
import type { SessionListing } from '../listings';
import { isSafeSessionId, matchPromptRecords, readPromptRecords } from '../prompt-records';
import { ReadCache } from '../read-cache';
import type { OriginCheckpoint, SessionView } from '../session-view';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import { join } from 'node:path';
import { discoverGeminiSessions, listSessionFiles, looksLikeGeminiSession } from './discovery';
import { geminiHome } from './home';
import { readGeminiSession } from './reader';
import { RECORDS_FOLDER } from './records-folder';
import type { GeminiSession } from './session';

export const AGENT = 'Gemini CLI';
const MAX_CACHED = 16;
/** Forks of forks followed back this far for a copied prompt's snapshot. */
const MAX_FORK_CHAIN = 4;

export class GeminiSource implements SourceAdapter {
  readonly kinds = ['gemini'] as const;
  readonly writable = false;
  readonly #home: string;
  readonly #enabled: boolean;
  readonly #recordsHome: string | undefined;
  readonly #cache = new ReadCache<GeminiSession>(MAX_CACHED);

  /** home: Gemini's `.gemini` folder; recordsHome: the agent-rewind home, where our hooks keep their prompt records. */
  constructor(opts: { home?: string; enabled?: boolean; recordsHome?: string } = {}) {
    this.#home = resolve(opts.home ?? geminiHome());
    this.#enabled = opts.enabled !== false;
    this.#recordsHome = opts.recordsHome;
  }

  get home(): string {
    return this.#home;
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    if (!this.#enabled || ctx.workspaceRoots.length === 0) return [];
    const found = await discoverGeminiSessions({ workspaceRoots: ctx.workspaceRoots, home: this.#home });
    return found.map((l) => ({
      sessionRef: l.sessionFile,
      sessionId: l.sessionId,
      title: l.title,
      source: 'gemini' as const,
      modifiedMs: l.modifiedMs,
      createdAt: l.createdAt,
      cwd: l.cwd,
      ...(l.forkedFromId ? { fork: { originSessionId: l.forkedFromId } } : {}),
    }));
  }

  watchFolders(): WatchedFolder[] {
    if (!this.#enabled) return [];
    return [{ path: join(this.#home, 'tmp'), source: 'gemini' as const, pattern: '*/chats/session-*.{jsonl,json}' }];
  }

  owns(file: string, firstLine: string | undefined): boolean {
    const path = resolve(file);
    if (path.startsWith(join(this.#home, 'tmp') + sep) && /[\\/]chats[\\/]session-[^\\/]*\.jsonl?$/.test(path)) return true;
    return looksLikeGeminiSession(firstLine);
  }

  /** The session's file with its conversation (a resume can leave a stray file with the same id beside it). */
  async findById(id: string): Promise<string[]> {
    const want = id.toLowerCase();
    const listed = await discoverGeminiSessions({ workspaceRoots: [], home: this.#home });
    const exact = listed.filter((l) => l.sessionId.toLowerCase() === want);
    if (exact.length) return exact.map((l) => l.sessionFile);
    const prefixed = listed.filter((l) => l.sessionId.toLowerCase().startsWith(want)).map((l) => l.sessionFile);
    if (prefixed.length) return prefixed;
    // a session whose project root is unknown is not listed: its file name carries the id's first 8 characters
    return (await listSessionFiles(this.#home)).map((f) => f.file).filter((f) => want.length >= 8 && f.includes(`-${want.slice(0, 8)}.`));
  }

  /** Read afresh whenever the file's size or mtime moved (Gemini appends while it runs). */
  async open(file: string): Promise<GeminiSession> {
    return this.#cache.get(file, async (path) => this.#withOriginKeys(this.#withHookRecords(await readGeminiSession(path, { home: this.#home }))));
  }

  /**
   * A fork's copied prompts were snapshotted by its origin's hook, under the origin's session id: the origins (a fork
   * of a fork too, a few deep) are read to tell the engine where to look. Prompts keep their ids in a fork, so a copied
   * prompt is one its origin has. An origin that is gone leaves the fork as it is.
   */
  async #withOriginKeys(session: GeminiSession): Promise<GeminiSession> {
    const keys = new Map<string, OriginCheckpoint[]>();
    const seen = new Set([session.sessionId]);
    let originId = session.forkedFrom?.sessionId;
    for (let depth = 0; originId && !seen.has(originId) && depth < MAX_FORK_CHAIN; depth++) {
      seen.add(originId);
      const file = (await this.findById(originId).catch(() => [] as string[]))[0];
      if (!file) break;
      let origin: GeminiSession;
      try {
        origin = this.#withHookRecords(await readGeminiSession(file, { home: this.#home }));
      } catch {
        break;
      }
      if (origin.sessionId !== originId) break;
      for (const p of session.userPrompts()) {
        if (!origin.promptOf(p.entryId)) continue;
        const chain = keys.get(p.entryId) ?? [];
        chain.push({ sessionId: originId, keys: origin.checkpointKeysOf(p.entryId) });
        keys.set(p.entryId, chain);
      }
      originId = origin.forkedFrom?.sessionId;
    }
    if (keys.size) session.useOriginKeys(keys);
    return session;
  }

  #withHookRecords(session: GeminiSession): GeminiSession {
    if (!this.#recordsHome || !isSafeSessionId(session.sessionId)) return session;
    try {
      const records = readPromptRecords(this.#recordsHome, RECORDS_FOLDER, session.sessionId);
      if (records.length) session.useMatchedKeys(matchPromptRecords(session.userPrompts(), records));
    } catch {
      // unreadable records: the session is shown without hook snapshots
    }
    return session;
  }

  /** Gemini's session stays as it is: a new session file holds the conversation up to just before the message, which
   *  `gemini --resume <id>` continues; the message's text is handed back to be sent again. */
  async rewindConversation(view: SessionView, userEntryId: string, _warn: Warn): Promise<ConversationRewind> {
    const session = view as GeminiSession;
    const { writeGeminiFork } = await import('./fork');
    const { sessionId, sessionFile } = await writeGeminiFork(session, userEntryId);
    const entry = session.getEntry(userEntryId);
    const promptText = entry?.type === 'message' ? contentText((entry.message as AgentMessage).content) : '';
    return { kind: 'fork', sessionId, sessionRef: sessionFile, agent: AGENT, resumeCommand: ['gemini', '--resume', sessionId], promptText };
  }

  forkNote(view: SessionView, userEntryId: string): { agent: string; resumeHint: string } | { error: string } {
    const session = view as GeminiSession;
    if (session.legacyJson)
      return { error: `This ${AGENT} session is in the old .json layout, which the current ${AGENT} does not resume. The files can still be rewound.` };
    if (!session.promptOf(userEntryId)) return { error: `This is not a prompt of the ${AGENT} session. The files can still be rewound.` };
    const before = view.getPath(userEntryId).slice(0, -1);
    if (!before.some((e) => e.type === 'message')) {
      return {
        error: `This is the first message of the ${AGENT} session: there is no conversation before it to continue (start a new one with \`gemini\`). The files can still be rewound.`,
      };
    }
    return { agent: AGENT, resumeHint: 'gemini --resume <the new session id>' };
  }

  async forget(file: string): Promise<void> {
    this.#cache.forget(file);
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
  }
}
