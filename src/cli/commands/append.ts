// `agent-rewind append <session> --role user|assistant --text TEXT [--id ID]`: appends a message as a child of the
// leaf, inside a cross-process transaction, and prints the new entry.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError, UsageError, type Command } from '../command';
import { withSessionArg } from '../session-arg';
import { checkpointerFor, snapshotFolderExists } from './snapshot';
import type { AgentMessage } from '../../core/session';
import { recordMessage } from '../../core/engine/record-message';
import type { ServiceFirstCheckpoints } from '../../core/service/client';

export interface AppendTextOptions {
  role: 'user' | 'assistant';
  text: string;
  id?: string;
}

/** The message `append` records for its options. */
export function textMessage(opts: AppendTextOptions): AgentMessage {
  return opts.role === 'user'
    ? { role: 'user', content: opts.text, timestamp: Date.now() }
    : { role: 'assistant', content: [{ type: 'text', text: opts.text }], timestamp: Date.now() };
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
      // the engine's own policy (record-message.ts): user message → its snapshot, assistant → the turn-end one
      let fc: ServiceFirstCheckpoints | undefined;
      try {
        const recorded = await recordMessage(session, textMessage(opts), {
          ...(opts.id !== undefined ? { id: opts.id } : {}),
          checkpointing: ctx.values['no-snapshot'] !== true && snapshotFolderExists(ctx, session),
          checkpoints: () => {
            try {
              return (fc = checkpointerFor(ctx, session));
            } catch (err) {
              return { unavailable: err as Error };
            }
          },
        });
        if (recorded.snapshotError)
          snapshotError = new CliError(`entry ${recorded.entryId} was appended, but the file snapshot failed: ${recorded.snapshotError.message}`);
        return session.getEntry(recorded.entryId)!;
      } finally {
        await fc?.dispose();
      }
    });
    // The message is saved even when its snapshot failed: print it, so a script does not append it a second time.
    const printed = snapshotError ? { ...entry, snapshotError: snapshotError.message } : entry;
    ctx.out(printed, () => `${entry.id} (parent ${entry.parentId ?? 'none'})`);
    if (snapshotError) throw snapshotError;
  },
};
