// The agents agent-rewind knows, in one list: the built-in ones (builtin-agents.ts) and any registered at run time
// (registerAgent, or modules named by agentRewind.agentModules / $AGENT_REWIND_AGENT_MODULES, loadAgentModules).
// Everything that once tested an agent's name asks here: its label and icon, whether its sessions are read-only, its
// reader, its hooks (the CLI's `hook <id>`, the service's hook endpoint and the launcher route by id).
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineSettings } from '../settings/settings';
import { agentEnabled, type AgentAdapter, type AgentHooks } from './agent';
import { BUILTIN_AGENTS } from './builtin-agents';
import type { SourceAdapter } from './source-adapter';

/** Agent ids: lower-case words joined by dashes, so they fit a command line, a URL path and a file name. */
const AGENT_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

const registered: AgentAdapter[] = [];
const loadedModules = new Set<string>();

/** Every agent, built-in first, in the order they were registered. */
export function agents(): readonly AgentAdapter[] {
  return [...BUILTIN_AGENTS, ...registered];
}

/** Adds an agent (an extension of the product, a test's toy agent). Its id and kinds must be new. */
export function registerAgent(agent: AgentAdapter): void {
  if (!AGENT_ID.test(agent.id)) throw new Error(`agent id ${JSON.stringify(agent.id)} is not lower-case words joined by dashes`);
  if (agent.kinds.length === 0) throw new Error(`agent ${agent.id} reads no kind of session`);
  const all = agents();
  if (all.some((a) => a.id === agent.id)) throw new Error(`an agent with id "${agent.id}" is already registered`);
  const kindsTaken = new Set(all.flatMap((a) => a.kinds.map((k) => k.id)));
  for (const k of agent.kinds) if (kindsTaken.has(k.id)) throw new Error(`agent ${agent.id}: the session kind "${k.id}" is already another agent's`);
  registered.push(agent);
}

/** Removes an agent registerAgent added (tests). */
export function unregisterAgent(id: string): void {
  const at = registered.findIndex((a) => a.id === id);
  if (at >= 0) registered.splice(at, 1);
}

/**
 * Loads the modules of extra agents (absolute paths, or relative to `base`), each exporting `agent` (an AgentAdapter)
 * or a default export that is one, and registers them; a module already loaded is skipped. Loading runs the module's
 * code: the names come from the user's own settings or environment, never from a workspace.
 */
export async function loadAgentModules(paths: readonly string[], base = process.cwd()): Promise<AgentAdapter[]> {
  const added: AgentAdapter[] = [];
  for (const p of paths) {
    const file = isAbsolute(p) ? p : resolve(base, p);
    if (loadedModules.has(file)) continue;
    let mod: { agent?: AgentAdapter; default?: AgentAdapter | { agent?: AgentAdapter } };
    try {
      mod = (await loadModuleFile(file)) as typeof mod;
    } catch (err) {
      throw new Error(`cannot load the agent module ${file}: ${(err as Error).message}`);
    }
    const def = mod.default as { agent?: AgentAdapter } | AgentAdapter | undefined;
    const agent = mod.agent ?? (def && 'id' in def ? def : def?.agent);
    if (!agent || typeof agent.id !== 'string' || typeof agent.source !== 'function')
      throw new Error(`the agent module ${file} exports no agent (export const agent: AgentAdapter)`);
    registerAgent(agent);
    loadedModules.add(file);
    added.push(agent);
  }
  return added;
}

/**
 * A CommonJS module is required: VS Code's extension host runs extensions without a dynamic-import callback, so
 * `import()` there fails ("A dynamic import callback was not specified") and an agent module named by
 * agentRewind.agentModules never loaded in the editor. An ES module (`.mjs`, or one `require` refuses) is imported,
 * which works in the CLI; in the editor it fails with that reason.
 */
async function loadModuleFile(file: string): Promise<unknown> {
  if (!/\.m[jt]s$/.test(file)) {
    try {
      return require(file) as unknown;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw err;
    }
  }
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(
      /dynamic import callback/i.test(message)
        ? `it is an ES module, which VS Code's extension host cannot import (${message}): build it as CommonJS`
        : message,
    );
  }
}

