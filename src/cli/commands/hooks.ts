// `agent-rewind hooks install|uninstall claude [--user] [--cwd DIR]`: registers (or removes) the Claude Code hooks
// that run `agent-rewind hook claude` on every prompt and at the end of every turn. Workspace scope writes
// <DIR>/.claude/settings.local.json; --user writes the user's Claude settings. The hook command is, on POSIX, the
// launcher script <home>/bin/agent-rewind (written here: sh + perl or curl to the checkpoint service, else this node and this
// script by absolute paths), on Windows this node and script directly; it works without agent-rewind on PATH.
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { CliError, UsageError, cwdOption, type Command, type CommandContext } from '../command';
import { launcherScript, writeLauncher } from '../../core/service';
import { ClaudeSettingsError, installClaudeHooks, uninstallClaudeHooks, type HookLauncher, type HooksChange } from '../../core/sources';

/** How Claude Code should start this CLI: this node binary and this script, both absolute. */
export function selfLauncher(): HookLauncher {
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
export function hooksLauncher(home: string): HookLauncher {
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
    }),
  );
  return { command: file };
}

/** Session id of the baseline snapshot `hooks install` takes (not a Claude Code session). */
export const BASELINE_SESSION = 'claude-hooks-baseline';

/**
 * The first snapshot of a folder reads and hashes every file (seconds on a large project, more on a busy machine),
 * later ones only what changed since. Taken here, while the user waits for a command anyway, instead of in the first
 * prompt's hook, which Claude Code kills after its timeout (30 s).
 */
async function baselineSnapshot(workspace: string, home: string): Promise<{ files: number; ms: number } | { error: string }> {
  const started = Date.now();
  const { FileCheckpointer } = await import('../../core/files');
  let fc;
  try {
    const { cliCheckpointerOptions } = await import('../../core/engine');
    fc = new FileCheckpointer(cliCheckpointerOptions(home, workspace, () => {})); // the extension's settings
    const s = await fc.snapshot(BASELINE_SESSION, `install-${uuidv7()}`, 'user-message');
    return { files: s.files, ms: Date.now() - started };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await fc?.dispose();
  }
}

export function describeHooksChange(c: HooksChange, action: 'install' | 'uninstall'): string {
  const parts: string[] = [];
  if (c.added.length) parts.push(`added ${c.added.join(', ')}`);
  if (c.updated.length) parts.push(`updated ${c.updated.join(', ')}`);
  if (c.alreadyPresent.length) parts.push(`already present: ${c.alreadyPresent.join(', ')}`);
  if (c.removed.length) parts.push(`removed ${c.removed.join(', ')}`);
  if (parts.length === 0) parts.push(action === 'uninstall' ? 'no agent-rewind hooks were there' : 'nothing to do');
  const file = c.target ? `${c.file} (a link to ${c.target})` : c.file;
  const where = c.written ? `${c.created ? 'created' : 'wrote'} ${file}` : `${file} unchanged`;
  return `Claude Code hooks (${c.scope}): ${parts.join('; ')} — ${where}`;
}

/** --command PATH (the extension's launcher), else the home's launcher (hooksLauncher). */
function launcherFor(ctx: CommandContext): HookLauncher {
  return typeof ctx.values.command === 'string' ? { command: resolve(ctx.cwd, ctx.values.command) } : hooksLauncher(ctx.home);
}

