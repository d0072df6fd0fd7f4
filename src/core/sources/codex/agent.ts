// Codex as the registry knows it (sources/agent.ts): its name and icon, what it can do, its reader, and its hooks
// (.codex/hooks.json plus the hooks switch in config.toml, answered by hook-handler.ts).
import { HooksSettingsError, type AgentAdapter, type AgentHooks, type HooksReport, type HooksTarget } from '../agent';
import { appendCodexHookLog } from './hook-handler';
import type { CodexHooksChange, CodexHooksLocation } from './hooks-settings';

const locationOf = (t: HooksTarget): CodexHooksLocation => (t.scope === 'user' ? { scope: 'user' } : { scope: 'project', projectDir: t.workspace });

function describe(change: CodexHooksChange, scope: string, action: 'install' | 'uninstall', trusted: readonly string[]): { text: string; notes: string[] } {
  const parts: string[] = [];
  if (change.added.length) parts.push(`added ${change.added.join(', ')}`);
  if (change.updated.length) parts.push(`updated ${change.updated.join(', ')}`);
  if (change.alreadyPresent.length) parts.push(`already present: ${change.alreadyPresent.join(', ')}`);
  if (change.removed.length) parts.push(`removed ${change.removed.join(', ')}`);
  if (!parts.length) parts.push(action === 'uninstall' ? 'no agent-rewind hooks were there' : 'nothing to do');
  const text = `Codex hooks (${scope}): ${parts.join('; ')} — ${change.hooksFile}${change.featureChanged ? ` (and the hooks switch in ${change.configFile})` : ''}`;
  const notes =
    action === 'install' && trusted.length < 2
      ? [
          'note: Codex runs new hooks only after you trust them: start `codex` once in this folder and choose "Trust all and continue" when it asks to review hooks.',
        ]
      : [];
  return { text, notes };
}

async function settingsChange(target: HooksTarget, action: 'install' | 'uninstall', command?: readonly string[]): Promise<HooksReport> {
  const s = await import('./hooks-settings');
  const loc = locationOf(target);
  let change: CodexHooksChange;
  try {
    change = command ? s.installCodexHooks(loc, command) : s.uninstallCodexHooks(loc);
  } catch (err) {
    if (err instanceof s.CodexSettingsError) throw new HooksSettingsError(err.message);
    throw err;
  }
  const trusted = action === 'install' ? s.codexHooksTrustRecorded(loc) : [];
  const { text, notes } = describe(change, loc.scope, action, trusted);
  return { file: change.hooksFile, result: { ...change, ...(action === 'install' ? { trusted } : {}) }, text, notes };
}

const hooks: AgentHooks = {
  install: (target, launcher) => settingsChange(target, 'install', [launcher.command, ...(launcher.args ?? [])]),
  uninstall: (target) => settingsChange(target, 'uninstall'),
  async installed(target) {
    const { codexHooksInstalled } = await import('./hooks-settings');
    return codexHooksInstalled(locationOf(target));
  },
  async handle(stdin, run) {
    const { runCodexHook } = await import('./hook-handler');
    const r = await runCodexHook(stdin, run);
    return { status: r.action !== 'failed' ? 'done' : r.problem === 'snapshot' ? 'failed' : 'bad-input' };
  },
  logProblem: appendCodexHookLog,
};

export const codexAgent: AgentAdapter = {
  id: 'codex',
  displayName: 'Codex',
  icon: 'terminal',
  kinds: [{ id: 'codex', label: 'Codex' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: true, ownFileHistory: false },
  enabledSetting: 'includeCodexSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: () => new (require('./codex-source') as typeof import('./codex-source')).CodexSource(),
  hooks,
  resume: { program: 'codex', commandSetting: 'codex.command' },
};
