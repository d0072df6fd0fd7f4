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
  describeSession(sessionRef: string): Promise<SessionDetails>;
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
    /** The forks of this session that are listed too: shown under it, not beside it. */
    readonly forks: readonly SessionListing[] = [],
    parent?: ForksNode,
    /** The session this one was forked from (its title, for the tooltip), when it is listed. */
    readonly origin?: SessionListing,
  ) {
    super(parent);
    this.id = `session:${listing.sessionRef}`;
  }

  /** The tree's sessions: for building the forks below this one. */
  get treeSource(): SessionTreeSource {
    return this.source;
  }

  get sessionRef(): string {
    return this.listing.sessionRef;
  }

  toTreeItem(nowMs: number): TreeItemSpec {
    const { title, source, modifiedMs, sessionRef, sessionId, fork, detail } = this.listing;
    // A fork reads as its origin (same first prompt): it is shown under its origin, named by the first prompt of its
    // own, and marked as a fork where the eye looks first (its icon and its description's first word).
    const label = fork?.firstOwnPrompt ?? title;
    const started = this.listing.createdAt ? `\n\nStarted ${this.listing.createdAt.slice(0, 16).replace('T', ' ')} UTC` : '';
    const forkOf = fork
      ? `\n\nFork of ${this.origin ? `**${escapeMarkdown(this.origin.title)}**` : `session \`${fork.originSessionId}\``}${fork.firstOwnPrompt ? '' : ' (nothing sent in it yet)'}`
      : '';
    return {
      id: this.id,
      label,
      description: `${fork ? 'fork · ' : ''}${formatAge(modifiedMs, nowMs)} · ${sourceLabel(source)}${detail ? ` · ${detail}` : ''}`,
      tooltip: `**${escapeMarkdown(label)}**${forkOf}\n\n${sourceLabel(source)} session \`${sessionId}\`${started}\n\n${escapeMarkdown(sessionRef)}`,
      contextValue: `session.${source}`,
      collapsible: 'collapsed',
      icon: { id: fork ? 'repo-forked' : agentIcon(source) },
      command: { command: 'agentRewind.openTranscript', title: 'Open Transcript', arguments: [this] },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    let details: SessionDetails;
    try {
      details = await this.source.describeSession(this.listing.sessionRef);
    } catch (error) {
      return [new ProblemNode(this, `Cannot read this session: ${errorText(error)}`, 0)];
    }
    const children: TreeNode[] = [new BranchesNode(this, details.branches)];
    const checkpoints = details.namedCheckpoints.length + details.fileCheckpoints.length;
    if (checkpoints > 0) children.push(new CheckpointsNode(this, details.namedCheckpoints, details.fileCheckpoints));
    // Without our hooks, a prompt of an agent that has them has no snapshot of ours: say how to get them, where it matters.
    const agent = agentOfKind(this.listing.source);
    // (an agent loaded at run time has no command of its own: the generic one, given its id)
    if (agent?.hooks && agent.capabilities.hookSnapshots && details.fileCheckpoints.length === 0) {
      const setUp = agent.hookCommands
        ? { command: agent.hookCommands.install, arguments: [] }
        : { command: 'agentRewind.setUpAgentCheckpoints', arguments: [{ agent: agent.id }] };
      children.push(new SetUpHooksNode(this, agent.displayName, setUp.command, setUp.arguments));
    }
    details.problems.forEach((problem, i) => children.push(new ProblemNode(this, problem, i)));
    if (this.forks.length) children.push(new ForksNode(this));
    return children;
  }
}

/** "Forks": the sessions forked from this one (Rewind to here on another agent's session, `claude --fork-session`),
 *  newest first, each with its own forks under it. */
export class ForksNode extends TreeNode {
  readonly id: string;
  constructor(readonly session: SessionNode) {
    super(session);
    this.id = `forks:${session.sessionRef}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    return {
      id: this.id,
      label: 'Forks',
      description: plural(this.session.forks.length, 'fork'),
      tooltip: 'Sessions forked from this one: each continues its conversation from an earlier message, in a session of its own.',
      contextValue: 'forks',
      collapsible: 'expanded',
      icon: { id: 'repo-forked' },
    };
  }

  override async getChildren(): Promise<TreeNode[]> {
    const all = await this.session.treeSource.listSessions();
    return newestFirst(this.session.forks).map((f) => new SessionNode(this.session.treeSource, f, forksOf(f, all), this, this.session.listing));
  }
}

export class BranchesNode extends TreeNode {
  readonly id: string;
  constructor(
    readonly session: SessionNode,
    readonly branches: BranchListing[],
  ) {
    super(session);
    this.id = `branches:${session.sessionRef}`;
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
    this.id = `branch:${group.session.sessionRef}#${branch.name}`;
  }

