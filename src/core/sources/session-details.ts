// What the tree and the status bar show about one session, derived from its entries (the file is the only truth).
import { deriveBranches, type BranchesSnapshot } from '../branches/derive';
import type { Warn } from '../branches/records';
import type { SessionEntry, SessionSource } from '../session/types';
import { isForeignView, type SessionView } from './session-view';
import { isTitleWorthyPrompt, isUserMessage, oneLine, previewOf } from '../transcript/transcript';
import type { BranchListing, FileCheckpointListing, SessionDetails, SessionListing } from './listings';

export function branchesOf(session: SessionView, warn: Warn): BranchesSnapshot {
  const header = session.getHeader();
  return deriveBranches(session.getEntries(), session.getLeafId(), {
    sessionId: session.sessionId,
    sessionCreatedAt: Date.parse(header.timestamp) || 0,
    warn,
  });
}

/** The title a person recognises: the header's, pi's session name, else the first thing the user asked. */
export function sessionTitle(session: SessionView): string {
  if (isForeignView(session)) return oneLine(session.title) || 'Untitled session';
  const header = session.getHeader();
  if (typeof header.title === 'string' && header.title.trim()) return oneLine(header.title);
  const entries = session.getEntries();
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.type === 'session_info' && typeof e.name === 'string' && e.name.trim()) return oneLine(e.name);
  }
  const firstUser = entries.find((e) => isTitleWorthyPrompt(e)) ?? entries.find((e) => isUserMessage(e));
  if (firstUser) return previewOf(firstUser);
  return 'Untitled session';
}

export function listingOf(session: SessionView, source: SessionSource, modifiedMs: number): SessionListing {
  return {
    sessionRef: session.sessionRef!,
    sessionId: session.sessionId,
    title: sessionTitle(session),
    source: isForeignView(session) ? session.source : source,
    modifiedMs,
    createdAt: session.getHeader().timestamp,
  };
}

export interface FileSnapshotInfo {
  anchorId: string;
  files: number;
  createdAt?: string;
}

export function describeSession(session: SessionView, listing: SessionListing, fileSnapshots: readonly FileSnapshotInfo[], warn: Warn): SessionDetails {
  const problems: string[] = [];
  const snap = branchesOf(session, (m) => {
    problems.push(m);
    warn(m);
  });
  const preview = (id: string | null) => {
    const entry = id ? session.getEntry(id) : undefined;
    return entry ? previewOf(entry) : '(no messages yet)';
  };
  const branches: BranchListing[] = snap.branches.map((b) => ({
    name: b.name,
    isActive: b.isActive,
    headEntryId: b.headMessageId ?? b.leafId ?? '',
    headPreview: preview(b.headMessageId),
    messageCount: b.messageCount,
  }));
  const namedCheckpoints = snap.checkpoints.map((c) => ({
    name: c.name,
    entryId: c.messageId,
    preview: preview(c.messageId),
    createdAt: new Date(c.createdAt).toISOString(),
  }));
  const fileCheckpoints: FileCheckpointListing[] = [];
  for (const s of fileSnapshots) {
    const entry: SessionEntry | undefined = session.getEntry(s.anchorId);
    // A snapshot whose message is gone from the file (hand edit) cannot be rewound to from the tree.
    if (!entry) continue;
    fileCheckpoints.push({ anchorEntryId: s.anchorId, preview: previewOf(entry), files: s.files, ...(s.createdAt ? { createdAt: s.createdAt } : {}) });
  }
  // In file order, so the tree can show them newest first by reversing.
  const order = new Map(session.getEntries().map((e, i) => [e.id, i]));
  fileCheckpoints.sort((a, b) => (order.get(a.anchorEntryId) ?? 0) - (order.get(b.anchorEntryId) ?? 0));
  const report = session.getLoadReport();
  for (const skipped of report.skipped) problems.push(`Line ${skipped.line} skipped: ${skipped.reason}`);
  if (report.missingBlobs?.length) problems.push(`${report.missingBlobs.length} image(s) missing from the blob store`);
  return { listing, branches, namedCheckpoints, fileCheckpoints, problems };
}
