// An agent, as everything above the source layer knows it: one object per agent (src/core/sources/<agent>/agent.ts),
// listed by the registry (registry.ts). The engine, the catalog, the service, the CLI and the extension ask it for
// the agent's name, icon, what it can do, how to read its sessions and how its hooks are set up and answered, and
// never test an agent's id themselves (test/unit/lint/agent-names.test.ts holds that).
import type { EngineSettings } from '../settings/settings';
import type { SnapshotSummary } from '../files/types';
import type { HookSnapshot } from './hook-snapshot';
import type { SourceAdapter } from './source-adapter';

/** A kind of session an agent reads, as the listings label it (pi's adapter reads three: ours, pi's, oh-my-pi's). */
export interface SessionKindInfo {
  /** Stored in listings (`SessionListing.source`) and the catalog. */
  id: string;
  /** As a person knows the agent that wrote it. */
  label: string;
  /** A codicon for its sessions, when not the agent's own. */
  icon?: string;
}

export interface AgentCapabilities {
  /** How "Rewind to here" continues the conversation: a new branch in the same session ('in-place', the only kind
   *  agent-rewind writes to), a new session the agent resumes ('fork'), or not at all ('none': files only). */
  rewindConversation: 'in-place' | 'fork' | 'none';
  /** Its hooks snapshot the workspace at each prompt (hooks below). */
  hookSnapshots: boolean;
  /** It keeps its own file history, which a snapshot can be made from where ours is missing. */
  ownFileHistory: boolean;
}

/** Where hooks are installed: the agent's user-wide settings, or one workspace's. */
export type HooksTarget = { scope: 'user' } | { scope: 'workspace'; workspace: string };

/** What a hooks command runs: the launcher (an executable) and its arguments, both absolute. */
export interface HookCommand {
  command: string;
  args?: string[];
}

/** What installing or removing hooks did: the data `--json` prints, and the same in words. */
export interface HooksReport {
  /** The settings file it wrote or would write. */
  file: string;
  result: Record<string, unknown>;
  text: string;
  /** Said after the text (e.g. a trust prompt the agent shows first). */
  notes: string[];
}

/** One hook call, as the CLI (`agent-rewind hook <id>`) or the service's hook endpoint runs it. */
export interface HookRun {
  home: string;
  /** The environment the agent gave the hook (project folder variables). */
  env: NodeJS.ProcessEnv;
  /** How the snapshot is taken: a fresh process's (service/fresh-hook-snapshot.ts), or the service's warm one. */
  snapshot: HookSnapshot;
}

/** How one hook input ended: done (or an event not handled), bad input (logged), or a failure (logged). */
export interface HookOutcome {
  status: 'done' | 'bad-input' | 'failed';
  /** The folder snapshotted (its realpath), when it got that far. */
  workspace?: string;
  summary?: SnapshotSummary;
}

/** The agent's settings file cannot be used (not JSON, not writable…): nothing was changed. */
export class HooksSettingsError extends Error {}

export interface AgentHooks {
  /** Throws HooksSettingsError for a settings file it cannot use. */
  install(target: HooksTarget, launcher: HookCommand): Promise<HooksReport>;
  uninstall(target: HooksTarget): Promise<HooksReport>;
  /** The hook events of ours found installed there. */
  installed(target: HooksTarget): Promise<string[]>;
  /** Handles one hook input (the agent's stdin, as text). Resolves in every case (problems are logged to the agent's
   *  hook log) but one: SnapshotDeclined from an injected snapshot, before anything was written. */
  handle(stdin: string, run: HookRun): Promise<HookOutcome>;
  /** Records a problem met before the handler ran (stdin unreadable, the run's deadline) in the agent's hook log. */
  logProblem(home: string, message: string): void;
  /** The environment variable naming the project folder the agent gives its hooks, which the launcher's fast path
   *  forwards to the service (the handler prefers it to the input's cwd); none: the handler takes the input's. */
  readonly projectDirVariable?: string;
  /** Its log, `<home>/logs/<id>-hooks.log`, has an event and a session column the launcher fills with `-`. */
  readonly logColumns?: number;
  /** Whether a hook input (the parsed stdin) was sent by this agent, whichever agent's hook file ran it: an editor
   *  that also runs other agents' hook files (VS Code runs Claude Code's) is told apart by its input. The registry asks
   *  every agent before the one the hook was installed for (hookHandlerFor). */
  claimsHookInput?(input: Record<string, unknown>): boolean;
}

export interface AgentAdapter {
  /** Stable, lower-case: `agent-rewind hook <id>`, `hooks install <id>`, settings, the catalog. */
  readonly id: string;
  /** Other names a person may type for it on the command line (`hooks install <alias>`), never stored anywhere. */
  readonly aliases?: readonly string[];
  /** As a person knows it. */
  readonly displayName: string;
  /** A codicon name (https://microsoft.github.io/vscode-codicons/), shown beside its sessions. */
  readonly icon: string;
  /** The kinds of session it reads; the first is its own. */
  readonly kinds: readonly SessionKindInfo[];
  readonly capabilities: AgentCapabilities;
  /** The boolean setting (agentRewind.<key>) that turns its sessions off; absent: always read. */
  readonly enabledSetting?: string;
  /** Other boolean settings its reader reads (from settings.switches). */
  readonly switchSettings?: readonly string[];
  /** Its reader, for these settings (cheap: nothing is read until asked). */
  source(settings: EngineSettings): SourceAdapter;
  /** Its hooks, when it has any (capabilities.hookSnapshots). */
  readonly hooks?: AgentHooks;
  /** Extension commands that set its hooks up (declared in package.json; kept ids, so keybindings stay valid). */
  readonly hookCommands?: { install: string; uninstall: string };
  /** How a person continues a fork in the agent's own CLI: the program its resume command starts, and the setting
   *  (under agentRewind.) that replaces it (a path, `npx …`). */
  readonly resume?: { program: string; commandSetting: string };
  /** Where its hooks go, in a person's words, for the extension's picker: this workspace's file, the user's. */
  readonly hookTargets?: { workspace: string; user: string };
}

/** Whether the agent's sessions are read with these settings (its enabledSetting, default on). */
export function agentEnabled(agent: AgentAdapter, settings: EngineSettings): boolean {
  return agent.enabledSetting === undefined || settings.switches[agent.enabledSetting] !== false;
}
