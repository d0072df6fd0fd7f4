// `agent-rewind rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified]
// [--include-other-sessions] [--only PATH]... [--hunks PATH:I,J[@HASH]]...`: preview or perform the rewind of the
// workspace files to the moment a user message was sent. By default only this session's own changes are rewound; the
// user's and other sessions' are kept unless asked. --only and --hunks choose exactly what comes back, whole files or
// some hunks of a file (numbered as a dry run lists them), as the preview's ticks do.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { field } from '../terminal-text';
import { CliError, UsageError, type Command } from '../command';
import type { FileChange, FileHunk, FileHunks, HunkSelection, RewindFilesResult } from '../../core/files';
import { resolveSessionArg } from '../session-arg';
import { withEngine } from '../engine-arg';
import { recoveryLine } from '../../core/engine';

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
export function describeRewind(r: RewindFilesResult, dryRun: boolean, root: string | undefined, hunks: readonly FileHunks[] = []): string {
  const hunkCounts = new Map(hunks.flatMap((h) => (h.ok && h.hunks.length > 1 ? [[h.path, h.hunks.length] as const] : [])));
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
    const split = hunkCounts.get(f.path);
    const part = f.partial
      ? `  (${f.partial.hunks.length === 1 ? 'hunk' : 'hunks'} ${f.partial.hunks.join(', ')} of ${f.partial.of})`
      : split
        ? `  (${split} hunks: --hunks ${f.path}:1,…)`
        : '';
    lines.push(`  ${action.padEnd(width)}  ${field(f.path)}${f.binary ? '  (binary)' : counts}${part}`);
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
export function workspacePath(root: string, cwd: string, typed: string, option = '--only'): string {
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
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new CliError(`${option} ${typed}: not a path inside the workspace ${root}`);
  return rel.split(sep).join('/');
}

/**
 * `--hunks PATH:I,J,...[@HASH]`: some hunks of a file, numbered from 1 as `--dry-run` lists them; with the hash
 * `--dry-run --json` gave (`hunksHash`), the rewind refuses when the file is no longer those bytes (else the hunks are
 * those of the file as it is when the rewind runs). The path is what comes before the last ':' that is followed by
 * numbers, so a path may hold ':' itself.
 */
export function parseHunksArg(root: string, cwd: string, typed: string): HunkSelection {
  const m = /^(.+):([0-9]+(?:,[0-9]+)*)(?:@([0-9a-f]{64}))?$/.exec(typed);
  if (!m)
    throw new UsageError(
      `--hunks ${typed}: expected PATH:N[,N...] (hunks numbered from 1 as --dry-run lists them), optionally @HASH (hunksHash from --dry-run --json)`,
    );
  const hunks = [...new Set(m[2]!.split(',').map(Number))].sort((a, b) => a - b);
  if (hunks.includes(0)) throw new UsageError(`--hunks ${typed}: hunks are numbered from 1`);
  return { path: workspacePath(root, cwd, m[1]!, '--hunks'), hunks, ...(m[3] ? { hash: m[3] } : {}) };
}

/** A listed file with its hunks (or why it has none to choose from), as `--dry-run --json` gives it. */
type FileWithHunks = FileChange & ({ hunksHash: string; hunks: FileHunk[] } | { hunksUnavailable: string });

/** Why a file that is not a modified text file has no hunks (hunks.ts's words for the same cases). */
function wholeOnlyReason(f: FileChange): string {
  if (f.binary) return 'binary: whole file only';
  if (f.status === 'added') return 'new since the message: whole file only';
  if (f.status === 'deleted') return 'deleted since the message: whole file only';
  if (f.status === 'modeChanged') return 'only its permissions changed: whole file only';
  return 'not a regular file at both ends (a folder or a symlink): whole file only';
}

function withHunks(files: readonly FileChange[], hunks: readonly FileHunks[]): FileWithHunks[] {
  const byPath = new Map(hunks.map((h) => [h.path, h]));
  return files.map((f) => {
    const h = byPath.get(f.path);
    if (!h) return { ...f, hunksUnavailable: wholeOnlyReason(f) };
    return h.ok ? { ...f, hunksHash: h.hash, hunks: h.hunks } : { ...f, hunksUnavailable: h.reason };
  });
}

export const rewindFilesCommand: Command = {
  usage:
    'rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified] [--include-other-sessions] [--only PATH]... [--hunks PATH:N,N...[@HASH]]...',
  options: {
    'dry-run': { type: 'boolean' },
    workspace: { type: 'string' },
    'overwrite-user-modified': { type: 'boolean' },
    'include-other-sessions': { type: 'boolean' },
    only: { type: 'string', multiple: true },
    hunks: { type: 'string', multiple: true },
  },
  positionals: ['<session>', '<userMessageId>'],
  async run(ctx) {
    const id = ctx.positionals[1];
    if (!id) throw new UsageError('missing <userMessageId>');
    const dryRun = ctx.values['dry-run'] === true;
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    // through the engine, as the extension's rewindFiles: a real rewind goes into the folder's rewind log
    const { result, root, hunks } = await withEngine(ctx, file, async (engine) => {
      const root = await engine.workspaceRootOf(file);
      const paths = ctx.values.only as string[] | undefined;
      const only = paths && root ? paths.map((p) => workspacePath(root, ctx.cwd, p)) : undefined;
      const typedHunks = ctx.values.hunks as string[] | undefined;
      const chosenHunks = typedHunks && root ? typedHunks.map((h) => parseHunksArg(root, ctx.cwd, h)) : undefined;
      const result = await engine.rewindFiles(file, id, {
        dryRun,
        overwriteUserModified: ctx.values['overwrite-user-modified'] === true,
        includeOtherSessions: ctx.values['include-other-sessions'] === true,
        ...(only ? { only } : {}),
        ...(chosenHunks ? { hunks: chosenHunks } : {}),
      });
      // a dry run lists each file's hunks, numbered as --hunks takes them (the same computation as the rewind's)
      // (only modified text files can have any: the others are said so without reading them)
      const splittable = result.files.filter((f) => f.status === 'modified' && !f.binary).map((f) => f.path);
      const hunks = dryRun && result.canRewind && splittable.length > 0 ? await engine.fileHunks(file, id, splittable) : [];
      return { result, root, hunks };
    });
    // a rewind that cannot be done is an error, dry run or not: stderr and exit 1, nothing on stdout
    if (!result.canRewind) throw new CliError(result.error ?? 'the files cannot be rewound to that message');
    const shown = dryRun ? { ...result, files: withHunks(result.files, hunks) } : result;
    ctx.out(
      shown,
      () =>
        (result.recoveryFirst ? `first: ${field(recoveryLine(result.recoveryFirst))}\n` : '') +
        (result.note ? `note: ${result.note}\n` : '') +
        describeRewind(result, dryRun, root, hunks),
    );
  },
};
