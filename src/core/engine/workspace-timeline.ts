// The workspace timeline as the editor's "Workspace Timeline" view lists it (issue 27, item 6): every snapshot of the
// open folders, newest first, whichever session of whichever agent took it, each with its session and prompt named
// (prompt-names.ts). The folder's own order (timeline.ts, the order the snapshots were taken) is kept; the points of
// several folders are merged by time.
import { isBaselineSession } from '../baseline-session';
import type { TimelinePoint } from '../files/timeline';
import type { FileCheckpoints } from '../files/types';
import { namePrompts, type NamedPrompt, type NamedSession, type PromptNamingSources } from './prompt-names';

/** What a point is: a prompt's start (the workspace as the prompt was sent), its turn's end, the workspace just before
 *  a rewind wrote it (what its undo brings back), or the snapshot a hooks install took (no one's turn). */
export type TimelinePointKind = 'prompt' | 'turn-end' | 'pre-restore' | 'baseline';

export interface WorkspaceTimelinePoint {
  /** The workspace folder whose timeline it is on. */
  folder: string;
  /** Its place on that folder's timeline (0: the oldest): with `folder`, what names the point. */
  index: number;
  sessionId: string;
  anchorId: string;
  kind: TimelinePointKind;
  /** When the snapshot was taken (ISO). */
  at: string;
  /** Its session, when the folder lists it. */
  session?: NamedSession;
  /** The prompt whose turn it belongs to (for a prompt start, its own), when its message was found. */
  prompt?: NamedPrompt;
}

export interface TimelineFolder {
  root: string;
  checkpoints: Pick<FileCheckpoints, 'timelinePoints' | 'listSnapshots'>;
}

function kindOf(p: TimelinePoint): TimelinePointKind {
  if (isBaselineSession(p.sessionId)) return 'baseline';
  return p.kind === 'user-message' ? 'prompt' : p.kind;
}

async function folderPoints(folder: TimelineFolder, src: PromptNamingSources): Promise<WorkspaceTimelinePoint[]> {
  const points = await folder.checkpoints.timelinePoints();
  const names = await namePrompts(
    src,
    folder.checkpoints,
    points.filter((p) => !isBaselineSession(p.sessionId)).map((p) => p.sessionId),
  );
  return points.map((p, index) => {
    const kind = kindOf(p);
    const session = kind === 'baseline' ? undefined : names.session(p.sessionId);
    const prompt = kind === 'baseline' || p.prompt === undefined ? undefined : names.prompt(p.sessionId, p.prompt);
    return {
      folder: folder.root,
      index,
      sessionId: p.sessionId,
      anchorId: p.anchorId,
      kind,
      at: p.createdAt,
      ...(session ? { session } : {}),
      ...(prompt ? { prompt } : {}),
    };
  });
}

/** The points of every folder, newest first: each folder's in its timeline's order, folders merged by time. */
export async function workspaceTimeline(folders: readonly TimelineFolder[], src: PromptNamingSources): Promise<WorkspaceTimelinePoint[]> {
  const lists = await Promise.all(folders.map((f) => folderPoints(f, src).then((ps) => ps.reverse())));
  const out: WorkspaceTimelinePoint[] = [];
  const heads = lists.map(() => 0);
  for (;;) {
    let pick = -1;
    for (let i = 0; i < lists.length; i++) {
      const p = lists[i]![heads[i]!];
      if (p && (pick < 0 || p.at > lists[pick]![heads[pick]!]!.at)) pick = i;
    }
    if (pick < 0) return out;
    out.push(lists[pick]![heads[pick]!++]!);
  }
}
