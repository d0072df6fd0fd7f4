// Claude Code as the registry knows it (sources/agent.ts): its name and icon, what it can do, its reader, and its
// hooks (settings in .claude/settings*.json, answered by hook-handler.ts).
import { HooksSettingsError, type AgentAdapter, type AgentHooks, type HooksReport, type HooksTarget } from '../agent';
import { logHookProblem } from './hook-log';
import type { HooksChange, HooksLocation } from './hooks-settings';

const locationOf = (t: HooksTarget): HooksLocation => (t.scope === 'user' ? { scope: 'user' } : { scope: 'workspace', workspace: t.workspace });

export function describeClaudeHooksChange(c: HooksChange, action: 'install' | 'uninstall'): string {
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

async function settingsChange(run: (s: typeof import('./hooks-settings')) => HooksChange, action: 'install' | 'uninstall'): Promise<HooksReport> {
  const settings = await import('./hooks-settings');
  let change: HooksChange;
  try {
    change = run(settings);
  } catch (err) {
    if (err instanceof settings.ClaudeSettingsError) throw new HooksSettingsError(err.message);
    throw err;
  }
  return { file: change.file, result: { ...change }, text: describeClaudeHooksChange(change, action), notes: [] };
}

const hooks: AgentHooks = {
  projectDirVariable: 'CLAUDE_PROJECT_DIR',
  logColumns: 2,
  install: (target, launcher) => settingsChange((s) => s.installClaudeHooks(locationOf(target), launcher), 'install'),
  uninstall: (target) => settingsChange((s) => s.uninstallClaudeHooks(locationOf(target)), 'uninstall'),
  async installed(target) {
    const { claudeHooksStatus } = await import('./hooks-settings');
    return claudeHooksStatus(locationOf(target)).events;
  },
  async handle(stdin, run) {
    const { runClaudeHookText } = await import('./hook-handler');
    return { status: await runClaudeHookText(stdin, run) };
  },
  logProblem: (home, message) => logHookProblem(home, undefined, undefined, message),
};

export const claudeAgent: AgentAdapter = {
  id: 'claude',
  displayName: 'Claude Code',
  icon: 'terminal',
  kinds: [{ id: 'claude', label: 'Claude Code' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: true, ownFileHistory: true },
  enabledSetting: 'includeClaudeCodeSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) => new (require('./claude-source') as typeof import('./claude-source')).ClaudeSource({ home: settings.home }),
  hooks,
  hookCommands: { install: 'agentRewind.installClaudeHooks', uninstall: 'agentRewind.uninstallClaudeHooks' },
  resume: { program: 'claude', commandSetting: 'claudeCode.command' },
  hookTargets: { workspace: '.claude/settings.local.json (not committed)', user: "Claude Code's user settings" },
};
