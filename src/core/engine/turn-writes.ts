// The files agents' own records say their tools wrote, turn by turn (SourceAdapter.filesWrittenByTurn), gathered for a
// rewind of one folder: attribution gives a change just after a turn's end, outside every turn, to that turn when its
// tools wrote the file (an editor may write a file its tool made after the turn's end was snapshotted). Only the turns
// of the folder's timeline from the rewind's prompt on can matter, so only their sessions are read.
import { isAbsolute, relative, sep } from 'node:path';
import type { FileCheckpoints, TurnWrites } from '../files/types';
import type { TimelinePoint } from '../files/timeline';
import { snapshotsByEntry } from '../sources/file-anchors';
import type { SessionListing } from '../sources/listings';
import type { SourceAdapter } from '../sources/source-adapter';
import type { SessionView } from '../sources/session-view';
import { canonicalPath } from './checkpointer-pool';

export interface TurnWritesContext {
  listSessions(): Promise<SessionListing[]>;
  view(sessionRef: string): Promise<SessionView>;
  adapterOf(sessionRef: string): Promise<SourceAdapter>;
}

/** What one rewind request may carry (the checkpoint service takes requests of 64 KB): turns past it keep their
 *  changes as the timeline alone says, the user's, which a default rewind keeps. */
const MAX_BYTES = 32 * 1024;

/**
 * For each session with a prompt on the timeline from the rewind's prompt (`target`, the session and the snapshot
 * anchor) on, or whose turn was open then, the files its agent's records say each of those prompts' turns wrote, as
 * workspace-relative paths. A session that cannot be read, or whose agent keeps no such records, claims nothing.
 */
export async function turnWritesSince(
  ctx: TurnWritesContext,
  cp: Pick<FileCheckpoints, 'timelinePoints' | 'listSnapshots' | 'workspaceRoot'>,
  target: { view: SessionView; adapter: SourceAdapter; anchorId: string },
): Promise<TurnWrites[]> {
  let points: TimelinePoint[];
  try {
    points = await cp.timelinePoints();
  } catch {
    return [];
  }
  const wanted = promptsFrom(points, target.view.sessionId, target.anchorId);
  if (wanted.size === 0) return [];
  let listings: Promise<SessionListing[]> | undefined;
  const out: TurnWrites[] = [];
  let bytes = 0;
  for (const [sessionId, anchors] of wanted) {
    try {
      let view = target.view;
      let adapter = target.adapter;
      if (sessionId !== target.view.sessionId) {
        listings ??= ctx.listSessions().catch(() => []);
        const listing = (await listings).find((l) => l.sessionId === sessionId);
        if (!listing) continue;
        adapter = await ctx.adapterOf(listing.sessionRef);
        if (!adapter.filesWrittenByTurn) continue;
        view = await ctx.view(listing.sessionRef);
      }
      if (!adapter.filesWrittenByTurn) continue;
      const written = await adapter.filesWrittenByTurn(view);
      if (written.size === 0) continue;
      for (const [entryId, rec] of await snapshotsByEntry(view, cp)) {
        const files = anchors.has(rec.anchorId) ? written.get(entryId) : undefined;
        const paths = files ? insideWorkspace(cp.workspaceRoot, files) : [];
        if (paths.length === 0) continue;
        const turn = { sessionId, anchorId: rec.anchorId, paths };
        bytes += JSON.stringify(turn).length;
        if (bytes > MAX_BYTES) return out;
        out.push(turn);
      }
    } catch {
      // unreadable now: its changes stay as the timeline says
    }
  }
  return out;
}

/** By session, the anchors of the prompts whose turns may end after the target prompt: every prompt from it on, and
 *  each session's last prompt before it (a turn still open when the target was sent). */
function promptsFrom(points: readonly TimelinePoint[], sessionId: string, anchorId: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let from = -1;
  for (let k = points.length - 1; k >= 0; k--) {
    const p = points[k]!;
    if (p.kind === 'user-message' && p.sessionId === sessionId && p.anchorId === anchorId) {
      from = k;
      break;
    }
  }
  if (from < 0) return out;
  const lastBefore = new Map<string, string>();
  for (let k = 0; k < from; k++) if (points[k]!.kind === 'user-message') lastBefore.set(points[k]!.sessionId, points[k]!.anchorId);
  const add = (s: string, a: string) => out.set(s, (out.get(s) ?? new Set()).add(a));
  for (let k = from; k < points.length; k++) {
    const p = points[k]!;
    if (p.kind === 'pre-restore') continue;
    const before = lastBefore.get(p.sessionId);
    if (before !== undefined) add(p.sessionId, before);
    if (p.kind === 'user-message') add(p.sessionId, p.anchorId);
  }
  return out;
}

/** The paths that are inside the workspace, relative to it with '/' (a folder reached through a symlink too). */
function insideWorkspace(root: string, files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (!isAbsolute(f)) continue;
    const rel = relative(root, canonicalPath(f));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    out.push(rel.split(sep).join('/'));
  }
  return out;
}