  get sessionRef(): string {
    return this.group.session.sessionRef;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { name, isActive, headPreview, messageCount, headEntryId } = this.branch;
    const readOnly = isReadOnlySource(this.group.session.listing.source);
    return {
      id: this.id,
      label: name,
      description: `${isActive ? 'active · ' : ''}${plural(messageCount, 'message')} · ${headPreview}`,
      tooltip: `Branch **${escapeMarkdown(name)}**${isActive ? ' (active)' : ''}\n\n${plural(messageCount, 'message')}, head \`${headEntryId}\`\n\n${escapeMarkdown(headPreview)}\n\nClick to show it in the transcript${readOnly || isActive ? '' : '; Switch Branch makes it the active one (files are not changed)'}.`,
      contextValue: readOnly ? 'branch.readonly' : isActive ? 'branch.active' : 'branch',
      collapsible: 'none',
      icon: isActive ? { id: 'pass-filled', color: 'charts.green' } : { id: 'git-branch' },
      // A click only shows the branch in the transcript, as a click on a branch in VS Code's Source Control graph
      // shows its commits without checking it out: switching is the explicit Switch Branch (inline, context menu, the
      // transcript's banner), which says the files stay as they are. Another agent's session is never switched.
      command: { command: 'agentRewind.showBranch', title: 'Show Branch', arguments: [this] },
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
    this.id = `checkpoints:${session.sessionRef}`;
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
    this.id = `checkpoint:${group.session.sessionRef}#named:${checkpoint.name}`;
  }

  get sessionRef(): string {
    return this.group.session.sessionRef;
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
    this.id = `checkpoint:${group.session.sessionRef}#file:${checkpoint.anchorEntryId}`;
  }

  get sessionRef(): string {
    return this.group.session.sessionRef;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    const { preview, files, anchorEntryId } = this.checkpoint;
    return {
      id: this.id,
      label: preview,
      // What the count is: "3 files" beside a prompt read as "3 files changed".
      description: `snapshot of ${plural(files, 'file')}`,
      tooltip: `A snapshot of the workspace (${plural(files, 'file')}) taken when this message was sent (\`${anchorEntryId}\`).\n\nRewind to here shows what would change first.`,
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
    readonly installArguments: unknown[] = [],
  ) {
    super(session);
    this.id = `setup-hooks:${session.sessionRef}`;
  }

  toTreeItem(_nowMs?: number): TreeItemSpec {
    return {
      id: this.id,
      label: `No file snapshots yet: set up ${this.agent} checkpoints`,
      tooltip: `Installs hooks that snapshot the workspace at every ${this.agent} prompt (shell changes included), so Rewind to here can restore the files exactly.`,
      contextValue: 'hint',
      collapsible: 'none',
      icon: { id: 'plug' },
      command: { command: this.installCommand, title: `Set Up ${this.agent} Checkpoints`, arguments: this.installArguments },
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
    this.id = `problem:${session.sessionRef}#${index}`;
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

/** The tree's roots: this workspace's sessions, newest first; a fork whose origin is listed is under its origin. */
export async function rootNodes(source: SessionTreeSource): Promise<SessionNode[]> {
  const sessions = await source.listSessions();
  return newestFirst(sessions.filter((s) => !hasListedOrigin(s, sessions))).map((listing) => new SessionNode(source, listing, forksOf(listing, sessions)));
}

function newestFirst(sessions: readonly SessionListing[]): SessionListing[] {
  return [...sessions].sort((a, b) => b.modifiedMs - a.modifiedMs || a.sessionRef.localeCompare(b.sessionRef));
}

/** The listed sessions forked from `session` (each shown once: under its origin). */
function forksOf(session: SessionListing, all: readonly SessionListing[]): SessionListing[] {
  return all.filter((s) => s.fork?.originSessionId === session.sessionId && s.sessionRef !== session.sessionRef && hasListedOrigin(s, all));
}

/** Whether a fork's origin is listed and reached from a root: forks naming each other in a loop stay at the root. */
function hasListedOrigin(session: SessionListing, all: readonly SessionListing[]): boolean {
  const seen = new Set<string>([session.sessionId]);
  let at = session;
  for (;;) {
    const originId = at.fork?.originSessionId;
    if (originId === undefined) return at !== session;
    if (seen.has(originId)) return false;
    seen.add(originId);
    const origin = all.find((s) => s.sessionId === originId);
    if (!origin) return at !== session;
    at = origin;
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
