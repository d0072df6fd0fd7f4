// `agent-rewind compare <session> <branchA> <branchB> [--with SESSION] [--workspace DIR]`: two branches side by side —
// where they part, the messages each has after that, and the files that differ between their latest file snapshots
// (with +/− lines, from A to B). B is a branch of another session with --with (a session's fork, its origin, any
// other session of the folder: a Claude Code original has one branch and its rewinds continue in forks). Read-only,
// for any kind of session (Claude Code's too).
import { resolve } from 'node:path';
import { CliError, type Command } from '../command';
import { cliSettings, resolveSessionArg, warnOnStderr, withViewArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { RewindEngine } from '../../core/engine';
import { foreignSources } from '../../core/sources';
import type { BranchCompareModel, BranchCompareSide } from '../../shared/view-models';

const line = (text: string) => forTerminal(text, { oneLine: true });

function sideText(label: string, s: BranchCompareSide): string[] {
  const of = s.session ? ` of "${line(s.session.title)}" (${s.session.sessionId})` : '';
  const out = [
    `${label} ${line(s.name)}${of}${s.isActive ? ' (active)' : ''}: ${s.messages.length + s.omitted} message${s.messages.length + s.omitted === 1 ? '' : 's'} after it`,
  ];
  for (const m of s.messages) out.push(`    ${m.kind.padEnd(10)} ${m.entryId}  ${line(m.preview)}`);
  if (s.omitted) out.push(`    …and ${s.omitted} more`);
  out.push(
    s.snapshot
      ? `    files ${s.snapshot.kind === 'turn-end' ? 'as left after' : 'as of'}: ${s.snapshot.anchorEntryId}  ${line(s.snapshot.preview)}${s.snapshot.afterDivergence ? '' : ' (before the branches part)'}`
      : '    files as of: (no file snapshot on this branch)',
  );
  return out;
}

export function describeCompare(m: BranchCompareModel): string {
  const out = [
    `${line(m.title)}: ${line(m.a.name)} (A) vs ${line(m.b.name)} (B)${m.readOnly ? ` — ${line(m.readOnly.agent)} session, read-only` : ''}`,
    m.divergence ? `they part after: ${m.divergence.entryId}  ${line(m.divergence.preview)}` : 'they share no message',
    ...sideText('A', m.a),
    ...sideText('B', m.b),
  ];
  if (!m.files.ok) out.push(`files: ${line(m.files.error)}`);
  else if (m.files.files.length === 0)
    out.push(m.files.sameSnapshot ? 'files: both branches are at the same snapshot (taken before they part)' : 'files: no differences');
  else {
    out.push(`files: ${m.files.files.length} differ (+${m.files.insertions} −${m.files.deletions} lines from A to B)`);
    for (const f of m.files.files) out.push(`  ${f.status.padEnd(12)} ${line(f.path)}${f.binary ? ' (binary)' : ` +${f.insertions} −${f.deletions}`}`);
  }
  return out.join('\n');
}

export const compareCommand: Command = {
  usage: 'compare <session> <branchA> <branchB> [--with SESSION] [--workspace DIR] [--json] [--home DIR]',
  options: { with: { type: 'string' }, workspace: { type: 'string' } },
  positionals: ['<session>', '<branchA>', '<branchB>'],
  async run(ctx) {
    const [sessionArg, a, b] = ctx.positionals as [string, string, string];
    const file = await resolveSessionArg(ctx, sessionArg);
    const other = typeof ctx.values.with === 'string' ? await resolveSessionArg(ctx, ctx.values.with) : undefined;
    const cwd = await withViewArg(ctx, file, async (v) => v.cwd);
    const root = typeof ctx.values.workspace === 'string' ? resolve(ctx.cwd, ctx.values.workspace) : cwd;
    const engine = new RewindEngine({ settings: cliSettings(ctx), workspaceRoots: [root], foreignSources, warn: warnOnStderr });
    let model: BranchCompareModel;
    try {
      model = await engine.compareBranches(file, a, b, other === undefined ? {} : { sessionRefB: other });
    } catch (err) {
      throw new CliError((err as Error).message);
    } finally {
      await engine.dispose();
    }
    ctx.out(model, () => describeCompare(model));
  },
};
