// `agent-rewind rewind-files <session> <userMessageId> [--dry-run] [--workspace DIR] [--overwrite-user-modified]`:
// preview or perform the rewind of the workspace files to the moment a user message was sent.
import { field, forTerminal } from '../terminal-text';
import { CliError, UsageError, type Command } from '../command';
import { anchorCheckFor, type RewindFilesResult } from '../../core/files';
import { withViewArg } from '../session-arg';
import { filesAnchorOf } from '../../core/engine';
import { checkpointerFor } from './snapshot';

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
    await withViewArg(ctx, ctx.positionals[0], async (session) => {
      const fc = checkpointerFor(ctx, session);
      try {
        const opts = { dryRun, overwriteUserModified: ctx.values['overwrite-user-modified'] === true, anchor: anchorCheckFor(session, id, true) };
        let result: RewindFilesResult & { note?: string };
        try {
          const { key, note } = await filesAnchorOf(session, id, fc);
          result = { ...(await fc.rewindFiles(session.sessionId, key, opts)), ...(note ? { note } : {}) };
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        ctx.out(result, () => (result.note ? `note: ${result.note}\n` : '') + describeRewind(result, dryRun));
      } finally {
        await fc.dispose();
      }
    });
  },
};
