// `agent-rewind history <path>` and `agent-rewind blame <path>`: which prompts (any agent's) changed a file, newest
// first with their diffs, and per line which prompt last wrote it, or "you". From the folder's timeline of
// snapshots, not git: it works without git and before any commit. The folder is --workspace, else the nearest folder
// above the file that has a checkpoint store.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { withEngineIn } from '../engine-arg';
import { field } from '../terminal-text';
import { defaultStoreDir } from '../../core/files';
import type { NamedOwner } from '../../core/engine';

/** The folder whose timeline holds `file`: --workspace, else the nearest folder above it with a checkpoint store. */
function folderOf(ctx: CommandContext, file: string): string {
  if (typeof ctx.values.workspace === 'string') {
    const ws = resolve(ctx.cwd, ctx.values.workspace);
    const rel = relative(ws, file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new CliError(`${file} is not inside --workspace ${ws}`);
    return ws;
  }
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(defaultStoreDir(ctx.home, dir))) return dir;
    if (dirname(dir) === dir) throw new CliError(`no folder above ${file} has file snapshots in ${ctx.home} (name it with --workspace)`);
  }
}

/** A prompt as a person reads it: its agent and session, and its user message id (what `tree` and `rewind-files` take). */
export function ownerText(o: NamedOwner): string {
  if (o.by === 'user') return 'you';
  if (o.by === 'several') return `several sessions at once (${o.sessions.map((s) => field(s)).join(', ')})`;
  return `${o.agent ? `${field(o.agent)} ` : ''}session ${field(o.sessionId)}, prompt ${field(o.messageId ?? o.prompt)}`;
}

function pathArg(ctx: CommandContext): string {
  const p = ctx.positionals[0];
  if (!p) throw new UsageError('missing <path>');
  return resolve(ctx.cwd, p);
}

export const historyCommand: Command = {
  usage: 'history <path> [--workspace DIR] [--json]',
  options: { workspace: { type: 'string' } },
  positionals: ['<path>'],
  async run(ctx) {
    const file = pathArg(ctx);
    const h = await withEngineIn(ctx, folderOf(ctx, file), (engine) => engine.fileHistory(file));
    ctx.out(h, () => {
      if (h.entries.length === 0) return `${field(h.path)}: no change on the timeline (no snapshot shows it changing)`;
      return h.entries
        .map((e) => {
          const what = e.status === 'renamed' ? `renamed ${field(e.from ?? '?')} →` : e.status;
          const counts = e.binary ? 'binary' : `+${e.insertions} −${e.deletions}`;
          const when = e.at === 'now' ? 'since the last snapshot' : field(e.at);
          return [`${when}  ${ownerText(e.owner)}`, `  ${what} ${field(e.path)}  ${counts}`, ...e.diff.split('\n').map((l) => `    ${field(l)}`)].join('\n');
        })
        .join('\n\n');
    });
  },
};

export const blameCommand: Command = {
  usage: 'blame <path> [--workspace DIR] [--json]',
  options: { workspace: { type: 'string' } },
  positionals: ['<path>'],
  async run(ctx) {
    const file = pathArg(ctx);
    const b = await withEngineIn(ctx, folderOf(ctx, file), (engine) => engine.blame(file));
    ctx.out(b, () => {
      const labels = b.lines.map((l) => ownerText(l.owner));
      const width = Math.max(0, ...labels.map((s) => s.length));
      return b.lines.map((l, i) => `${labels[i]!.padEnd(width)}  ${String(l.line).padStart(4)}  ${field(l.text)}`).join('\n');
    });
  },
};
