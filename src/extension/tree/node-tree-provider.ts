// What the Sessions and Workspace Timeline views share: VS Code's TreeDataProvider over the plain tree nodes
// (nodes.ts), refreshed whole (node ids are stable, so expansion survives). Each view gives only its roots.
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { TreeItemSpec, TreeNode } from './nodes';

export abstract class NodeTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  /** The view's top nodes, read when VS Code asks for them (only while the view is shown). */
  protected abstract roots(): Promise<TreeNode[]>;

  /** Re-reads everything; expansion survives because node ids are stable. */
  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return toVscodeTreeItem(node.toTreeItem(Date.now()));
  }

  getChildren(node?: TreeNode): Promise<TreeNode[]> {
    return node ? node.getChildren() : this.roots();
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
