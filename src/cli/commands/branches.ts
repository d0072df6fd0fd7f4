// `agent-rewind branches <session>`: the session's branches (seed 001 BranchInfo), active one marked.
// Also home to what the conversation-rewind commands share: opening <session> and printing a BranchInfo.
import { UsageError, type Command, type CommandContext } from '../command';
import { withSessionArg } from '../session-arg';
import { Conversation } from '../../core/branches/conversation';
import type { BranchInfo } from '../../core/branches/derive';
import type { SessionManager } from '../../core/session/session-manager';

/** Opens <session> through the shared resolver (id or .jsonl path; never creates a file), closed after fn. */
export function withCliSession<T>(ctx: CommandContext, arg: string | undefined, fn: (session: SessionManager) => Promise<T>): Promise<T> {
  return withSessionArg(ctx, arg, fn);
}

export function conversationOf(session: SessionManager): Conversation<SessionManager> {
  return new Conversation(session, { warn: (m) => process.stderr.write(`agent-rewind: warning: ${m}\n`) });
}

export function branchLine(b: BranchInfo): string {
  return `${b.isActive ? '*' : ' '} ${b.name}  head=${b.headMessageId ?? '(none)'}  messages=${b.messageCount}`;
}

export function requirePositional(ctx: CommandContext, index: number, what: string): string {
  const value = ctx.positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  if (ctx.positionals.length > index + 1) throw new UsageError(`unexpected argument "${ctx.positionals[index + 1]}"`);
  return value;
}

export const branchesCommand: Command = {
  name: 'branches',
  summary: 'list the conversation branches of a session (the active one marked *)',
  usage: 'branches <session> [--json]',
  async run(ctx) {
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const branches = await conversationOf(session).branches();
      ctx.out(branches, () => branches.map(branchLine).join('\n'));
    });
  },
};
