// `agent-rewind state <session> [--at ID]`: session state (three scopes) and artifact versions as of an entry.
import { scopeOf } from '../../core/state';
import { CliError, type Command, type CommandContext } from '../command';
import { withEngine } from '../engine-arg';
import { foreignAdaptersFor, resolveSessionArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import { foreignOwner, readFirstLine, agentName } from '../../core/sources';

/** Session state and artifacts are records of ours: another agent's session has none, which is said plainly. */
async function refuseForeign(ctx: CommandContext, arg: string | undefined): Promise<void> {
  const file = await resolveSessionArg(ctx, arg);
  const owner = foreignOwner(foreignAdaptersFor(ctx), file, await readFirstLine(file));
  if (!owner) return;
  const agent = agentName(owner.kinds[0]!);
  throw new CliError(`state does not apply to ${agent} sessions: session state and artifacts are agent-rewind's own records, and a ${agent} session has none`);
}

export const stateCommand: Command = {
  usage: 'state <session> [--at ENTRY_ID] [--json] [--home DIR]',
  options: { at: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const at = typeof ctx.values.at === 'string' ? ctx.values.at : undefined;
    await refuseForeign(ctx, ctx.positionals[0]);
    const file = await resolveSessionArg(ctx, ctx.positionals[0]);
    await withEngine(ctx, file, async (engine) => {
      const snap = await engine.stateOf(file, at);
      const result = {
        entryId: snap.entryId,
        invocationId: snap.invocationId,
        state: snap.state,
        artifacts: snap.artifacts.map(({ name, version, mimeType, size, blob, restoredFrom }) => ({
          name,
          version,
          mimeType,
          size,
          blob,
          ...(restoredFrom ? { restoredFrom } : {}),
        })),
      };
      ctx.out(result, () => {
        const lines = [`as of ${snap.entryId ?? '(empty session)'} (invocation ${snap.invocationId ?? 'none'})`];
        const keys = Object.keys(snap.state).sort();
        lines.push(keys.length ? 'state:' : 'state: (empty)');
        for (const key of keys) lines.push(`  [${scopeOf(key)}] ${key} = ${JSON.stringify(snap.state[key])}`);
        lines.push(snap.artifacts.length ? 'artifacts:' : 'artifacts: (none)');
        for (const a of snap.artifacts)
          lines.push(`  ${a.name} v${a.version} ${a.mimeType} ${a.size} B${a.restoredFrom ? ` (restored from v${a.restoredFrom})` : ''}`);
        return lines.map((line) => forTerminal(line, { oneLine: true })).join('\n');
      });
    });
  },
};
