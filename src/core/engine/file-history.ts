// `history` and `blame` of a file (issue 27, items 4 and 5) for every front-end: the folder's file checkpoints compute
// them from the timeline; here each prompt is named as the user knows it, by its session and its user message id (the
// id `tree` and `rewind-files` take), which for another agent's prompt is found by reading its session.
import type { ChangeOwner, FileBlame, FileCheckpoints, FileHistory } from '../files/types';
import type { SessionListing } from '../sources/listings';
import { snapshotsByEntry } from '../sources/file-anchors';
import type { SessionView } from '../sources/session-view';

/** A change's owner with its prompt named: `messageId` (the user message id), `sessionRef` and `agent`, where found. */
export type NamedOwner = ChangeOwner & { messageId?: string; sessionRef?: string; agent?: string };

export interface NamedHistory extends Omit<FileHistory, 'entries'> {
  entries: (Omit<FileHistory['entries'][number], 'owner'> & { owner: NamedOwner })[];
}
export interface NamedBlame extends Omit<FileBlame, 'lines'> {
  lines: (Omit<FileBlame['lines'][number], 'owner'> & { owner: NamedOwner })[];
}

export interface PromptNamingContext {
  checkpoints: FileCheckpoints;
  listSessions(): Promise<SessionListing[]>;
  view(sessionRef: string): Promise<SessionView>;
}

/** Names every turn owner among `owners`: its session's file and agent, and the user message its prompt anchor is. */
async function namer(ctx: PromptNamingContext, owners: readonly ChangeOwner[]): Promise<(o: ChangeOwner) => NamedOwner> {
  const sessions = new Set(owners.flatMap((o) => (o.by === 'turn' ? [o.sessionId] : [])));
  const bySession = new Map<string, { listing: SessionListing; messageOf: Map<string, string> }>();
  if (sessions.size > 0) {
    const listings = await ctx.listSessions().catch(() => [] as SessionListing[]);
    for (const listing of listings) {
      if (!sessions.has(listing.sessionId) || bySession.has(listing.sessionId)) continue;
      const messageOf = new Map<string, string>();
      try {
        const view = await ctx.view(listing.sessionRef);
        for (const [entryId, rec] of await snapshotsByEntry(view, ctx.checkpoints)) messageOf.set(rec.anchorId, entryId);
      } catch {
        /* unreadable now: the prompt keeps its anchor */
      }
      bySession.set(listing.sessionId, { listing, messageOf });
    }
  }
  return (o) => {
    if (o.by !== 'turn') return o;
    const found = bySession.get(o.sessionId);
    if (!found) return o;
    const messageId = found.messageOf.get(o.prompt);
    return { ...o, ...(messageId ? { messageId } : {}), sessionRef: found.listing.sessionRef, agent: found.listing.source };
  };
}

export async function namedHistory(ctx: PromptNamingContext, relPath: string): Promise<NamedHistory> {
  const h = await ctx.checkpoints.fileHistory(relPath);
  const name = await namer(
    ctx,
    h.entries.map((e) => e.owner),
  );
  return { ...h, entries: h.entries.map((e) => ({ ...e, owner: name(e.owner) })) };
}

export async function namedBlame(ctx: PromptNamingContext, relPath: string): Promise<NamedBlame> {
  const b = await ctx.checkpoints.blame(relPath);
  const name = await namer(
    ctx,
    b.lines.map((l) => l.owner),
  );
  return { ...b, lines: b.lines.map((l) => ({ ...l, owner: name(l.owner) })) };
}
