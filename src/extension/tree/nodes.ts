// The Sessions tree, one class per node type. Nodes describe themselves as plain TreeItemSpecs (no `vscode` import):
// the provider turns a spec into a vscode.TreeItem, and the tests check nodes in plain Node.
// Ids are derived from the session file and the thing's own name, so a refresh keeps what the user expanded.
import { agentIcon, agentOfKind, isReadOnlySource } from '../../core/sources';
import type { BranchListing, FileCheckpointListing, NamedCheckpointListing, SessionDetails, SessionListing } from '../../core/engine';
import { formatAge, plural, sourceLabel } from './format';

export interface TreeItemSpec {
  id: string;
  label: string;
  description?: string;
  /** Markdown. */
  tooltip?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  icon?: { id: string; color?: string };
  command?: { command: string; title: string; arguments: unknown[] };
  /** A file the item stands for (shown with its own resource decorations). */
  resourcePath?: string;
}

/** Where the tree gets its data: the engine facade in the extension, a fake in tests. */
export interface SessionTreeSource {
  listSessions(): Promise<SessionListing[]>;
  describeSession(sessionFile: string): Promise<SessionDetails>;
}

export abstract class TreeNode {
  abstract readonly id: string;
  constructor(readonly parent: TreeNode | undefined) {}
  abstract toTreeItem(nowMs: number): TreeItemSpec;
  async getChildren(): Promise<TreeNode[]> {
    return [];
  }
}

export class SessionNode extends TreeNode {
  readonly id: string;
  constructor(
    private readonly source: SessionTreeSource,
    readonly listing: SessionListing,
  ) {
    super(undefined);
    this.id = `session:${listing.sessionFile}`;
  }

  get sessionFile(): string {
    return this.listing.sessionFile;
  }

  toTreeItem(nowMs: number): TreeItemSpec {
    const { title, source, modifiedMs, sessionFile, sessionId } = this.listing;
    return {
      id: this.id,
      label: title,
      description: `${formatAge(modifiedMs, nowMs)} · ${sourceLabel(source)}`,
      tooltip: `**${escapeMarkdown(title)}**\n\n${sourceLabel(source)} session \`${sessionId}\`\n\n${escapeMarkdown(sessionFile)}`,
      contextValue: `session.${source}`,
      collapsible: 'collapsed',
      icon: { id: agentIcon(source) },
      command: { command: 'agentRewind.openTranscript', title: 'Open Transcript', arguments: [this] },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    let details: SessionDetails;
    try {
      details = await this.source.describeSession(this.listing.sessionFile);
    } catch (error) {
      return [new ProblemNode(this, `Cannot read this session: ${errorText(error)}`, 0)];
    }
    const children: TreeNode[] = [new BranchesNode(this, details.branches)];
    const checkpoints = details.namedCheckpoints.length + details.fileCheckpoints.length;
    if (checkpoints > 0) children.push(new CheckpointsNode(this, details.namedCheckpoints, details.fileCheckpoints));
    // Without our hooks, a prompt of an agent that has them has no snapshot of ours: say how to get them, where it matters.
    const agent = agentOfKind(this.listing.source);
    if (agent?.hookCommands && agent.capabilities.hookSnapshots && details.fileCheckpoints.length === 0)
      children.push(new SetUpHooksNode(this, agent.displayName, agent.hookCommands.install));
    details.problems.forEach((problem, i) => children.push(new ProblemNode(this, problem, i)));
    return children;
  }
}

export class BranchesNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly session: SessionNode,
    readonly branches: BranchListing[],
  ) {
    super(session);
    this.id = `branches:${session.sessionFile}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const active = this.branches.find((b) => b.isActive);
    return {
      id: this.id,
      label: 'Branches',
      description: active ? `${plural(this.branches.length, 'branch', 'branches')} · on ${active.name}` : plural(this.branches.length, 'branch', 'branches'),
      contextValue: 'branches',
      collapsible: 'expanded',
      icon: { id: 'git-branch' },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    // Active first, then by name, so the list does not jump around when heads move.
    return [...this.branches].sort((a, b) => Number(b.isActive) - Number(a.isActive) || a.name.localeCompare(b.name)).map((b) => new BranchNode(this, b));
  }
}

export class BranchNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly group: BranchesNode,
    readonly branch: BranchListing,
  ) {
    super(group);
    this.id = `branch:${group.session.sessionFile}#${branch.name}`;
  }

  get sessionFile(): string {
    return this.group.session.sessionFile;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { name, isActive, headPreview, messageCount, headEntryId } = this.branch;
    const readOnly = isReadOnlySource(this.group.session.listing.source);
    return {
      id: this.id,
      label: name,
      description: `${isActive ? 'active · ' : ''}${plural(messageCount, 'message')} · ${headPreview}`,
      tooltip: `Branch **${escapeMarkdown(name)}**${isActive ? ' (active)' : ''}\n\n${plural(messageCount, 'message')}, head \`${headEntryId}\`\n\n${escapeMarkdown(headPreview)}`,
      contextValue: readOnly ? 'branch.readonly' : isActive ? 'branch.active' : 'branch',
      collapsible: 'none',
      icon: isActive ? { id: 'pass-filled', color: 'charts.green' } : { id: 'git-branch' },
      // Another agent's session is never written: its branches are shown in the transcript instead of switched to.
      command: readOnly
        ? { command: 'agentRewind.showBranch', title: 'Show Branch', arguments: [this] }
        : isActive
          ? undefined
          : { command: 'agentRewind.switchBranch', title: 'Switch Branch', arguments: [this] },
    };
  }
}

