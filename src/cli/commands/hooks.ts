// `agent-rewind hooks install|uninstall <agent> [--user] [--cwd DIR]`: registers (or removes) the hooks of an agent
// that has them (the registry's agents with hooks: `hooks install --help` lists them), which run `agent-rewind hook
// <agent>` on every prompt and at the end of every turn. The agent's own code (its folder under src/core/sources)
// knows where its settings live; this command only routes by id and takes the baseline snapshot. The hook command is,
// on POSIX, the launcher script <home>/bin/agent-rewind (written here: sh + perl or curl to the checkpoint service,
// else this node and this script by absolute paths), on Windows this node and script directly; it works without
// agent-rewind on PATH.
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { CliError, UsageError, cwdOption, type Command, type CommandContext } from '../command';
import { launcherScript, writeLauncher } from '../../core/service';
import { baselineSessionOf } from '../../core/baseline-session';
import { HooksSettingsError, hookAgents, loadedAgentModules, type HookCommand, type HooksReport, type HooksTarget } from '../../core/sources';

/** How an agent's hooks start this CLI: this node binary and this script, both absolute. */
export function selfLauncher(): HookCommand {
  const script = process.argv[1];
  if (!script || !existsSync(script)) throw new CliError('cannot tell where this CLI is installed (its script path is missing)');
  return { command: process.execPath, args: [realpathSync(script)] };
}

/** The launcher `hooks install` writes for the hooks: <home>/bin/agent-rewind. */
export function homeLauncherPath(home: string): string {
  return join(home, 'bin', 'agent-rewind');
}

/**
 * What the hooks run when no --command is given. On POSIX: the launcher script in <home>/bin (rewritten at every
 * install, so reinstalling moves it to this CLI), whose hook branch asks the checkpoint service with sh + perl or curl before
 * starting Node; the home is baked in, as the launcher belongs to it. On Windows: this node and this script.
 */
export function hooksLauncher(home: string): HookCommand {
  const self = selfLauncher();
  if (process.platform === 'win32') return self;
  const file = homeLauncherPath(home);
  writeLauncher(
    file,
    launcherScript({
      cliJs: self.args![0]!,
      runtime: self.command,
      runtimeKind: 'node',
      home,
      writtenBy: 'written by `agent-rewind hooks install` (rewritten by each install)',
      // an agent loaded from $AGENT_REWIND_AGENT_MODULES is known to its hooks, whatever environment they run in
      agentModules: loadedAgentModules(),
    }),
  );
  return { command: file };
}

/** Session id of the baseline snapshot `hooks install` takes (not an agent's session): `<agent>-hooks-baseline`. */
export const baselineSession = baselineSessionOf;

/**
 * The first snapshot of a folder reads and hashes every file (seconds on a large project, more on a busy machine),
 * later ones only what changed since. Taken here, while the user waits for a command anyway, instead of in the first
 * prompt's hook, which Claude Code kills after its timeout (30 s).
 */
async function baselineSnapshot(agent: string, workspace: string, home: string): Promise<{ files: number; ms: number } | { error: string }> {
  const started = Date.now();
  const { FileCheckpointer } = await import('../../core/files');
  let fc;
  try {
    const { cliCheckpointerOptions } = await import('../../core/engine');
    fc = new FileCheckpointer(cliCheckpointerOptions(home, workspace, () => {})); // the extension's settings
    const s = await fc.snapshot(baselineSession(agent), `install-${uuidv7()}`, 'user-message');
    return { files: s.files, ms: Date.now() - started };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await fc?.dispose();
  }
}

/** --command PATH (the extension's launcher), else the home's launcher (hooksLauncher). */
function launcherFor(ctx: CommandContext): HookCommand {
  return typeof ctx.values.command === 'string' ? { command: resolve(ctx.cwd, ctx.values.command) } : hooksLauncher(ctx.home);
}

const hooksUsage = () =>
  hookAgents()
    .map((a) => a.id)
    .join('|');

export const hooksCommand: Command = {
  usage: `hooks install|uninstall <agent: ${hooksUsage()}> [--user] [--cwd DIR] [--no-baseline] [--command PATH]`,
  // --command: the executable the hooks run instead of this node + script (the VS Code extension passes its launcher,
  // whose path stays the same when the extension is updated)
  options: { user: { type: 'boolean' }, cwd: { type: 'string' }, 'no-baseline': { type: 'boolean' }, command: { type: 'string' } },
  async run(ctx) {
    const [action, id, extra] = ctx.positionals;
    if (action !== 'install' && action !== 'uninstall')
      throw new UsageError(action ? `unknown action "${action}" (install or uninstall)` : 'missing install or uninstall');
    const known = hookAgents();
    const agent = known.find((a) => a.id === id) ?? known.find((a) => id !== undefined && a.aliases?.includes(id));
    const names = known.map((a) => a.id).join(' or ');
    if (!agent?.hooks) throw new UsageError(id ? `unknown agent "${id}" (${names})` : `missing the agent (${names})`);
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (ctx.values.user === true && typeof ctx.values.cwd === 'string') throw new UsageError('--user and --cwd do not go together');
    const target: HooksTarget = ctx.values.user === true ? { scope: 'user' } : { scope: 'workspace', workspace: cwdOption(ctx) };
    let report: HooksReport;
    try {
      report = action === 'install' ? await agent.hooks.install(target, launcherFor(ctx)) : await agent.hooks.uninstall(target);
    } catch (err) {
      if (err instanceof HooksSettingsError) throw new CliError(err.message);
      throw err;
    }
    // workspace scope: a first snapshot now, so the first prompt's hook only reads what changed since
    const baseline =
      action === 'install' && target.scope === 'workspace' && ctx.values['no-baseline'] !== true
        ? await baselineSnapshot(agent.id, target.workspace, ctx.home)
        : undefined;
    ctx.out({ ...report.result, file: report.file, ...(baseline ? { baseline } : {}) }, () => {
      const lines = [report.text, ...report.notes];
      if (baseline)
        lines.push(
          'error' in baseline
            ? `note: no baseline snapshot of the folder (${baseline.error}); the first prompt's hook will take it`
            : `baseline snapshot of ${baseline.files} files taken (${baseline.ms} ms), so each prompt's hook reads only what changed`,
        );
      return lines.join('\n');
    });
  },
};
