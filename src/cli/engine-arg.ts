// The engine facade for one CLI call on one session: the same code the extension runs (rewind with conversation and
// files, the rewind log behind undo and redo, another agent's forks), with the session's folder (or --workspace) as
// the only folder whose files may be touched.
import { resolve } from 'node:path';
import { CliError, type CommandContext } from './command';
import { cliSettings, withViewArg } from './session-arg';
import { forTerminal } from './terminal-text';
import { RewindEngine } from '../core/engine';
import { foreignSources } from '../core/sources';
import { openFileCheckpoints } from '../core/service';

export async function withEngine<T>(ctx: CommandContext, file: string, fn: (engine: RewindEngine) => Promise<T>): Promise<T> {
  const cwd = await withViewArg(ctx, file, async (v) => v.cwd);
  const root = typeof ctx.values.workspace === 'string' ? resolve(ctx.cwd, ctx.values.workspace) : cwd;
  const engine = new RewindEngine({
    settings: cliSettings(ctx),
    workspaceRoots: [root],
    foreignSources,
    // rewind --files, undo and redo ask the home's checkpoint service first (its folder's tree is warm there)
    openCheckpoints: openFileCheckpoints,
    warn: (m) => process.stderr.write(`agent-rewind: warning: ${forTerminal(m)}\n`),
  });
  try {
    return await fn(engine);
  } catch (err) {
    throw err instanceof CliError ? err : new CliError((err as Error).message);
  } finally {
    await engine.dispose();
  }
}
