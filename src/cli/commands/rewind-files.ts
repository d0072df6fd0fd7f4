// `agent-rewind rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified]
// [--include-other-sessions]`: preview or perform the rewind of the workspace files to the moment a user message was
// sent. By default only this session's own changes are rewound; the user's and other sessions' are kept unless asked.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { field } from '../terminal-text';
import { CliError, UsageError, type Command } from '../command';
import type { FileChange, RewindFilesResult } from '../../core/files';
import { resolveSessionArg } from '../session-arg';
import { withEngine } from '../engine-arg';

/** "1 file", "2 files". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the rewind does to a file, from what happened to it since the message (the plan's status). */
const ACTIONS: Record<FileChange['status'], { done: string; todo: string }> = {
  added: { done: 'deleted', todo: 'delete' },
  deleted: { done: 're-created', todo: 're-create' },
  modified: { done: 'restored', todo: 'restore' },
  typeChanged: { done: 'replaced', todo: 'replace' },
  modeChanged: { done: 'mode reset', todo: 'reset mode' },
};

/** What a rewind of the files did (or, dry run, would do) in `root`, file by file, in the words of what it does. */
export function describeRewind(r: RewindFilesResult, dryRun: boolean, root: string | undefined): string {
  const where = root ? `in ${field(root)}: ` : '';
  const applied = new Set(r.filesChanged);
  const acted = r.files.filter((f) => applied.has(f.path));
  const lines: string[] = [];
  if (acted.length === 0)
    lines.push(`${where}${dryRun ? 'nothing to rewind' : 'nothing rewound'}: every file the rewind may change is as it was at that message`);
  else {
    const lineCounts =
      r.insertions || r.deletions ? ` (${countOf(r.insertions, 'line')} added since taken out, ${countOf(r.deletions, 'line')} removed since put back)` : '';
    lines.push(`${where}${dryRun ? 'would rewind' : 'rewound'} ${countOf(acted.length, 'file')}${lineCounts}`);
  }
  const width = Math.max(0, ...acted.map((f) => (dryRun ? ACTIONS[f.status].todo : ACTIONS[f.status].done).length));
  for (const f of acted) {
    const action = dryRun ? ACTIONS[f.status].todo : ACTIONS[f.status].done;
    const counts = f.binary || f.status === 'modeChanged' || f.status === 'typeChanged' ? '' : `  +${f.insertions} −${f.deletions}`;
    lines.push(`  ${action.padEnd(width)}  ${field(f.path)}${f.binary ? '  (binary)' : counts}`);
  }
  const leftAlone = r.files.filter((f) => !applied.has(f.path));
  const byHand = leftAlone.filter((f) => f.userModified);
  if (byHand.length) {
    const why = byHand.some((f) => f.changedBy === 'user') ? 'you changed them since, outside any agent turn' : "changed by hand after the agent's last turn";
    lines.push(`left as they are (${why}; --overwrite-user-modified rewinds them too):`);
    for (const f of byHand) lines.push(`  ${field(f.path)}`);
  }
  const byOthers = leftAlone.filter((f) => f.changedBy === 'other-session' || f.changedBy === 'several');
  if (byOthers.length) {
    lines.push('left as they are (another session changed them since; --include-other-sessions rewinds them too):');
    for (const f of byOthers) {
      const who =
        f.changedBy === 'other-session'
          ? `session ${field(f.otherSession ?? '?')}, prompt ${field(f.otherPrompt ?? '?')}`
          : `while sessions ${(f.sessions ?? []).map((x) => field(x)).join(', ')} worked at once`;
      lines.push(`  ${field(f.path)}  (${who})`);
    }
  }
  for (const s of r.skipped) lines.push(`  skipped ${field(s.path)}: ${field(s.reason)}`);
  if (!dryRun && acted.length) lines.push('undo-rewind puts them back');
  return lines.join('\n');
}

/**
 * A path typed in a terminal (relative to its folder, or absolute) as the workspace-relative path the rewind takes.
 * The file may be gone now (a rewind brings deleted files back), so only the part that exists is resolved.
 */
export function workspacePath(root: string, cwd: string, typed: string): string {
  let existing = resolve(cwd, typed);
  const rest: string[] = [];
  for (;;) {
    try {
      existing = realpathSync(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
  const rel = relative(root, join(existing, ...rest));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new CliError(`--only ${typed}: not a path inside the workspace ${root}`);
  return rel.split(sep).join('/');
}

export const rewindFilesCommand: Command = {
  usage: 'rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified] [--include-other-sessions] [--only PATH]...',
  options: {
    'dry-run': { type: 'boolean' },
    workspace: { type: 'string' },
    'overwrite-user-modified': { type: 'boolean' },
    'include-other-sessions': { type: 'boolean' },
    only: { type: 'string', multiple: true },
  },
  positionals: ['<session>', '<userMessageId>'],
  async run(ctx) {
    const id = ctx.positionals[1];
    if (!id) throw new UsageError('missing <userMessageId>');
    const dryRun = ctx.values['dry-run'] === true;
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    // through the engine, as the extension's rewindFiles: a real rewind goes into the folder's rewind log
    const { result, root } = await withEngine(ctx, file, async (engine) => {
      const root = await engine.workspaceRootOf(file);
      const paths = ctx.values.only as string[] | undefined;
      const only = paths && root ? paths.map((p) => workspacePath(root, ctx.cwd, p)) : undefined;
      const result = await engine.rewindFiles(file, id, {
        dryRun,
        overwriteUserModified: ctx.values['overwrite-user-modified'] === true,
        includeOtherSessions: ctx.values['include-other-sessions'] === true,
        ...(only ? { only } : {}),
      });
      return { result, root };
    });
    // a rewind that cannot be done is an error, dry run or not: stderr and exit 1, nothing on stdout
    if (!result.canRewind) throw new CliError(result.error ?? 'the files cannot be rewound to that message');
    ctx.out(result, () => (result.note ? `note: ${result.note}\n` : '') + describeRewind(result, dryRun, root));
  },
};
