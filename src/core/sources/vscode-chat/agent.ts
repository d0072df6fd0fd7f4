// VS Code's own chat (agent mode, whichever model) as the registry knows it (sources/agent.ts): its name and icon,
// what it can do, its reader, and its hooks (a file of ours in the workspace's .github/hooks, answered by
// hook-handler.ts, which also takes VS Code's calls of hook files written for other agents: claimsHookInput).
import { HooksSettingsError, type AgentAdapter, type AgentHooks, type HooksReport, type HooksTarget } from '../agent';
import { isVscodeHookInput, logVscodeHookProblem } from './hook-input';
import { VSCODE_CHAT_KIND } from './kind';
import type { VsHooksChange } from './hooks-settings';

const USER_SCOPE = "VS Code's agent reads hook files from the workspace (.github/hooks); install them for a workspace (without --user)";

function workspaceOf(target: HooksTarget): string {
  if (target.scope !== 'workspace') throw new HooksSettingsError(USER_SCOPE);
  return target.workspace;
}

function describe(c: VsHooksChange, action: 'install' | 'uninstall'): string {
  const parts: string[] = [];
  if (c.added.length) parts.push(`added ${c.added.join(', ')}`);
  if (c.updated.length) parts.push(`updated ${c.updated.join(', ')}`);
  if (c.alreadyPresent.length) parts.push(`already present: ${c.alreadyPresent.join(', ')}`);
  if (c.removed.length) parts.push(`removed ${c.removed.join(', ')}`);
  if (!parts.length) parts.push(action === 'uninstall' ? 'no agent-rewind hooks were there' : 'nothing to do');
  const where = c.removedFile ? `removed ${c.file}` : c.written ? `${c.created ? 'created' : 'wrote'} ${c.file}` : `${c.file} unchanged`;
  return `VS Code chat hooks (workspace): ${parts.join('; ')} — ${where}`;
}

async function change(run: (s: typeof import('./hooks-settings')) => VsHooksChange, action: 'install' | 'uninstall'): Promise<HooksReport> {
  const s = await import('./hooks-settings');
  let c: VsHooksChange;
  try {
    c = run(s);
  } catch (err) {
    if (err instanceof s.VsHooksSettingsError) throw new HooksSettingsError(err.message);
    throw err;
  }
  const notes =
    action === 'install'
      ? ['note: VS Code runs these hooks with the setting "chat.useHooks": true, and reads a new hook file when the window reloads (Developer: Reload Window).']
      : [];
  return { file: c.file, result: { ...c }, text: describe(c, action), notes };
}

const hooks: AgentHooks = {
  install: (target, launcher) => change((s) => s.installVscodeHooks(workspaceOf(target), launcher), 'install'),
  uninstall: (target) => change((s) => s.uninstallVscodeHooks(workspaceOf(target)), 'uninstall'),
  async installed(target) {
    if (target.scope !== 'workspace') return [];
    const { vscodeHooksInstalled } = await import('./hooks-settings');
    return vscodeHooksInstalled(target.workspace);
  },
  async handle(stdin, run) {
    const r = await runVscodeHookLazily(stdin, run);
    return { status: r.status, ...(r.workspace ? { workspace: r.workspace } : {}) };
  },
  claimsHookInput: isVscodeHookInput,
  logProblem: (home, message) => logVscodeHookProblem(home, message),
};

async function runVscodeHookLazily(stdin: string, run: Parameters<AgentHooks['handle']>[1]) {
  const { runVscodeHook } = await import('./hook-handler');
  return runVscodeHook(stdin, { home: run.home, snapshot: run.snapshot });
}

export const vscodeChatAgent: AgentAdapter = {
  id: 'vscode-chat',
  // what issue 24 and a person type: `agent-rewind hooks install vscode`
  aliases: ['vscode'],
  displayName: 'VS Code chat',
  icon: 'comment-discussion',
  kinds: [{ id: VSCODE_CHAT_KIND, label: 'VS Code chat' }],
  capabilities: { rewindConversation: 'none', hookSnapshots: true, ownFileHistory: false },
  enabledSetting: 'includeVsCodeChatSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) =>
    new (require('./vscode-chat-source') as typeof import('./vscode-chat-source')).VsChatSource({
      home: settings.home,
      ...(settings.editorStorage ? { editorStorage: settings.editorStorage } : {}),
    }),
  hooks,
  hookCommands: { install: 'agentRewind.installVsCodeChatHooks', uninstall: 'agentRewind.uninstallVsCodeChatHooks' },
  hookTargets: { workspace: '.github/hooks/agent-rewind.json', user: "(VS Code's agent reads workspace hook files only)" },
};
