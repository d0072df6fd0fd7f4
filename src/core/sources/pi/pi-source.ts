// Ours, pi's and oh-my-pi's sessions: the same JSONL tree format (docs/ARCHITECTURE.md, session files), one file per session under
// <root>/--<encoded cwd>--/. These are the only sessions agent-rewind writes to.
import { readdir } from 'node:fs/promises';
import { openRegularFile } from '../../agent-files';
import { join } from 'node:path';
import { SessionCache } from './session-cache';
import { sessionFoldersFor, sourceOfPath } from './session-folders';
import type { SessionListing } from '../listings';
import { isTitleWorthyPrompt, isUserMessage, oneLine, previewOf } from '../../transcript/transcript';
import { readSessionSummary } from './discovery';
import { parseJsonlLenient } from '../../session/jsonl';
import type { SessionManager } from '../../session/session-manager';
import type { SessionEntry } from '../../session/types';
import type { ConversationRewind, SourceAdapter, SourceContext, WatchedFolder } from '../source-adapter';
import type { SessionView } from '../session-view';
import { Conversation } from '../../branches/conversation';
import type { Warn } from '../../branches/records';

export class PiSource implements SourceAdapter {
  readonly kinds = ['agent-rewind', 'pi', 'omp'] as const;
  readonly writable = true;
  readonly #cache: SessionCache;

  constructor(home: string) {
    this.#cache = new SessionCache(home);
  }

  watchFolders(ctx: SourceContext): WatchedFolder[] {
    return sessionFoldersFor(ctx.settings, ctx.workspaceRoots);
  }

  kindOf(file: string): string {
    return sourceOfPath(file);
  }

  /** A pi-format file starts with its session header (newer oh-my-pi files with a title line first). */
  owns(_file: string, firstLine: string | undefined): boolean {
    return firstLine === undefined || /^\s*\{.*"type"\s*:\s*"(session|title)"/.test(firstLine);
  }

  async list(ctx: SourceContext): Promise<SessionListing[]> {
    const listings: SessionListing[] = [];
    for (const folder of this.watchFolders(ctx)) {
      const names = await readdir(folder.path).catch(() => [] as string[]);
      for (const name of names) {
        if (!name.endsWith('.jsonl')) continue;
        const file = join(folder.path, name);
        try {
          const summary = await readSessionSummary(file, folder.source, { countEntries: false });
          if (!summary) continue;
          const title = summary.title?.trim() ? oneLine(summary.title) : ((await firstUserMessagePreview(file)) ?? 'Untitled session');
          listings.push({
            sessionRef: file,
            sessionId: summary.id,
            title: summary.problem ? `${title} (${summary.problem})` : title,
            source: summary.source,
            modifiedMs: Date.parse(summary.modified),
            createdAt: summary.created,
          });
        } catch (error) {
          ctx.warn(`Cannot list session ${file}: ${(error as Error).message}`);
        }
      }
    }
    return listings;
  }

  open(file: string): Promise<SessionManager> {
    return this.#cache.get(file);
  }

  /** A new branch in the same file whose head is the message; the old branch stays (docs/ARCHITECTURE.md, branches and checkpoints). */
  async rewindConversation(view: SessionView, userEntryId: string, warn: Warn): Promise<ConversationRewind> {
    const branch = await new Conversation(view as SessionManager, { warn }).rewind(userEntryId);
    return { kind: 'branch', branch };
  }

  forget(file: string): Promise<void> {
    return this.#cache.evict(file);
  }

  dispose(): Promise<void> {
    return this.#cache.dispose();
  }
}

const TITLE_PREFIX_BYTES = 16 * 1024;

/** A title for a session without one: its first user message, from the start of the file only. */
async function firstUserMessagePreview(file: string): Promise<string | undefined> {
  const handle = await openRegularFile(file);
  try {
    const buf = Buffer.alloc(TITLE_PREFIX_BYTES);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const complete = bytesRead < buf.length ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    const records = parseJsonlLenient(complete).records.map((r) => r.value as SessionEntry);
    const first = records.find((e) => isTitleWorthyPrompt(e)) ?? records.find((e) => isUserMessage(e));
    return first ? previewOf(first) : undefined;
  } finally {
    await handle.close();
  }
}
