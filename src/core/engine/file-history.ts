// `history` and `blame` of a file (issue 27, items 4 and 5) for every front-end: the folder's file checkpoints compute
// them from the timeline; here each prompt is named as the user knows it, by its session and its user message id (the
// id `tree` and `rewind-files` take), which for another agent's prompt is found by reading its session. A change the
// timeline gives to nobody right after a turn's end is asked of that turn's agent's records (turn-writes.ts), as a
// rewind's attribution asks them, so history, blame and the rewind name the same author.
import type { ChangeOwner, Claimable, FileBlame, FileCheckpoints, FileHistory, TurnRef, TurnWrites } from '../files/types';
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
  /** What the records of these turns say their tools wrote (turn-writes.ts, writesOfTurns). */
  turnWrites(turns: readonly TurnRef[]): Promise<TurnWrites[]>;
}

/** The checkpoints' answer, asked again with the claims of its `claimable` turns when their records claim a file:
 *  nothing more is read when every change has its owner. */
async function withClaims<T extends Claimable>(ctx: PromptNamingContext, ask: (turnWrites?: TurnWrites[]) => Promise<T>): Promise<T> {
  const first = await ask();
  if (!first.claimable?.length) return first;
  const writes = await ctx.turnWrites(first.claimable).catch(() => [] as TurnWrites[]);
  return writes.length > 0 ? ask(writes) : first;
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
  const { claimable: _, ...h } = await withClaims(ctx, (w) => ctx.checkpoints.fileHistory(relPath, w));
  const name = await namer(
    ctx,
    h.entries.map((e) => e.owner),
  );
  return { ...h, entries: h.entries.map((e) => ({ ...e, owner: name(e.owner) })) };
}

export async function namedBlame(ctx: PromptNamingContext, relPath: string): Promise<NamedBlame> {
  const { claimable: _, ...b } = await withClaims(ctx, (w) => ctx.checkpoints.blame(relPath, w));
  const name = await namer(
    ctx,
    b.lines.map((l) => l.owner),
  );
  return { ...b, lines: b.lines.map((l) => ({ ...l, owner: name(l.owner) })) };
}