/** The modules loadAgentModules loaded (absolute paths, in load order): what a launcher passes on to the CLIs it
 *  starts, so a process started by an agent's hook knows the agents its writer knew. */
export function loadedAgentModules(): string[] {
  return [...loadedModules];
}

/** The agent modules named by the environment ($AGENT_REWIND_AGENT_MODULES, path-delimiter separated). */
export function agentModulesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const v = env.AGENT_REWIND_AGENT_MODULES;
  if (!v) return [];
  const delimiter = process.platform === 'win32' ? ';' : ':';
  return v.split(delimiter).filter((p) => p.trim() !== '');
}

export function agentById(id: string): AgentAdapter | undefined {
  return agents().find((a) => a.id === id);
}

/** The agent that reads sessions of this kind. */
export function agentOfKind(kind: string): AgentAdapter | undefined {
  return agents().find((a) => a.kinds.some((k) => k.id === kind));
}

/** The name of the agent that wrote a session of this kind, as a person knows it. */
export function agentName(kind: string): string {
  return agentOfKind(kind)?.kinds.find((k) => k.id === kind)?.label ?? kind;
}

/** The codicon shown beside a session of this kind. */
export function agentIcon(kind: string): string {
  const agent = agentOfKind(kind);
  return agent?.kinds.find((k) => k.id === kind)?.icon ?? agent?.icon ?? 'terminal';
}

/** Sessions only their own agent writes: agent-rewind reads them in place and forks them, never changes them. */
export function isReadOnlySource(kind: string): boolean {
  const agent = agentOfKind(kind);
  return agent !== undefined && agent.capabilities.rewindConversation !== 'in-place';
}

/** The session kinds every agent reads, with their labels and icons (for the webviews, which cannot ask). */
export function sessionKindLabels(): Record<string, { label: string; icon: string }> {
  return Object.fromEntries(agents().flatMap((a) => a.kinds.map((k) => [k.id, { label: k.label, icon: k.icon ?? a.icon }])));
}

/** The boolean settings agents declare (their enabledSetting), for the settings readers. */
export function agentSwitchKeys(): string[] {
  return agents().flatMap((a) => [...(a.enabledSetting ? [a.enabledSetting] : []), ...(a.switchSettings ?? [])]);
}

/** The readers of the sessions agent-rewind writes (a rewind is a branch in the same file): the first is the fallback
 *  for a file nobody claims. */
export function writableSources(settings: EngineSettings): SourceAdapter[] {
  return agents()
    .filter((a) => a.capabilities.rewindConversation === 'in-place' && agentEnabled(a, settings))
    .map((a) => a.source(settings));
}

/** The readers of other agents' sessions (read in place, never written), those the settings leave on. */
export function foreignSources(settings: EngineSettings): SourceAdapter[] {
  return agents()
    .filter((a) => a.capabilities.rewindConversation !== 'in-place' && agentEnabled(a, settings))
    .map((a) => a.source(settings));
}

/** The foreign adapter that reads `file` (from its first line), if any. */
export function foreignOwner(adapters: readonly SourceAdapter[], file: string, firstLine: string | undefined): SourceAdapter | undefined {
  return adapters.find((a) => !a.writable && a.owns(file, firstLine));
}

/**
 * The hooks that answer one hook input: those of the agent that sent it when another agent claims it (an editor that
 * runs every agent's hook files, e.g. VS Code running Claude Code's: its calls are its own sessions' prompts), else
 * those of the agent the hook was installed for.
 */
export function hookHandlerFor<H extends AgentHooks>(installedFor: H, stdin: string): H | AgentHooks {
  const claimants = hookAgents().filter((a) => a.hooks !== installedFor && a.hooks!.claimsHookInput);
  if (claimants.length === 0) return installedFor;
  let input: unknown;
  try {
    input = JSON.parse(stdin);
  } catch {
    return installedFor; // the agent's own handler reports it
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return installedFor;
  return claimants.find((a) => a.hooks!.claimsHookInput!(input as Record<string, unknown>))?.hooks ?? installedFor;
}

/** The agents with hooks (what `agent-rewind hook <id>` and the hook endpoint accept). */
export function hookAgents(): AgentAdapter[] {
  return agents().filter((a) => a.hooks !== undefined);
}
