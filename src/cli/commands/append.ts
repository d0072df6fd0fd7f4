// `agent-rewind append <session> --role user|assistant --text TEXT [--id ID]`: appends a message as a child of the
// leaf, inside a cross-process transaction, and prints the new entry.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError, UsageError, type Command } from '../command';
import { withSessionArg } from '../session-arg';
import { snapshotForAppend } from './snapshot';
import type { SessionManager, AgentMessage, SessionEntry } from '../../core/session';

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

/** --role, --id and the text: --text TEXT, or --text-file FILE ('-': standard input) for text longer than a command line
 *  may be (one argument is limited to 128 KiB on Linux). Usage mistakes are found before anything is read. */
export async function readAppendOptions(values: Record<string, unknown>, cwd: string): Promise<AppendTextOptions> {
  const role = values.role;
  if (role !== 'user' && role !== 'assistant')
    throw new UsageError(role === undefined ? 'missing --role user|assistant' : `--role must be user or assistant, not "${String(role)}"`);
  const textFile = values['text-file'];
  if (typeof values.text === 'string' && typeof textFile === 'string') throw new UsageError('--text and --text-file do not go together');
  if (typeof values.text !== 'string' && typeof textFile !== 'string') throw new UsageError('missing --text TEXT (or --text-file FILE, - for standard input)');
  const text = typeof values.text === 'string' ? values.text : await readTextFile(textFile as string, cwd);
  return { role, text, ...(typeof values.id === 'string' ? { id: values.id } : {}) };
}

async function readTextFile(file: string, cwd: string): Promise<string> {
  if (file === '-') {
    if (process.stdin.isTTY) process.stderr.write('agent-rewind: reading the text from standard input (end it with Ctrl-D)\n');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  const path = resolve(cwd, file);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --text-file ${path}: ${(err as Error).message}`);
  }
}

export const appendCommand: Command = {
  usage: 'append <session> --role user|assistant (--text TEXT | --text-file FILE|-) [--id ID] [--no-snapshot] [--workspace DIR] [--json] [--home DIR]',
  options: {
    role: { type: 'string' },
    text: { type: 'string' },
    'text-file': { type: 'string' },
    id: { type: 'string' },
    'no-snapshot': { type: 'boolean' },
    workspace: { type: 'string' },
  },
  positionals: ['<session>'],
  async run(ctx) {
    const opts = await readAppendOptions(ctx.values, ctx.cwd);
    let snapshotError: Error | undefined;
    const entry = await withSessionArg(ctx, ctx.positionals[0], async (session) => {
      const appended = await session.transaction((s) => appendTextMessage(s, opts));
      // file checkpointing (on by default for the CLI): user message → its snapshot, assistant → the turn-end one
      if (ctx.values['no-snapshot'] !== true) {
        try {
          await snapshotForAppend(ctx, session, appended, opts.role);
        } catch (err) {
          snapshotError = err as Error;
        }
      }
      return appended;
    });
    // The message is saved even when its snapshot failed: print it, so a script does not append it a second time.
    const printed = snapshotError ? { ...entry, snapshotError: snapshotError.message } : entry;
    ctx.out(printed, () => `${entry.id} (parent ${entry.parentId ?? 'none'})`);
    if (snapshotError) throw snapshotError;
  },
};
