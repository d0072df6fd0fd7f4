// `agent-rewind undo-rewind <session> [--workspace DIR]`: undo the last rewind of a session as a whole: the files go
// back as they were before it (files changed by hand since are kept) and, after `rewind --files` (or Rewind to here in
// VS Code), the session returns to the branch it was on; the branch the rewind made stays. `redo-rewind` applies it
// again. A file rewind made with `rewind-files` is undone alone.
import type { Command } from '../command';
import { withEngine } from '../engine-arg';
import { resolveSessionArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import type { UndoOutcome } from '../../core/engine';
import { countOf } from './rewind-files';

export function describeUndo(r: UndoOutcome, verb: string): string {
  const lines = [`${verb} ${countOf(r.filesChanged.length, 'file')}${r.branch ? `; now on branch ${r.branch}` : ''}`];
  for (const p of r.filesChanged) lines.push(`  ${p}`);
  if (r.userModified.length) lines.push(`left as they are (changed by hand since): ${r.userModified.join(', ')}`);
  return lines.map((l) => forTerminal(l, { oneLine: true })).join('\n');
}

export const undoRewindCommand: Command = {
  usage: 'undo-rewind <session> [--workspace DIR] [--json] [--home DIR]',
  options: { workspace: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    const result = await withEngine(ctx, file, (engine) => engine.undoLastRewind(file));
    ctx.out(result, () => describeUndo(result, 'put back'));
  },
};
