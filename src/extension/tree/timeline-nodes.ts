// The Workspace Timeline view (issue 27, item 6), one class per node kind as in nodes.ts (no `vscode` import): the
// open folders' snapshots newest first, whichever session of whichever agent took them, grouped by day. A point opens
// its session's transcript at its prompt.
import type { WorkspaceTimelinePoint } from '../../core/engine';
import { agentIcon } from '../../core/sources';
import { TreeNode, type TreeItemSpec } from './nodes';
import { plural, sourceLabel } from './format';

/** Where the view gets its points: the engine in the extension, a fake in tests. */
export interface TimelineTreeSource {
  workspaceTimeline(): Promise<WorkspaceTimelinePoint[]>;
}

const KIND_TEXT: Record<WorkspaceTimelinePoint['kind'], string> = {
  prompt: 'prompt sent',
  'turn-end': 'turn ended',
  'pre-restore': 'before a rewind',
  baseline: 'baseline',
};

const pad = (n: number) => String(n).padStart(2, '0');
/** The local day a time falls on, as YYYY-MM-DD (what groups the points). */
export const dayOf = (t: Date): string => `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}`;
const timeOfDay = (t: Date): string => `${pad(t.getHours())}:${pad(t.getMinutes())}`;

function dayLabel(day: string, now: Date): string {
  if (day === dayOf(now)) return 'Today';
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  return day === dayOf(yesterday) ? 'Yesterday' : day;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}

/** One day of the timeline: its points, newest first. */
export class TimelineDayNode extends TreeNode {
  readonly id: string;
  readonly points: TimelinePointNode[];
  constructor(
    readonly day: string,
    points: readonly WorkspaceTimelinePoint[],
    private readonly now: Date,
    /** The newest day starts expanded. */
    private readonly newest: boolean,
  ) {
    super(undefined);
    this.id = `timeline-day:${day}`;
    this.points = points.map((p) => new TimelinePointNode(this, p));
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const sessions = new Set(this.points.filter((p) => p.point.kind !== 'baseline').map((p) => p.point.sessionId));
    return {
      id: this.id,
      label: dayLabel(this.day, this.now),
      description: `${plural(this.points.length, 'snapshot')} · ${plural(sessions.size, 'session')}`,
      contextValue: 'timeline.day',
      collapsible: this.newest ? 'expanded' : 'collapsed',
      icon: { id: 'calendar' },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    return this.points;
  }
}

/** One snapshot: a prompt sent, a turn ended, the workspace before a rewind, or a hooks install's baseline. */
export class TimelinePointNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly day: TimelineDayNode,
    readonly point: WorkspaceTimelinePoint,
  ) {
    super(day);
    this.id = `timeline-point:${point.folder}#${point.index}`;
  }

  /** What commands given this node act on (targets.ts reads `sessionRef` and `entryId`). */
  get sessionRef(): string | undefined {
    return this.point.session?.sessionRef;
  }

  get entryId(): string | undefined {
    return this.point.prompt?.messageId;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { kind, session, prompt, at, sessionId, folder } = this.point;
    const t = new Date(at);
    const agent = session ? sourceLabel(session.source) : kind === 'baseline' ? undefined : 'Unknown session';
    const label =
      kind === 'baseline'
        ? `Baseline snapshot (${sessionId.replace(/-hooks-baseline$/, '')} hooks set up)`
        : kind === 'pre-restore'
          ? 'Before a rewind'
          : prompt
            ? `“${prompt.text}”`
            : `Prompt ${this.point.anchorId.slice(0, 12)}`;
    const description = [agent, session && kind === 'pre-restore' ? session.title : undefined, KIND_TEXT[kind], Number.isNaN(t.getTime()) ? at : timeOfDay(t)]
      .filter((x) => x !== undefined)
      .join(' · ');
    const tooltip = [
      `**${escapeMarkdown(label)}**`,
      `${escapeMarkdown(KIND_TEXT[kind])}, ${escapeMarkdown(at)}`,
      session ? `${escapeMarkdown(sourceLabel(session.source))} session **${escapeMarkdown(session.title)}** (\`${sessionId}\`)` : `session \`${sessionId}\``,
      `Folder: ${escapeMarkdown(folder)}`,
    ].join('\n\n');
    const target = this.sessionRef ? { sessionRef: this.sessionRef, ...(this.entryId ? { entryId: this.entryId } : {}) } : undefined;
    return {
      id: this.id,
      label,
      description,
      tooltip,
      contextValue: this.entryId ? `timeline.${kind}.message` : `timeline.${kind}`,
      collapsible: 'none',
      icon: {
        prompt: { id: session ? agentIcon(session.source) : 'comment' },
        'turn-end': { id: 'pass' },
        'pre-restore': { id: 'discard' },
        baseline: { id: 'circle-large-outline' },
      }[kind],
      ...(target ? { command: { command: 'agentRewind.openTranscript', title: 'Open Transcript', arguments: [target] } } : {}),
    };
  }
}

/** The view's roots: one node per day, newest first; the points as the engine gives them (newest first). */
export async function timelineRootNodes(source: TimelineTreeSource, now: Date): Promise<TimelineDayNode[]> {
  const points = await source.workspaceTimeline();
  const days = new Map<string, WorkspaceTimelinePoint[]>();
  for (const p of points) {
    const t = new Date(p.at);
    const day = Number.isNaN(t.getTime()) ? 'unknown' : dayOf(t);
    let list = days.get(day);
    if (!list) days.set(day, (list = []));
    list.push(p);
  }
  const order = [...days.keys()].sort((a, b) => Number(a === 'unknown') - Number(b === 'unknown') || b.localeCompare(a));
  return order.map((day, i) => new TimelineDayNode(day, days.get(day)!, now, i === 0));
}
