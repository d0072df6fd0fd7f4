// Which agent "Set Up Agent Checkpoints…" and "Remove Agent Hooks…" act on: every registered agent with hooks, the
// built-in ones and those loaded from agentRewind.agentModules alike (an agent loaded at run time cannot contribute a
// command of its own to package.json). The argument names one ({ agent: id } from a tree row, or the id); else one
// agent is taken as it is and several are asked for. Asks through a picker, so it is tested without VS Code.
import type { AgentAdapter } from '../../core/sources';
import type { ComparePicker, PickRow } from './compare-target';

export type HookAction = 'install' | 'uninstall';

/** The agent id a command argument names: `'toy'` or `{ agent: 'toy' }`. */
export function hookAgentIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg) return arg;
  const o = arg !== null && typeof arg === 'object' ? (arg as { agent?: unknown }) : undefined;
  return typeof o?.agent === 'string' && o.agent ? o.agent : undefined;
}

/** Undefined: dismissed, or no agent has hooks (then said). Throws for an id that is no agent with hooks. */
export async function chooseHookAgent(
  agents: readonly AgentAdapter[],
  arg: unknown,
  action: HookAction,
  ui: Pick<ComparePicker, 'pick' | 'inform'>,
): Promise<AgentAdapter | undefined> {
  const withHooks = agents.filter((a) => a.hooks);
  const id = hookAgentIdOf(arg);
  if (id !== undefined) {
    const named = withHooks.find((a) => a.id === id);
    if (!named) throw new Error(`there is no agent "${id}" with hooks (agents with hooks: ${withHooks.map((a) => a.id).join(', ') || 'none'}).`);
    return named;
  }
  if (withHooks.length === 0) {
    ui.inform('Agent Rewind: no agent with hooks is registered.');
    return undefined;
  }
  if (withHooks.length === 1) return withHooks[0];
  const rows: PickRow<AgentAdapter>[] = withHooks.map((a) => ({
    label: `$(${a.icon}) ${a.displayName}`,
    description: a.hookTargets ? `hooks in ${a.hookTargets.workspace} or ${a.hookTargets.user}` : `its hooks (${a.id})`,
    value: a,
  }));
  return ui.pick(rows, {
    title: action === 'install' ? 'Set up checkpoints for which agent?' : 'Remove the Agent Rewind hooks of which agent?',
    placeHolder:
      action === 'install'
        ? 'Its hooks snapshot the workspace at every prompt, so Rewind to here restores the files exactly'
        : 'Only the hooks Agent Rewind installed are removed',
  });
}
