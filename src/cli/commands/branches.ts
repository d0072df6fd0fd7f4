// `agent-rewind branches <session>`: the session's branches (seed 001 BranchInfo), active one marked.
// Also home to what the conversation-rewind commands share: opening <session> and printing a BranchInfo.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { Conversation } from '../../core/branches/conversation';
import type { BranchInfo } from '../../core/branches/derive';
import { SessionManager } from '../../core/session/session-manager';
import { sessionsRoot } from '../../core/session/paths';

/** <session> = a .jsonl path, or a session id searched in <home>/sessions/*. Never creates a file. */
export async function resolveSessionFile(ctx: CommandContext, arg: string | undefined): Promise<string> {
  if (!arg) throw new UsageError('missing <session> (a session id or a .jsonl path)');
  if (arg.endsWith('.jsonl') || arg.includes('/') || arg.includes('\\')) {
    const file = resolve(ctx.cwd, arg);
    if (!existsSync(file)) throw new CliError(`Session file not found: ${file}`);
    return file;
  }
  const root = sessionsRoot(ctx.home);
  let folders: string[] = [];
  try {
    folders = await readdir(root);
  } catch {
    // no sessions yet
  }
  for (const folder of folders) {
    let names: string[];
    try {
      names = await readdir(join(root, folder));
    } catch {
      continue;
    }
    const hit = names.find((n) => n.endsWith(`_${arg}.jsonl`));
    if (hit) return join(root, folder, hit);
  }
  throw new CliError(`Session "${arg}" not found in ${root}`);
}

/** Opens <session> the way every CLI call does: no deferred writes, closed (flushed) after fn. */
export async function withCliSession<T>(ctx: CommandContext, arg: string | undefined, fn: (session: SessionManager) => Promise<T>): Promise<T> {
  const session = await SessionManager.open(await resolveSessionFile(ctx, arg), { home: ctx.home, deferUntilAssistant: false });
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
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
  summary: 'List the conversation branches of a session (the active one marked *)',
  usage: 'branches <session> [--json]',
  async run(ctx) {
    await withCliSession(ctx, ctx.positionals[0], async (session) => {
      const branches = await conversationOf(session).branches();
      ctx.out(branches, () => branches.map(branchLine).join('\n'));
    });
  },
};
