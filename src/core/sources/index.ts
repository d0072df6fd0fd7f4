// The source layer's public surface (docs/ARCHITECTURE.md, "The source layer"): one interface over every agent's
// sessions, and the agents' hook settings. Import from here rather than from the individual files.
export { foreignSources, foreignOwner } from './foreign';
export { SessionSources, readFirstLine } from './session-sources';
export { ReadOnlySessionError, type SourceAdapter, type SourceContext, type WatchedFolder, type ConversationRewind } from './source-adapter';
export {
  agentName,
  isForeignView,
  isReadOnlySource,
  type SessionView,
  type ForeignSessionView,
  type SessionSourceKind,
  type SessionViewLoadReport,
  type SubagentView,
  type ForkOrigin,
} from './session-view';
export {
  ClaudeSettingsError,
  installClaudeHooks,
  uninstallClaudeHooks,
  claudeHooksStatus,
  type HookLauncher,
  type HooksChange,
  type HooksScope,
  type HooksLocation,
} from './claude/hooks-settings';
export {
  CodexSettingsError,
  installCodexHooks,
  uninstallCodexHooks,
  codexHooksInstalled,
  codexHooksTrustRecorded,
  type CodexHooksChange,
  type CodexHooksScope,
  type CodexHooksLocation,
} from './codex/hooks-settings';
