// The files Codex's apply_patch calls wrote (SourceAdapter.filesWrittenByTurn for Codex): the patch text names every
// file it adds, updates, deletes or moves to in its headers, whichever way the call came (the freeform
// `custom_tool_call`, the older `function_call` with the patch as `input`, or a shell call running `apply_patch`).
// Shell commands' other writes are not in the rollout, so they claim nothing.
import { isAbsolute, resolve } from 'node:path';

/** `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`: a header line of the patch
 *  grammar; a hunk's own lines start with ' ', '+', '-' or '@@', so none of them is read as a header. */
const HEADER = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;

/** The paths a patch's headers name, as written (relative to the folder the call ran in, or absolute). */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const line of patch.split('\n')) {
    const m = HEADER.exec(line.replace(/\r$/, ''));
    const path = m?.[1]!.trim();
    if (path) out.push(path);
  }
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The patch a shell call runs through `apply_patch`: `["apply_patch", patch]` (the `shell` tool's argv) or a command
 *  line starting with `apply_patch` (a heredoc), which Codex itself takes as an apply_patch call. */
function shellPatch(args: Record<string, unknown>): string | undefined {
  const argv = args.command;
  if (Array.isArray(argv) && argv[0] === 'apply_patch') return str(argv[1]);
  const cmd = str(args.cmd) ?? (Array.isArray(argv) && argv[0] === 'bash' && argv[1] === '-lc' ? str(argv[2]) : undefined);
  return cmd !== undefined && /^\s*apply_patch\b/.test(cmd) ? cmd : undefined;
}

/** The paths one of the session's tool calls wrote by its patch (WrittenPathsOf): absolute where the call names the
 *  folder it ran in (`workdir`, a local shell's `working_directory`), else as the patch writes them (taken from the session's folder by the caller). */
export function codexWrittenPaths(name: string, args: Record<string, unknown>): string[] {
  const patch = name === 'apply_patch' ? (str(args.input) ?? str(args.patch)) : shellPatch(args);
  if (patch === undefined) return [];
  const workdir = str(args.workdir) ?? str(args.working_directory);
  const paths = patchPaths(patch);
  return workdir !== undefined && isAbsolute(workdir) ? paths.map((p) => resolve(workdir, p)) : paths;
}
