// OpenCode as the registry knows it (sources/agent.ts): its name and icon, what it can do, its reader, and its
// "hooks", which are a plugin file of ours (plugin-file.ts) answered by hook-handler.ts.
import { HooksSettingsError, type AgentAdapter, type AgentHooks, type HooksReport, type HooksTarget } from '../agent';
import { appendOpenCodeHookLog } from './hook-handler';
import type { OpenCodePluginChange, OpenCodePluginLocation } from './plugin-file';

const locationOf = (t: HooksTarget): OpenCodePluginLocation => (t.scope === 'user' ? { scope: 'user' } : { scope: 'project', projectDir: t.workspace });

const WORDS: Record<OpenCodePluginChange['action'], string> = {
  added: 'plugin added',
  updated: 'plugin updated',
  unchanged: 'plugin already installed, nothing to do',
  removed: 'plugin removed',
  absent: 'no agent-rewind plugin was there',
};

async function pluginChange(target: HooksTarget, command?: readonly string[]): Promise<HooksReport> {
  const p = await import('./plugin-file');
  const loc = locationOf(target);
  let change: OpenCodePluginChange;
  try {
    change = command ? p.installOpenCodePlugin(loc, command) : p.uninstallOpenCodePlugin(loc);
  } catch (err) {
    if (err instanceof p.OpenCodePluginError) throw new HooksSettingsError(err.message);
    throw err;
  }
  const notes = command && change.action !== 'unchanged' ? ['note: OpenCode loads plugins when it starts: restart any OpenCode already running here.'] : [];
  return { file: change.pluginFile, result: { ...change }, text: `OpenCode (${loc.scope}): ${WORDS[change.action]} — ${change.pluginFile}`, notes };
}

const hooks: AgentHooks = {
  install: (target, launcher) => pluginChange(target, [launcher.command, ...(launcher.args ?? [])]),
  uninstall: (target) => pluginChange(target),
  async installed(target) {
    const { openCodePluginInstalled } = await import('./plugin-file');
    return openCodePluginInstalled(locationOf(target));
  },
  async handle(stdin, run) {
    const { runOpenCodeHook } = await import('./hook-handler');
    const r = await runOpenCodeHook(stdin, run);
    return { status: r.action !== 'failed' ? 'done' : r.problem === 'snapshot' ? 'failed' : 'bad-input' };
  },
  logProblem: appendOpenCodeHookLog,
};

export const openCodeAgent: AgentAdapter = {
  id: 'opencode',
  displayName: 'OpenCode',
  icon: 'code',
  kinds: [{ id: 'opencode', label: 'OpenCode' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: true, ownFileHistory: false },
  enabledSetting: 'includeOpenCodeSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) => new (require('./opencode-source') as typeof import('./opencode-source')).OpenCodeSource({ recordsHome: settings.home }),
  hooks,
  resume: { program: 'opencode', commandSetting: 'opencode.command' },
  hookTargets: { workspace: '.opencode/plugins/agent-rewind.js', user: "OpenCode's user plugins folder" },
};
