// `agent-rewind branches <session>`: the session's branches (docs/ARCHITECTURE.md, branches and checkpoints), active one marked.
// Also home to what the conversation-rewind commands share: a Conversation over <session>, the one-argument command
// shape of rewind/switch/checkpoint/restore, and printing a BranchInfo.
import type { Command } from '../command';
import { warnOnStderr, withSessionArg, withViewArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { Conversation, toBranchInfo, type BranchInfo } from '../../core/branches';
import { branchesOf } from '../../core/engine';
import type { SessionManager } from '../../core/session';

export function conversationOf(session: SessionManager): Conversation<SessionManager> {
  return new Conversation(session, { warn: warnOnStderr });
}

export function branchLine(b: BranchInfo): string {
  return `${b.isActive ? '*' : ' '} ${forTerminal(b.name, { oneLine: true })}  head=${b.headMessageId === null ? '(none)' : forTerminal(b.headMessageId, { oneLine: true })}  messages=${b.messageCount}`;
}

export interface ConversationCommandSpec<T> {
  name: string;
  /** The argument after <session>, as shown in usage, e.g. '<messageId>'. */
  argument: string;
  act(conversation: Conversation<SessionManager>, argument: string): Promise<T>;
  /** The human form of the result. */
  line(result: T): string;
}

/** A command `<name> <session> <argument>` that makes one Conversation call and prints its result. */
export function conversationCommand<T>(spec: ConversationCommandSpec<T>): Command {
  return {
    usage: `${spec.name} <session> ${spec.argument} [--json] [--home DIR]`,
    positionals: ['<session>', spec.argument],
    async run(ctx) {
      const [sessionArg, argument] = ctx.positionals as [string, string];
      const result = await withSessionArg(ctx, sessionArg, (session) => spec.act(conversationOf(session), argument));
      ctx.out(result, () => spec.line(result));
    },
  };
}

export const branchesCommand: Command = {
  usage: 'branches <session> [--json] [--home DIR]',
  positionals: ['<session>'],
  async run(ctx) {
    const branches = await withViewArg(ctx, ctx.positionals[0], async (session) => branchesOf(session, warnOnStderr).branches.map(toBranchInfo));
    ctx.out(branches, () => branches.map(branchLine).join('\n'));
  },
};
