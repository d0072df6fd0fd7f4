// A session as the transcript shows it: one branch's path as chat rows, with where other branches leave it, which
// user messages have a file snapshot, subagent conversations folded under the tool call that started them, and the
// rows a fork copied from its origin marked as such.
import type { BranchView } from '../branches/derive';
import { EntryIndex } from '../branches/entry-index';
import type { Warn } from '../branches/records';
import type { SessionEntry } from '../session/types';
import { isForeignView, type ForeignSessionView, type SessionView } from '../sources/session-view';
import { agentIcon, agentName } from '../sources/registry';
import type { TranscriptItem, TranscriptModel } from '../../shared/view-models';
import { branchesOf, type FileSnapshotInfo } from '../sources/session-details';
import { buildTranscriptItems, toTranscriptItem } from '../transcript/transcript';
import type { SessionListing } from '../sources/listings';

export interface TranscriptInputs {
  /** The branch to show; the active one when absent or unknown. */
  branch?: string;
  snapshots: readonly FileSnapshotInfo[];
  listing: SessionListing;
  warn: Warn;
}

export function transcriptOf(session: SessionView, inputs: TranscriptInputs): { model: TranscriptModel; items: TranscriptItem[] } {
  const snap = branchesOf(session, inputs.warn);
  const shown = (inputs.branch !== undefined ? snap.branches.find((b) => b.name === inputs.branch) : undefined) ?? snap.active;
  const path = shown.isActive ? session.getPath() : new EntryIndex(session.getEntries()).pathTo(shown.leafId);
  const items = buildTranscriptItems(path, {
    otherBranchesAt: otherBranchesAlong(session, path, snap.branches, shown.name),
    fileCheckpoints: new Map(inputs.snapshots.map((s) => [s.anchorId, s.files])),
    fileCheckpointsKnown: true,
    labelOf: (id) => session.getLabel(id),
    cwd: session.cwd,
  });
  const model: TranscriptModel = {
    sessionId: session.sessionId,
    title: inputs.listing.title,
    source: inputs.listing.source,
    sourceLabel: agentName(inputs.listing.source),
    sourceIcon: agentIcon(inputs.listing.source),
    branch: shown.name,
    activeBranch: snap.active.name,
    total: items.length,
  };
  if (isForeignView(session)) {
    model.readOnly = { agent: agentName(session.source) };
    if (session.forkedFrom)
      model.forkedFrom = {
        sessionId: session.forkedFrom.sessionId,
        ...(session.forkedFrom.sessionRef ? { sessionRef: session.forkedFrom.sessionRef } : {}),
      };
    decorateForeignRows(session, path, items);
  }
  return { model, items };
}

/** Subagents under their tool call, copied history marked. */
function decorateForeignRows(session: ForeignSessionView, path: readonly SessionEntry[], items: TranscriptItem[]): void {
  const byId = new Map(path.map((e) => [e.id, e]));
  for (const item of items) {
    const entry = byId.get(item.entryId);
    if (!entry) continue;
    if (session.isInherited?.(entry.id)) item.inherited = true;
    const content = entry.type === 'message' ? (entry.message as { content?: unknown } | undefined)?.content : undefined;
    if (!Array.isArray(content)) continue;
    const subagents: NonNullable<TranscriptItem['subagents']> = [];
    for (const block of content as { type?: unknown; id?: unknown }[]) {
      if (block?.type !== 'toolCall' || typeof block.id !== 'string') continue;
      for (const sub of session.subagentsOf(block.id)) {
        const rows = sub.entries.map((e) => toTranscriptItem(e, {})).filter((r): r is TranscriptItem => r !== undefined);
        subagents.push({ agentId: sub.agentId, title: sub.title, messages: rows.length, markdown: rows.map(subagentRowMarkdown).join('\n\n') });
      }
    }
    if (subagents.length) item.subagents = subagents;
  }
}

function subagentRowMarkdown(row: TranscriptItem): string {
  const who = row.kind === 'user' ? 'Task' : row.kind === 'assistant' ? 'Subagent' : (row.title ?? row.kind);
  return `**${who}**\n\n${row.markdown}`;
}

/** For each entry of the shown path where another branch leaves it: that branch's name and head. */
function otherBranchesAlong(
  session: SessionView,
  path: readonly SessionEntry[],
  branches: readonly BranchView[],
  shownName: string,
): Map<string, { name: string; headEntryId: string }[]> {
  const onPath = new Set(path.map((e) => e.id));
  // A fork can sit on an entry that is no chat row (a branch record): show it on the nearest row before it.
  const rowAt = new Map<string, string>();
  let lastRow: string | undefined;
  for (const e of path) {
    if (toTranscriptItem(e, {})) lastRow = e.id;
    if (lastRow) rowAt.set(e.id, lastRow);
  }
  const out = new Map<string, { name: string; headEntryId: string }[]>();
  for (const b of branches) {
    if (b.name === shownName || !b.leafId) continue;
    // Walk up from the branch's leaf to the first entry on the shown path: that is where it leaves.
    let id: string | null = b.leafId;
    let forkAt: string | undefined;
    const seen = new Set<string>();
    while (id && !seen.has(id)) {
      seen.add(id);
      if (onPath.has(id)) {
        forkAt = id;
        break;
      }
      id = session.getEntry(id)?.parentId ?? null;
    }
    const at = forkAt === undefined ? undefined : rowAt.get(forkAt);
    if (!at) continue;
    const list = out.get(at) ?? [];
    list.push({ name: b.name, headEntryId: b.headMessageId ?? b.leafId });
    out.set(at, list);
  }
  return out;
}