export class CheckpointsNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly session: SessionNode,
    readonly named: NamedCheckpointListing[],
    readonly files: FileCheckpointListing[],
  ) {
    super(session);
    this.id = `checkpoints:${session.sessionFile}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const parts = [];
    if (this.named.length) parts.push(plural(this.named.length, 'named', 'named'));
    if (this.files.length) parts.push(plural(this.files.length, 'file snapshot'));
    return {
      id: this.id,
      label: 'Checkpoints',
      description: parts.join(' · '),
      contextValue: 'checkpoints',
      collapsible: 'collapsed',
      icon: { id: 'bookmark' },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    // Named ones first (the user chose them), then file snapshots newest first (the last message is the likeliest target).
    const named = [...this.named].sort((a, b) => a.name.localeCompare(b.name)).map((c) => new NamedCheckpointNode(this, c));
    const files = [...this.files].reverse().map((c) => new FileCheckpointNode(this, c));
    return [...named, ...files];
  }
}

export class NamedCheckpointNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly group: CheckpointsNode,
    readonly checkpoint: NamedCheckpointListing,
  ) {
    super(group);
    this.id = `checkpoint:${group.session.sessionFile}#named:${checkpoint.name}`;
  }

  get sessionFile(): string {
    return this.group.session.sessionFile;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { name, preview, entryId } = this.checkpoint;
    return {
      id: this.id,
      label: name,
      description: preview,
      tooltip: `Checkpoint **${escapeMarkdown(name)}** at \`${entryId}\`\n\n${escapeMarkdown(preview)}`,
      contextValue: 'checkpoint.named',
      collapsible: 'none',
      icon: { id: 'bookmark' },
    };
  }
}

export class FileCheckpointNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly group: CheckpointsNode,
    readonly checkpoint: FileCheckpointListing,
  ) {
    super(group);
    this.id = `checkpoint:${group.session.sessionFile}#file:${checkpoint.anchorEntryId}`;
  }

  get sessionFile(): string {
    return this.group.session.sessionFile;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { preview, files, anchorEntryId } = this.checkpoint;
    return {
      id: this.id,
      label: preview,
      description: plural(files, 'file'),
      tooltip: `Files as they were when this message was sent (\`${anchorEntryId}\`), ${plural(files, 'file')}.\n\nRewind to here shows what would change first.`,
      contextValue: 'checkpoint.file',
      collapsible: 'none',
      icon: { id: 'file-symlink-directory' },
    };
  }
}

/** "No file snapshots yet": one click sets up the hooks that take one at every prompt. */
export class SetUpHooksNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly session: SessionNode,
    readonly agent: string,
    readonly installCommand: string,
  ) {
    super(session);
    this.id = `setup-hooks:${session.sessionFile}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    return {
      id: this.id,
      label: `No file snapshots yet: set up ${this.agent} checkpoints`,
      tooltip: `Installs hooks that snapshot the workspace at every ${this.agent} prompt (shell changes included), so Rewind to here can restore the files exactly.`,
      contextValue: 'hint',
      collapsible: 'none',
      icon: { id: 'plug' },
      command: { command: this.installCommand, title: `Set Up ${this.agent} Checkpoints`, arguments: [] },
    };
  }
}

export class ProblemNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly session: SessionNode,
    readonly message: string,
    index: number,
  ) {
    super(session);
    this.id = `problem:${session.sessionFile}#${index}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    return {
      id: this.id,
      label: this.message,
      tooltip: escapeMarkdown(this.message),
      contextValue: 'problem',
      collapsible: 'none',
      icon: { id: 'warning', color: 'problemsWarningIcon.foreground' },
    };
  }
}

/** The tree's roots: this workspace's sessions, newest first. */
export async function rootNodes(source: SessionTreeSource): Promise<SessionNode[]> {
  const sessions = await source.listSessions();
  return [...sessions]
    .sort((a, b) => b.modifiedMs - a.modifiedMs || a.sessionFile.localeCompare(b.sessionFile))
    .map((listing) => new SessionNode(source, listing));
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
