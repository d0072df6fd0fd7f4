// Adapts the Workspace Timeline's plain nodes (timeline-nodes.ts) to VS Code. Nothing is read until the view is shown;
// a refresh (the timeline grew, a session changed) reads the timeline once for the whole view.
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { TreeNode } from './nodes';
import { toVscodeTreeItem } from './sessions-tree-provider';
import { timelineRootNodes, type TimelineTreeSource } from './timeline-nodes';

export class TimelineTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly source: TimelineTreeSource) {
    super();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return toVscodeTreeItem(node.toTreeItem(Date.now()));
  }

  getChildren(node?: TreeNode): Promise<TreeNode[]> {
    return node ? node.getChildren() : timelineRootNodes(this.source, new Date());
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }
}
