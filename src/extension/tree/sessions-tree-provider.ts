// The Sessions view. Nothing is read until VS Code asks for children, i.e. until the view is visible: activation
// stays cheap.
import { NodeTreeProvider } from './node-tree-provider';
import { rootNodes, type SessionTreeSource, type TreeNode } from './nodes';

export class SessionsTreeProvider extends NodeTreeProvider {
  constructor(private readonly source: SessionTreeSource) {
    super();
  }

  protected roots(): Promise<TreeNode[]> {
    return rootNodes(this.source);
  }
}
