// A snapshot's prompt as the user knows it (issue 27, items 5 and 6): the folder's timeline and blame name a prompt by
// its session id and snapshot anchor; the editor shows its agent, its session's title, its text and when it was sent,
// and opens it by the session's ref and the user message id (the id `tree` and `rewind-files` take). For another
// agent's session the anchor is not the message id (Claude Code's prompt id, Codex's turn id): its session is read
// and its snapshots matched to its messages (file-anchors.ts).
import type { FileCheckpoints } from '../files/types';
import { snapshotsByEntry } from '../sources/file-anchors';
import type { SessionListing } from '../sources/listings';
import type { SessionView } from '../sources/session-view';
import { previewOf } from '../transcript/transcript';

export interface PromptNamingSources {
  listSessions(): Promise<SessionListing[]>;
  view(sessionRef: string): Promise<SessionView>;
}

/** A session of the folder as a front-end names it. */
export interface NamedSession {
  sessionRef: string;
  /** Its kind (`SessionListing.source`): the registry gives its agent's name and icon. */
  source: string;
  title: string;
}

/** A prompt as a front-end shows it: the user message it is, its one-line text and when it was sent. */
export interface NamedPrompt {
  messageId: string;
  text: string;
  sentAt?: string;
}

export interface PromptNames {
  session(sessionId: string): NamedSession | undefined;
  /** The user message whose snapshot is `anchorId` in that session, when its session was read and has it. */
  prompt(sessionId: string, anchorId: string): NamedPrompt | undefined;
  /** The user message `messageId` of a session (an id a NamedOwner already carries). */
  message(sessionRef: string, messageId: string): NamedPrompt | undefined;
}

interface ReadSession {
  named: NamedSession;
  view?: SessionView;
  messageOf: Map<string, string>;
}

/** A user message of a session as a front-end shows it (on any branch, a branch a rewind left included). */
export function promptOf(view: SessionView | undefined, messageId: string): NamedPrompt | undefined {
  const entry = view?.getEntry(messageId);
  if (!entry) return undefined;
  return { messageId, text: previewOf(entry), ...(entry.timestamp ? { sentAt: entry.timestamp } : {}) };
}

/**
 * Reads the sessions `sessionIds` (those listed in the folder) once, for naming their prompts. A session that cannot
 * be read keeps its listing's name; its prompts stay unnamed (never a guess).
 */
export async function namePrompts(
  src: PromptNamingSources,
  checkpoints: Pick<FileCheckpoints, 'listSnapshots'> | undefined,
  sessionIds: Iterable<string>,
): Promise<PromptNames> {
  const wanted = new Set(sessionIds);
  const byId = new Map<string, ReadSession>();
  const byRef = new Map<string, ReadSession>();
  if (wanted.size > 0) {
    const listings = await src.listSessions().catch(() => [] as SessionListing[]);
    for (const listing of listings) {
      if (!wanted.has(listing.sessionId) || byId.has(listing.sessionId)) continue;
      const read: ReadSession = { named: { sessionRef: listing.sessionRef, source: listing.source, title: listing.title }, messageOf: new Map() };
      try {
        read.view = await src.view(listing.sessionRef);
        if (checkpoints) for (const [entryId, rec] of await snapshotsByEntry(read.view, checkpoints)) read.messageOf.set(rec.anchorId, entryId);
      } catch {
        /* unreadable now: named by its listing only */
      }
      byId.set(listing.sessionId, read);
      byRef.set(listing.sessionRef, read);
    }
  }
  return {
    session: (sessionId) => byId.get(sessionId)?.named,
    prompt: (sessionId, anchorId) => {
      const read = byId.get(sessionId);
      const messageId = read?.messageOf.get(anchorId);
      return messageId === undefined ? undefined : promptOf(read?.view, messageId);
    },
    message: (sessionRef, messageId) => promptOf(byRef.get(sessionRef)?.view, messageId),
  };
}
