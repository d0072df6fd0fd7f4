// The files agents' own records say their tools wrote, turn by turn (SourceAdapter.filesWrittenByTurn), for the turns
// whose records may change who made a change: attribution (ChangeOwners, attribution.ts) gives a change in nobody's
// time right after a turn's end to that turn when its tools wrote the file (an editor may write a file its tool made
// after the turn's end was snapshotted). Reading a session's records means listing the sessions and reading its log,
// so it is done only for such a turn, and only when there is such a change: a rewind's dry run asks for the turns that
// ended right before a change of the folder since its prompt (turnWritesSince), a file's history and blame for those
// right before a change of that file the timeline gives to nobody (their `claimable`).
import { isAbsolute, relative, sep } from 'node:path';
import { ChangeOwners } from '../files/restore/attribution';
import type { FileCheckpoints, TurnRef, TurnWrites } from '../files/types';
import { promptPointIndex, type TimelinePoint } from '../files/timeline';
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

/** Each session view's records as its adapter read them: a view is read again (a new object) only when its session's
 *  stamp (its file's size and mtime) moved, so while it holds, its records are not read again. */
const writtenByView = new WeakMap<SessionView, Promise<ReadonlyMap<string, readonly string[]>>>();

function filesWritten(adapter: SourceAdapter, view: SessionView): Promise<ReadonlyMap<string, readonly string[]>> {
  let written = writtenByView.get(view);
  if (!written) {
    written = adapter.filesWrittenByTurn!(view);
    writtenByView.set(view, written);
    written.catch(() => writtenByView.delete(view));
  }
  return written;
}

/**
 * The turns a rewind to the prompt (`target`: the session and its snapshot anchor) may meet whose records could claim
 * a change: those that ended right before a change of the folder in nobody's time, from the prompt on (the last
 * interval, to now, counts as a change: only the dry run's scan would tell). Read off the timeline alone.
 */
export function claimableSince(points: readonly TimelinePoint[], target: { sessionId: string; anchorId: string }): TurnRef[] {
  const from = promptPointIndex(points, target);
  if (from < 0) return [];
  const owners = new ChangeOwners(points);
  const out: TurnRef[] = [];
  for (let j = from; j < points.length; j++) {
    const c = owners.claimant(j);
    if (c && (j + 1 === points.length || points[j]!.root !== points[j + 1]!.root)) out.push(c);
  }
  return out;
}

/** What the records of the turns a rewind of `target.view` to `target.anchorId` may meet say their tools wrote
 *  (claimableSince); nothing, and no session read, when no such turn is followed by a change. */
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
  const turns = claimableSince(points, { sessionId: target.view.sessionId, anchorId: target.anchorId });
  return writesOfTurns(ctx, cp, turns, target);
}

/**
 * For each of `turns`, the files its agent's records say its tools wrote, as workspace-relative paths (those outside
 * the workspace left out). Only the sessions of those turns are read (`known`: one the caller has read already). A
 * session that cannot be read, or whose agent keeps no such records, claims nothing.
 */
export async function writesOfTurns(
  ctx: TurnWritesContext,
  cp: Pick<FileCheckpoints, 'listSnapshots' | 'workspaceRoot'>,
  turns: readonly TurnRef[],
  known?: { view: SessionView; adapter: SourceAdapter },
): Promise<TurnWrites[]> {
  const wanted = new Map<string, Set<string>>();
  for (const t of turns) wanted.set(t.sessionId, (wanted.get(t.sessionId) ?? new Set()).add(t.anchorId));
  if (wanted.size === 0) return [];
  let listings: Promise<SessionListing[]> | undefined;
  const out: TurnWrites[] = [];
  let bytes = 0;
  for (const [sessionId, anchors] of wanted) {
    try {
      let view = known?.view;
      let adapter = known?.adapter;
      if (sessionId !== view?.sessionId) {
        listings ??= ctx.listSessions().catch(() => []);
        const listing = (await listings).find((l) => l.sessionId === sessionId);
        if (!listing) continue;
        adapter = await ctx.adapterOf(listing.sessionRef);
        if (!adapter.filesWrittenByTurn) continue;
        view = await ctx.view(listing.sessionRef);
      }
      if (!adapter?.filesWrittenByTurn || !view) continue;
      const written = await filesWritten(adapter, view);
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

/** The paths that are inside the workspace, relative to it with '/' (a folder reached through a symlink too). */
export function insideWorkspace(root: string, files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (!isAbsolute(f)) continue;
    const rel = relative(root, canonicalPath(f));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    out.push(rel.split(sep).join('/'));
  }
  return out;
}
