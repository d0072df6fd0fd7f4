// What a command was invoked on: a tree node (context menu, click), a plain object from a webview, another
// extension or a test ({ sessionFile, entryId }, { sessionFile, branch }), a URI of a session file, or nothing
// (the palette: the command then asks). Pure, so it is tested without VS Code.
import { BranchNode, BranchesNode, CheckpointsNode, FileCheckpointNode, NamedCheckpointNode, ProblemNode, SessionNode } from '../tree/nodes';

export interface EntryTarget {
  sessionFile: string;
  entryId: string;
}

export interface BranchTarget {
  sessionFile: string;
  branch?: string;
}

export interface CheckpointTarget {
  sessionFile: string;
  name?: string;
}

type Obj = Record<string, unknown>;

function asObject(arg: unknown): Obj | undefined {
  return arg !== null && typeof arg === 'object' ? (arg as Obj) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The session file a command argument points at, if any. */
export function sessionFileOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return str(arg);
  if (arg instanceof SessionNode) return arg.sessionFile;
  if (arg instanceof BranchesNode || arg instanceof CheckpointsNode) return arg.session.sessionFile;
  if (arg instanceof BranchNode || arg instanceof NamedCheckpointNode || arg instanceof FileCheckpointNode) return arg.sessionFile;
  if (arg instanceof ProblemNode) return arg.session.sessionFile;
  const o = asObject(arg);
  if (!o) return undefined;
  // A vscode.Uri (reveal/open from the explorer) carries fsPath; a plain ref carries sessionFile.
  if (str(o.sessionFile)) return str(o.sessionFile);
  if (o.scheme === 'file' && str(o.fsPath)) return str(o.fsPath);
  return undefined;
}

export function entryTargetOf(arg: unknown): EntryTarget | undefined {
  if (arg instanceof FileCheckpointNode) return { sessionFile: arg.sessionFile, entryId: arg.checkpoint.anchorEntryId };
  if (arg instanceof NamedCheckpointNode) return { sessionFile: arg.sessionFile, entryId: arg.checkpoint.entryId };
  const o = asObject(arg);
  const sessionFile = sessionFileOf(arg);
  const entryId = str(o?.entryId) ?? str(o?.messageId) ?? str(o?.anchorEntryId);
  return sessionFile && entryId && !(arg instanceof SessionNode) ? { sessionFile, entryId } : undefined;
}

export function branchTargetOf(arg: unknown): BranchTarget | undefined {
  if (arg instanceof BranchNode) return { sessionFile: arg.sessionFile, branch: arg.branch.name };
  const sessionFile = sessionFileOf(arg);
  if (!sessionFile) return undefined;
  const o = asObject(arg);
  const branch = str(o?.branch) ?? str(o?.branchName);
  return branch && !(arg instanceof SessionNode) ? { sessionFile, branch } : { sessionFile };
}

export function checkpointTargetOf(arg: unknown): CheckpointTarget | undefined {
  if (arg instanceof NamedCheckpointNode) return { sessionFile: arg.sessionFile, name: arg.checkpoint.name };
  const sessionFile = sessionFileOf(arg);
  if (!sessionFile) return undefined;
  const o = asObject(arg);
  const name = str(o?.name) ?? str(o?.checkpoint);
  return name && !(arg instanceof SessionNode) ? { sessionFile, name } : { sessionFile };
}
