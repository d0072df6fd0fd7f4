// The Workspace Timeline view over its plain nodes (timeline-nodes.ts). Nothing is read until the view is shown; a
// refresh (the timeline grew, a session changed) reads the timeline once for the whole view.
import { NodeTreeProvider } from './node-tree-provider';
import type { TreeNode } from './nodes';
import { timelineRootNodes, type TimelineTreeSource } from './timeline-nodes';

export class TimelineTreeProvider extends NodeTreeProvider {
  constructor(private readonly source: TimelineTreeSource) {
    super();
  }

  protected roots(): Promise<TreeNode[]> {
    return timelineRootNodes(this.source, new Date());
  }
}
