// `agent-rewind branches <session>`: the session's branches (docs/ARCHITECTURE.md, branches and checkpoints), active one marked.
// Also home to what the conversation commands share: the one-argument command shape of switch/checkpoint/restore
// (each one engine call, as the extension makes it), and printing a BranchInfo.
import type { Command } from '../command';
import { withEngine } from '../engine-arg';
import { resolveSessionArg, warnOnStderr, withViewArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { toBranchInfo, type BranchInfo } from '../../core/branches';
import { branchesOf, type RewindEngine } from '../../core/engine';

export function branchLine(b: BranchInfo): string {
  return `${b.isActive ? '*' : ' '} ${forTerminal(b.name, { oneLine: true })}  head=${b.headMessageId === null ? '(none)' : forTerminal(b.headMessageId, { oneLine: true })}  messages=${b.messageCount}`;
}

export interface ConversationCommandSpec<T> {
  name: string;
  /** The argument after <session>, as shown in usage, e.g. '<messageId>'. */
  argument: string;
  /** The engine call (the one the extension makes for the same action). */
  act(engine: RewindEngine, sessionRef: string, argument: string): Promise<T>;
  /** The human form of the result. */
  line(result: T): string;
}

/** A command `<name> <session> <argument>` that makes one engine call and prints its result. */
export function conversationCommand<T>(spec: ConversationCommandSpec<T>): Command {
  return {
    usage: `${spec.name} <session> ${spec.argument} [--json] [--home DIR]`,
    positionals: ['<session>', spec.argument],
    async run(ctx) {
      const [sessionArg, argument] = ctx.positionals as [string, string];
      const file = await resolveSessionArg(ctx, sessionArg);
      const result = await withEngine(ctx, file, (engine) => spec.act(engine, file, argument));
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
