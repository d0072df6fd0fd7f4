// The source layer's public surface (docs/ARCHITECTURE.md, "The source layer"): the agents (registry.ts) behind one
// interface, their sessions and their hooks. Import from here rather than from the individual files.
export {
  agents,
  agentById,
  agentOfKind,
  agentName,
  agentIcon,
  isReadOnlySource,
  sessionKindLabels,
  agentSwitchKeys,
  registerAgent,
  unregisterAgent,
  loadAgentModules,
  loadedAgentModules,
  agentModulesFromEnv,
  foreignSources,
  foreignOwner,
  writableSources,
  hookAgents,
} from './registry';
export {
  agentEnabled,
  HooksSettingsError,
  type AgentAdapter,
  type AgentHooks,
  type AgentCapabilities,
  type HooksTarget,
  type HookCommand,
  type HooksReport,
  type HookRun,
  type HookOutcome,
  type SessionKindInfo,
} from './agent';
export { HookProblem, SnapshotDeclined, type HookSnapshot, type HookSnapshotRequest } from './hook-snapshot';
export type * from './listings';
export {
  listSessions,
  listAllSessions,
  findMostRecentSession,
  findSessionFilesById,
  readSessionSummary,
  sessionRoots,
  type SessionSummary,
  type DiscoveryOptions,
} from './pi/discovery';
export { SessionSources, readFirstLine } from './session-sources';
export { fileStamp, fileRef, type SessionRef, type SessionStamp } from './session-ref';
export { ReadOnlySessionError, type SourceAdapter, type SourceContext, type WatchedFolder, type ConversationRewind } from './source-adapter';
export {
  isForeignView,
  type SessionView,
  type ForeignSessionView,
  type SessionSourceKind,
  type SessionViewLoadReport,
  type SubagentView,
  type ForkOrigin,
} from './session-view';
export { runEditorChatAction, type EditorChatAction, type EditorChatTarget } from './vscode-chat/editor-chat';
