// Adapts the plain tree nodes to VS Code's TreeDataProvider. Nothing is read until VS Code asks for children, i.e.
// until the Sessions view is visible: activation stays cheap.
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { rootNodes, type SessionTreeSource, type TreeItemSpec, type TreeNode } from './nodes';

export class SessionsTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly source: SessionTreeSource) {
    super();
  }

  /** Re-reads everything; expansion survives because node ids are stable. */
  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return toVscodeTreeItem(node.toTreeItem(Date.now()));
  }

  getChildren(node?: TreeNode): Promise<TreeNode[]> {
    return node ? node.getChildren() : rootNodes(this.source);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }
}

export function toVscodeTreeItem(spec: TreeItemSpec): vscode.TreeItem {
  const state = {
    none: vscode.TreeItemCollapsibleState.None,
    collapsed: vscode.TreeItemCollapsibleState.Collapsed,
    expanded: vscode.TreeItemCollapsibleState.Expanded,
  }[spec.collapsible];
  const item = new vscode.TreeItem(spec.label, state);
  item.id = spec.id;
  item.description = spec.description;
  item.contextValue = spec.contextValue;
  if (spec.tooltip) item.tooltip = new vscode.MarkdownString(spec.tooltip);
  if (spec.icon) item.iconPath = new vscode.ThemeIcon(spec.icon.id, spec.icon.color ? new vscode.ThemeColor(spec.icon.color) : undefined);
  if (spec.command) item.command = spec.command;
  if (spec.resourcePath) item.resourceUri = vscode.Uri.file(spec.resourcePath);
  return item;
}
