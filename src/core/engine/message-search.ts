// Searching the messages of a workspace's sessions: through the sql.js catalog (full-text, an index rebuilt from the
// session files) and, when it cannot be used, a plain scan of the sessions themselves.
import type { Warn } from '../branches/records';
import type { Catalog } from '../catalog/catalog';
import type { SessionView } from '../sources/session-view';
import type { MessageKind } from '../../shared/view-models';
import { branchOfEachEntry } from './entry-branches';
import { branchesOf } from '../sources/session-details';
import { plainText, previewOf, toTranscriptItem } from '../transcript/transcript';
import type { SessionListing } from '../sources/listings';

export interface MessageHit {
  sessionRef: string;
  sessionTitle: string;
  entryId: string;
  kind: MessageKind;
  preview: string;
  /** The branch the message is shown on: the active one when it is on its path, else the first that holds it. */
  branch?: string;
  onActiveBranch: boolean;
}

/** Hits in exactly these sessions (another agent's folders hold other workspaces' sessions too). */
export async function searchThroughCatalog(catalog: Catalog, listings: readonly SessionListing[], query: string, limit: number): Promise<MessageHit[]> {
  if (!query.trim()) return [];
  await catalog.refresh(listings.map((l) => ({ ref: l.sessionRef, source: l.source, modifiedMs: l.modifiedMs })));
  const refs = listings.map((l) => l.sessionRef);
  const hits = catalog.search(query, { refs, limit, perSession: 20 });
  const activeBranch = new Map(catalog.listSessions({ refs }).map((c) => [c.ref, c.activeBranch]));
  return hits.map((h) => ({
    sessionRef: h.ref,
    sessionTitle: h.title,
    entryId: h.entryId,
    kind: h.kind as MessageKind,
    // The index holds the messages' markdown: a quick pick shows its text, not its syntax.
    preview: plainText(h.snippet),
    ...(h.branch !== undefined ? { branch: h.branch } : {}),
    onActiveBranch: h.branch === undefined || h.branch === activeBranch.get(h.ref),
  }));
}

/** The same answer read from the sessions themselves (a substring match), for when the catalog cannot be opened. */
export async function scanForMessages(
  listings: readonly SessionListing[],
  view: (ref: string) => Promise<SessionView>,
  query: string,
  limit: number,
  warn: Warn,
): Promise<MessageHit[]> {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const hits: MessageHit[] = [];
  for (const listing of listings) {
    let session: SessionView;
    try {
      session = await view(listing.sessionRef);
    } catch {
      continue;
    }
    const onPath = new Set(session.getPath().map((e) => e.id));
    const branchOf = branchOfEachEntry(session, branchesOf(session, warn).branches);
    for (const entry of session.getEntries()) {
      const item = toTranscriptItem(entry, {});
      if (!item || !`${item.title ?? ''}\n${item.markdown}`.toLowerCase().includes(needle)) continue;
      hits.push({
        sessionRef: listing.sessionRef,
        sessionTitle: listing.title,
        entryId: entry.id,
        kind: item.kind,
        preview: previewOf(entry),
        ...(branchOf.has(entry.id) ? { branch: branchOf.get(entry.id)! } : {}),
        onActiveBranch: onPath.has(entry.id),
      });
      if (hits.length >= limit) return hits;
    }
  }
  return hits;
}
