// `agent-rewind append <session> --role user|assistant --text TEXT [--id ID]`: appends a message as a child of the
// leaf, inside a cross-process transaction, and prints the new entry.
import { UsageError, type Command } from '../command';
import { withSessionArg } from '../session-arg';
import { snapshotForAppend } from './snapshot';
import type { SessionManager } from '../../core/session/session-manager';
import type { AgentMessage, SessionEntry } from '../../core/session/types';

export interface AppendTextOptions {
  role: 'user' | 'assistant';
  text: string;
  id?: string;
}

/** The whole of what `append` does to a session. One function on purpose: features that must run around a user
 *  message (e.g. a file snapshot keyed by its id) wrap this call. Call it inside session.transaction(). */
export function appendTextMessage(session: SessionManager, opts: AppendTextOptions): SessionEntry {
  const message: AgentMessage =
    opts.role === 'user'
      ? { role: 'user', content: opts.text, timestamp: Date.now() }
      : { role: 'assistant', content: [{ type: 'text', text: opts.text }], timestamp: Date.now() };
  const id = session.appendMessage(message, opts.id === undefined ? {} : { id: opts.id });
  return session.getEntry(id)!;
}

export function parseAppendOptions(values: Record<string, unknown>): AppendTextOptions {
  const role = values.role;
  if (role !== 'user' && role !== 'assistant') throw new UsageError(role === undefined ? 'missing --role user|assistant' : `--role must be user or assistant, not "${String(role)}"`);
  if (typeof values.text !== 'string') throw new UsageError('missing --text TEXT');
  return { role, text: values.text, ...(typeof values.id === 'string' ? { id: values.id } : {}) };
}

export const appendCommand: Command = {
  name: 'append',
  summary: 'append a user or assistant message to a session',
  usage: 'append <session> --role user|assistant --text TEXT [--id ID] [--no-snapshot] [--workspace DIR] [--json] [--home DIR]',
  options: { role: { type: 'string' }, text: { type: 'string' }, id: { type: 'string' }, 'no-snapshot': { type: 'boolean' }, workspace: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const opts = parseAppendOptions(ctx.values);
    const entry = await withSessionArg(ctx, ctx.positionals[0], async (session) => {
      const appended = await session.transaction((s) => appendTextMessage(s, opts));
      // file checkpointing (on by default for the CLI): user message → its snapshot, assistant → the turn-end one
      if (ctx.values['no-snapshot'] !== true) await snapshotForAppend(ctx, session, appended, opts.role);
      return appended;
    });
    ctx.out(entry, () => `${entry.id} (parent ${entry.parentId ?? 'none'})`);
  },
};
