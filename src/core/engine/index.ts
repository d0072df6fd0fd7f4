// The engine's public surface (docs/ARCHITECTURE.md, "Where things are"): the facade and what the extension and the
// CLI read from it. Import from here rather than from the individual files.
export { RewindEngine, type RewindEngineOptions, type AppendResult, type UserMessageRef, type UndoOutcome } from './engine';
export type * from '../sources/listings';
export { oneLine, contentText, plainText } from '../transcript/transcript';
export { branchesOf, sessionTitle, describeSession } from '../sources/session-details';
export { filesAnchorOf } from '../sources/file-anchors';
export type { NamedOwner, NamedHistory, NamedBlame } from './file-history';
export { recoveryLine } from './rewind-preview';
export { parseSettings, fileCheckpointerOptions, FILE_CHECKPOINT_DEFAULTS, DEFAULT_EXCLUDES, type EngineSettings } from '../settings/settings';
export { cliCheckpointerOptions, loadCliSettings, parseJsonc, type CliSettings } from '../settings/settings-file';
export { settingsSource, settingsCandidates } from '../settings/settings-source';
export { ownersOfText, editorLines, type LineOwner, type DescribedOwner, type DescribedBlame } from './line-blame';
export type { NamedPrompt, NamedSession } from './prompt-names';
export type { WorkspaceTimelinePoint, TimelinePointKind } from './workspace-timeline';