export const hooksCommand: Command = {
  usage: 'hooks install|uninstall claude|codex [--user] [--cwd DIR] [--no-baseline] [--command PATH]',
  // --command: the executable the hooks run instead of this node + script (the VS Code extension passes its launcher,
  // whose path stays the same when the extension is updated)
  options: { user: { type: 'boolean' }, cwd: { type: 'string' }, 'no-baseline': { type: 'boolean' }, command: { type: 'string' } },
  async run(ctx) {
    const [action, agent, extra] = ctx.positionals;
    if (action !== 'install' && action !== 'uninstall')
      throw new UsageError(action ? `unknown action "${action}" (install or uninstall)` : 'missing install or uninstall');
    if (agent !== 'claude' && agent !== 'codex')
      throw new UsageError(agent ? `unknown agent "${agent}" (claude or codex)` : 'missing the agent (claude or codex)');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (ctx.values.user === true && typeof ctx.values.cwd === 'string') throw new UsageError('--user and --cwd do not go together');
    if (agent === 'codex') return codexHooks(ctx, action);
    const loc = ctx.values.user === true ? ({ scope: 'user' } as const) : ({ scope: 'workspace', workspace: cwdOption(ctx) } as const);
    let change: HooksChange;
    try {
      change = action === 'install' ? installClaudeHooks(loc, launcherFor(ctx)) : uninstallClaudeHooks(loc);
    } catch (err) {
      if (err instanceof ClaudeSettingsError) throw new CliError(err.message);
      throw err;
    }
    // workspace scope: a first snapshot now, so the first prompt's hook only reads what changed since
    const baseline =
      action === 'install' && loc.scope === 'workspace' && ctx.values['no-baseline'] !== true ? await baselineSnapshot(loc.workspace, ctx.home) : undefined;
    const result = baseline ? { ...change, baseline } : change;
    ctx.out(result, () => {
      const text = describeHooksChange(change, action);
      if (!baseline) return text;
      return 'error' in baseline
        ? `${text}\nnote: no baseline snapshot of the folder (${baseline.error}); the first prompt's hook will take it`
        : `${text}\nbaseline snapshot of ${baseline.files} files taken (${baseline.ms} ms), so each prompt's hook reads only what changed`;
    });
  },
};

/**
 * Codex: `<project>/.codex/hooks.json` (or `$CODEX_HOME/hooks.json` with --user) plus the `[features] hooks = true`
 * switch in that scope's config.toml. Codex runs a new hook only once the person trusted it (its TUI asks once), and
 * a project hook only in a trusted project: said after installing, never decided for them.
 */
async function codexHooks(ctx: CommandContext, action: 'install' | 'uninstall'): Promise<void> {
  const { CodexSettingsError, installCodexHooks, uninstallCodexHooks, codexHooksTrustRecorded } = await import('../../core/sources');
  const loc = ctx.values.user === true ? ({ scope: 'user' } as const) : ({ scope: 'project', projectDir: cwdOption(ctx) } as const);
  let change;
  try {
    const launcher = action === 'install' ? launcherFor(ctx) : undefined;
    change = launcher ? installCodexHooks(loc, [launcher.command, ...(launcher.args ?? [])]) : uninstallCodexHooks(loc);
  } catch (err) {
    if (err instanceof CodexSettingsError) throw new CliError(err.message);
    throw err;
  }
  const baseline =
    action === 'install' && loc.scope === 'project' && ctx.values['no-baseline'] !== true ? await baselineSnapshot(loc.projectDir, ctx.home) : undefined;
  const trusted = action === 'install' ? codexHooksTrustRecorded(loc) : [];
  ctx.out({ ...change, ...(baseline ? { baseline } : {}), ...(action === 'install' ? { trusted } : {}) }, () => {
    const parts: string[] = [];
    if (change.added.length) parts.push(`added ${change.added.join(', ')}`);
    if (change.updated.length) parts.push(`updated ${change.updated.join(', ')}`);
    if (change.alreadyPresent.length) parts.push(`already present: ${change.alreadyPresent.join(', ')}`);
    if (change.removed.length) parts.push(`removed ${change.removed.join(', ')}`);
    if (!parts.length) parts.push(action === 'uninstall' ? 'no agent-rewind hooks were there' : 'nothing to do');
    const lines = [
      `Codex hooks (${loc.scope}): ${parts.join('; ')} — ${change.hooksFile}${change.featureChanged ? ` (and the hooks switch in ${change.configFile})` : ''}`,
    ];
    if (action === 'install' && trusted.length < 2)
      lines.push(
        'note: Codex runs new hooks only after you trust them: start `codex` once in this folder and choose "Trust all and continue" when it asks to review hooks.',
      );
    if (baseline && !('error' in baseline)) lines.push(`baseline snapshot of ${baseline.files} files taken (${baseline.ms} ms)`);
    return lines.join('\n');
  });
}
