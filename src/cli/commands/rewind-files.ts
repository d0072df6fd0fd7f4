// `agent-rewind rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified]`:
// preview or perform the rewind of the workspace files to the moment a user message was sent.
import { field, forTerminal } from '../terminal-text';
import { UsageError, type Command } from '../command';
import type { RewindFilesResult } from '../../core/files';
import { resolveSessionArg } from '../session-arg';
import { withEngine } from '../engine-arg';

export function describeRewind(r: RewindFilesResult, dryRun: boolean): string {
  if (!r.canRewind) return `cannot rewind files: ${forTerminal(r.error ?? '')}`;
  const lines = [`${dryRun ? 'would change' : 'changed'} ${r.filesChanged.length} files (+${r.insertions} −${r.deletions} lines undone)`];
  const applied = new Set(r.filesChanged);
  for (const f of r.files) {
    const mark = applied.has(f.path) ? ' ' : '!';
    lines.push(
      ` ${mark} ${f.status.padEnd(11)} ${field(f.path)}${f.binary ? ' (binary)' : ` +${f.insertions} −${f.deletions}`}${f.userModified ? '  [changed by hand after the last turn]' : ''}`,
    );
  }
  if (r.userModified.length && r.userModified.some((p) => !applied.has(p)))
    lines.push("files marked ! were changed after the agent's last turn and are left alone; pass --overwrite-user-modified to rewind them too");
  for (const s of r.skipped) lines.push(`  skipped ${field(s.path)}: ${field(s.reason)}`);
  return lines.join('\n');
}

export const rewindFilesCommand: Command = {
  usage: 'rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified]',
  options: { 'dry-run': { type: 'boolean' }, workspace: { type: 'string' }, 'overwrite-user-modified': { type: 'boolean' } },
  positionals: ['<session>', '<userMessageId>'],
  async run(ctx) {
    const id = ctx.positionals[1];
    if (!id) throw new UsageError('missing <userMessageId>');
    const dryRun = ctx.values['dry-run'] === true;
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    // through the engine, as the extension's rewindFiles: a real rewind goes into the folder's rewind log
    const result = await withEngine(ctx, file, (engine) =>
      engine.rewindFiles(file, id, { dryRun, overwriteUserModified: ctx.values['overwrite-user-modified'] === true }),
    );
    ctx.out(result, () => (result.note ? `note: ${result.note}\n` : '') + describeRewind(result, dryRun));
  },
};
