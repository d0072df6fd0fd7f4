// The engine facade for one CLI call: the same code the extension runs (rewinds of the conversation and the files,
// branches, checkpoints, state, the folder's rewind log behind undo and redo, another agent's forks). The session's
// folder (or --workspace) is the only folder whose files may be touched.
import { isAbsolute, relative, resolve } from 'node:path';
import { CliError, type CommandContext } from './command';
import { cliSettings, withViewArg } from './session-arg';
import { forTerminal } from './terminal-text';
import { RewindEngine } from '../core/engine';
import type { FileCheckpointerOptions } from '../core/files';
import { foreignSources } from '../core/sources';
import { openFileCheckpoints } from '../core/service';

/** Runs fn with an engine whose only workspace folder is the session's (or --workspace, which must hold it). */
export async function withEngine<T>(ctx: CommandContext, file: string, fn: (engine: RewindEngine) => Promise<T>): Promise<T> {
  const cwd = await withViewArg(ctx, file, async (v) => v.cwd);
  if (typeof ctx.values.workspace !== 'string') return withEngineIn(ctx, cwd, fn);
  const workspace = resolve(ctx.cwd, ctx.values.workspace);
  const rel = relative(workspace, resolve(cwd));
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new CliError(
      `the session worked in ${cwd}, which is not inside --workspace ${workspace}: its files are only snapshotted and restored in its own folder. Leave out --workspace (or name a folder that holds ${cwd}).`,
    );
  return withEngineIn(ctx, workspace, fn);
}

/** Runs fn with an engine whose only workspace folder is `root`; its errors become CLI errors (exit 1). */
export async function withEngineIn<T>(ctx: CommandContext, root: string, fn: (engine: RewindEngine) => Promise<T>): Promise<T> {
  const engine = new RewindEngine({
    settings: cliSettings(ctx),
    workspaceRoots: [root],
    foreignSources,
    // rewinds, undo and redo ask the home's checkpoint service first (its folder's tree is warm there)
    openCheckpoints: (options: FileCheckpointerOptions) => {
      const fc = openFileCheckpoints(options);
      // every path argument is resolved already; from inside the workspace the scan can lstat short relative paths,
      // which spares the kernel a lookup of each parent folder on every one of 50,000 calls
      try {
        process.chdir(fc.workspaceRoot);
      } catch {
        /* absolute paths then */
      }
      return fc;
    },
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
