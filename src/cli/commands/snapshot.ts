// `agent-rewind snapshot <session> --anchor <userMessageId> [--workspace DIR]`: snapshot the workspace files now,
// anchored at a user message, so `rewind-files` can bring them back later.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { SessionManager } from '../../core/session';
import { anchorCheckFor, FileCheckpointer, type SnapshotSummary } from '../../core/files';

/** Opens the session named by a .jsonl path (an id is resolved by the session-store resolver once it lands). */
export async function openSessionArg(ctx: CommandContext, arg: string | undefined): Promise<SessionManager> {
  if (!arg) throw new UsageError('missing <session> (a session id or a .jsonl path)');
  const file = resolve(ctx.cwd, arg);
  if (!existsSync(file)) throw new CliError(`no session file ${file}`);
  return SessionManager.open(file, { home: ctx.home, deferUntilAssistant: false });
}

export function checkpointerFor(ctx: CommandContext, session: SessionManager): FileCheckpointer {
  const ws = typeof ctx.values.workspace === 'string' ? resolve(ctx.cwd, ctx.values.workspace) : session.cwd;
  if (!existsSync(ws)) throw new CliError(`workspace folder ${ws} does not exist (pass --workspace DIR)`);
  return new FileCheckpointer({ workspaceRoot: ws, home: ctx.home });
}

export function describeSnapshot(s: SnapshotSummary): string {
  const lines = [`snapshot of ${s.files} files anchored at ${s.anchorId}: ${s.newObjects} new objects (${s.newBytes} bytes stored), ${s.hashedFiles} files read`];
  for (const k of s.skipped) lines.push(`  skipped ${k.path}: ${k.reason}`);
  if (s.ignoredCount) lines.push(`  ${s.ignoredCount} paths left out by .gitignore or exclude globs`);
  for (const p of s.pruned) lines.push(`  dropped old snapshot ${p.anchorId} (size cap)`);
  return lines.join('\n');
}

export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: 'snapshot the workspace files, anchored at a user message',
  usage: 'snapshot <session> --anchor <userMessageId> [--workspace DIR]',
  options: { anchor: { type: 'string' }, workspace: { type: 'string' } },
  async run(ctx) {
    const session = await openSessionArg(ctx, ctx.positionals[0]);
    const anchor = ctx.values.anchor;
    if (typeof anchor !== 'string') throw new UsageError('missing --anchor <userMessageId>');
    const check = anchorCheckFor(session, anchor, true);
    if (check.kind === 'missing') throw new CliError(`there is no entry ${anchor} in session ${session.sessionId}`);
    if (check.kind !== 'user-message') throw new CliError(`entry ${anchor} is not a user message; snapshots are anchored at user messages`);
    const fc = checkpointerFor(ctx, session);
    try {
      const summary = await fc.snapshot(session.sessionId, anchor, 'user-message');
      ctx.out(summary, () => describeSnapshot(summary));
    } finally {
      await fc.dispose();
    }
  },
};
