// What a command was invoked on: a tree node (context menu, click), a plain object from a webview, another
// extension or a test ({ sessionRef, entryId }, { sessionRef, branch }), a URI of a session file, or nothing
// (the palette: the command then asks). Pure, so it is tested without VS Code.
import { BranchNode, BranchesNode, CheckpointsNode, FileCheckpointNode, NamedCheckpointNode, ProblemNode, SessionNode } from '../tree/nodes';

export interface EntryTarget {
  sessionRef: string;
  entryId: string;
}

export interface BranchTarget {
  sessionRef: string;
  branch?: string;
}

export interface CheckpointTarget {
  sessionRef: string;
  name?: string;
}

type Obj = Record<string, unknown>;

function asObject(arg: unknown): Obj | undefined {
  return arg !== null && typeof arg === 'object' ? (arg as Obj) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The session (its ref) a command argument points at, if any. */
export function sessionRefOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return str(arg);
  if (arg instanceof SessionNode) return arg.sessionRef;
  if (arg instanceof BranchesNode || arg instanceof CheckpointsNode) return arg.session.sessionRef;
  if (arg instanceof BranchNode || arg instanceof NamedCheckpointNode || arg instanceof FileCheckpointNode) return arg.sessionRef;
  if (arg instanceof ProblemNode) return arg.session.sessionRef;
  const o = asObject(arg);
  if (!o) return undefined;
  // A vscode.Uri (reveal/open from the explorer) carries fsPath; a plain ref carries sessionRef (`sessionFile` before
  // sessions were named by refs: keybindings and other extensions may still pass it).
  if (str(o.sessionRef)) return str(o.sessionRef);
  if (str(o.sessionFile)) return str(o.sessionFile);
  if (o.scheme === 'file' && str(o.fsPath)) return str(o.fsPath);
  return undefined;
}

export function entryTargetOf(arg: unknown): EntryTarget | undefined {
  if (arg instanceof FileCheckpointNode) return { sessionRef: arg.sessionRef, entryId: arg.checkpoint.anchorEntryId };
  if (arg instanceof NamedCheckpointNode) return { sessionRef: arg.sessionRef, entryId: arg.checkpoint.entryId };
  const o = asObject(arg);
  const sessionRef = sessionRefOf(arg);
  const entryId = str(o?.entryId) ?? str(o?.messageId) ?? str(o?.anchorEntryId);
  return sessionRef && entryId && !(arg instanceof SessionNode) ? { sessionRef, entryId } : undefined;
}

export function branchTargetOf(arg: unknown): BranchTarget | undefined {
  if (arg instanceof BranchNode) return { sessionRef: arg.sessionRef, branch: arg.branch.name };
  const sessionRef = sessionRefOf(arg);
  if (!sessionRef) return undefined;
  const o = asObject(arg);
  const branch = str(o?.branch) ?? str(o?.branchName);
  return branch && !(arg instanceof SessionNode) ? { sessionRef, branch } : { sessionRef };
}

export function checkpointTargetOf(arg: unknown): CheckpointTarget | undefined {
  if (arg instanceof NamedCheckpointNode) return { sessionRef: arg.sessionRef, name: arg.checkpoint.name };
  const sessionRef = sessionRefOf(arg);
  if (!sessionRef) return undefined;
  const o = asObject(arg);
  const name = str(o?.name) ?? str(o?.checkpoint);
  return name && !(arg instanceof SessionNode) ? { sessionRef, name } : { sessionRef };
}
