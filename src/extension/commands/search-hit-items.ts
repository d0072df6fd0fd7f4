// What the "Search sessions" picker lists for the engine's hits: a separator per session, then one row per hit
// with its snippet, the branch its message is on, and where it came from. No `vscode` here, so it is unit tested.
import { withoutCodeMarks } from '../../shared/plain-text';

/** What one search result needs to be shown (the engine's MessageHit fits). */
export interface SessionSearchHit {
  sessionRef: string;
  sessionTitle: string;
  entryId: string;
  kind: string;
  /** The snippet around the match. */
  preview: string;
  /** The branch the message is on, when known. */
  branch?: string;
  /** false: the message is only on another branch than the session's active one. */
  onActiveBranch?: boolean;
  timestamp?: string;
}

export type SearchHitRow =
  | { separator: true; label: string }
  | { separator: false; label: string; description: string; detail: string; target: { sessionRef: string; entryId: string } };

const KIND_ICONS: Record<string, string> = {
  user: 'account',
  assistant: 'hubot',
  toolCall: 'tools',
  toolResult: 'output',
  bash: 'terminal',
  branchSummary: 'git-branch',
  compaction: 'fold',
};

/** The branch column: its name, and whether opening the hit means leaving the active branch. */
export function branchText(hit: SessionSearchHit): string {
  if (hit.branch) return hit.onActiveBranch === false ? `$(git-branch) ${hit.branch} (not active)` : `$(git-branch) ${hit.branch}`;
  return hit.onActiveBranch === false ? '$(git-branch) on another branch' : '';
}

/** Hits grouped under a separator per session, in the order the search ranked them (a session's hits together). */
export function searchHitRows(hits: readonly SessionSearchHit[]): SearchHitRow[] {
  const rows: SearchHitRow[] = [];
  let session: string | undefined;
  for (const hit of hits) {
    if (hit.sessionRef !== session) {
      session = hit.sessionRef;
      rows.push({ separator: true, label: hit.sessionTitle });
    }
    rows.push({
      separator: false,
      // A quick pick shows text as it is: a snippet's markdown backticks would show raw.
      label: `$(${KIND_ICONS[hit.kind] ?? 'comment'}) ${withoutCodeMarks(hit.preview)}`,
      description: branchText(hit),
      detail: `${hit.sessionTitle} · ${hit.kind}${hit.timestamp ? ` · ${hit.timestamp.slice(0, 16).replace('T', ' ')}` : ''}`,
      target: { sessionRef: hit.sessionRef, entryId: hit.entryId },
    });
  }
  return rows;
}
