// Gemini CLI as the registry knows it (sources/agent.ts): its name and icon, what it can do, its reader, and its hooks
// (BeforeAgent / AfterAgent in a settings.json, answered by hook-handler.ts).
import { HooksSettingsError, type AgentAdapter, type AgentHooks, type HooksReport, type HooksTarget } from '../agent';
import { appendHookLog } from '../hook-log';
import type { GeminiHooksChange, GeminiHooksLocation } from './hooks-settings';

const locationOf = (t: HooksTarget): GeminiHooksLocation => (t.scope === 'user' ? { scope: 'user' } : { scope: 'workspace', workspace: t.workspace });

function describe(c: GeminiHooksChange, action: 'install' | 'uninstall'): string {
  const parts: string[] = [];
  if (c.added.length) parts.push(`added ${c.added.join(', ')}`);
  if (c.updated.length) parts.push(`updated ${c.updated.join(', ')}`);
  if (c.alreadyPresent.length) parts.push(`already present: ${c.alreadyPresent.join(', ')}`);
  if (c.removed.length) parts.push(`removed ${c.removed.join(', ')}`);
  if (parts.length === 0) parts.push(action === 'uninstall' ? 'no agent-rewind hooks were there' : 'nothing to do');
  const file = c.target ? `${c.file} (a link to ${c.target})` : c.file;
  const where = c.written ? `${c.created ? 'created' : 'wrote'} ${file}` : `${file} unchanged`;
  return `Gemini CLI hooks (${c.scope}): ${parts.join('; ')} — ${where}`;
}

async function settingsChange(
  target: HooksTarget,
  run: (s: typeof import('./hooks-settings')) => GeminiHooksChange,
  action: 'install' | 'uninstall',
): Promise<HooksReport> {
  const s = await import('./hooks-settings');
  let change: GeminiHooksChange;
  try {
    change = run(s);
  } catch (err) {
    if (err instanceof s.GeminiSettingsError) throw new HooksSettingsError(err.message);
    throw err;
  }
  const notes =
    action === 'install' && target.scope === 'workspace'
      ? ["note: Gemini CLI loads a project's settings, and so these hooks, only in a trusted folder (it asks on first start, or see `/permissions`)."]
      : [];
  return { file: change.file, result: { ...change }, text: describe(change, action), notes };
}

const hooks: AgentHooks = {
  projectDirVariable: 'GEMINI_PROJECT_DIR',
  logColumns: 2,
  install: (target, launcher) => settingsChange(target, (s) => s.installGeminiHooks(locationOf(target), launcher), 'install'),
  uninstall: (target) => settingsChange(target, (s) => s.uninstallGeminiHooks(locationOf(target)), 'uninstall'),
  async installed(target) {
    const { geminiHooksInstalled } = await import('./hooks-settings');
    return geminiHooksInstalled(locationOf(target));
  },
  async handle(stdin, run) {
    const { runGeminiHook } = await import('./hook-handler');
    const r = await runGeminiHook(stdin, run);
    return { status: r.status, ...(r.workspace ? { workspace: r.workspace } : {}) };
  },
  logProblem: (home, message) => appendHookLog(home, 'gemini-hooks.log', `- - ${message}`),
};

export const geminiAgent: AgentAdapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  icon: 'terminal',
  kinds: [{ id: 'gemini', label: 'Gemini CLI' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: true, ownFileHistory: false },
  enabledSetting: 'includeGeminiCliSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) => new (require('./gemini-source') as typeof import('./gemini-source')).GeminiSource({ recordsHome: settings.home }),
  hooks,
  resume: { program: 'gemini', commandSetting: 'gemini.command' },
  hookTargets: { workspace: '.gemini/settings.json (this project)', user: "Gemini CLI's user settings" },
};
