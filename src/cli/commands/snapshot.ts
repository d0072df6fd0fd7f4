// `agent-rewind snapshot <session> --anchor <userMessageId> [--workspace DIR]`: snapshot the workspace files now,
// anchored at a user message, so `rewind-files` can bring them back later.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { field } from '../terminal-text';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { warnOnStderr, withSessionArg } from '../session-arg';
import { cliCheckpointerOptions } from '../cli-settings';
import { anchorCheckFor } from '../../core/files/anchor-check';
import { snapshotAt } from '../../core/engine/record-message';
import type { SnapshotSummary } from '../../core/files';
import { openFileCheckpoints, type ServiceFirstCheckpoints } from '../../core/service/client';

/** The folder's checkpoints for this call: through the home's checkpoint service when it serves the folder, else
 *  in this process. */
export function checkpointerFor(ctx: CommandContext, session: { cwd: string }): ServiceFirstCheckpoints {
  const ws = typeof ctx.values.workspace === 'string' ? resolve(ctx.cwd, ctx.values.workspace) : session.cwd;
  let fc: ServiceFirstCheckpoints;
  try {
    // the extension's options for this folder, from the same settings (cli-settings.ts)
    // a CLI command owns the process's folder (it moves there below): the stat check may move on into each folder
    fc = openFileCheckpoints({ ...cliCheckpointerOptions(ctx.home, ws, warnOnStderr), shortLived: true, ownsProcessFolder: true });
  } catch (err) {
    throw new CliError(`${(err as Error).message} (pass --workspace DIR)`);
  }
  // every path argument is resolved against ctx.cwd already; from inside the workspace the scan can lstat short
  // relative paths, which spares the kernel a lookup of each parent folder on every one of 50,000 calls
  try {
    process.chdir(fc.workspaceRoot);
  } catch {
    /* absolute paths then */
  }
  return fc;
}

/**
 * Whether `append` snapshots a session's folder: without --workspace, a session whose folder does not exist (here) is
 * appended to without a snapshot, which is said to humans (--json callers get the entry, and the missing folder is
 * visible in the session header).
 */
export function snapshotFolderExists(ctx: CommandContext, session: { cwd: string }): boolean {
  if (typeof ctx.values.workspace === 'string' || existsSync(session.cwd)) return true;
  if (!ctx.json)
    process.stderr.write(`agent-rewind: note: no file snapshot: the session's folder ${field(session.cwd)} does not exist (pass --workspace DIR)\n`);
  return false;
}

export function describeSnapshot(s: SnapshotSummary): string {
  const lines = [
    `snapshot of ${s.files} files anchored at ${field(s.anchorId)}: ${s.newObjects} new objects (${s.newBytes} bytes stored), ${s.hashedFiles} files read`,
  ];
  for (const k of s.skipped) lines.push(`  skipped ${field(k.path)}: ${field(k.reason)}`);
  if (s.ignoredCount) lines.push(`  ${s.ignoredCount} paths left out by .gitignore or exclude globs`);
  for (const p of s.pruned) lines.push(`  dropped old snapshot ${field(p.anchorId)} (size cap)`);
  return lines.join('\n');
}

export const snapshotCommand: Command = {
  usage: 'snapshot <session> --anchor <userMessageId> [--workspace DIR]',
  options: { anchor: { type: 'string' }, workspace: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const anchor = ctx.values.anchor;
    if (typeof anchor !== 'string') throw new UsageError('missing --anchor <userMessageId>');
    await withSessionArg(ctx, ctx.positionals[0], async (session) => {
      const check = anchorCheckFor(session, anchor, true);
      if (check.kind === 'missing') throw new CliError(`there is no entry ${anchor} in session ${session.sessionId}`);
      if (check.kind !== 'user-message') throw new CliError(`entry ${anchor} is not a user message; snapshots are anchored at user messages`);
      const fc = checkpointerFor(ctx, session);
      try {
        const summary = await snapshotAt(session, anchor, 'user-message', fc);
        ctx.out(summary, () => describeSnapshot(summary));
      } finally {
        await fc.dispose();
      }
    });
  },
};
