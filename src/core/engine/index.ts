// The engine's public surface (docs/ARCHITECTURE.md, "Where things are"): the facade and what the extension and the
// CLI read from it. Import from here rather than from the individual files.
export { RewindEngine, type RewindEngineOptions, type AppendResult, type UserMessageRef, type UndoOutcome } from './engine';
export type * from './types';
export { oneLine, contentText, plainText } from './transcript';
export { branchesOf, sessionTitle, describeSession } from './session-details';
export { filesAnchorOf } from './file-anchors';
export { parseSettings, fileCheckpointerOptions, FILE_CHECKPOINT_DEFAULTS, DEFAULT_EXCLUDES, type EngineSettings } from './settings';
export { cliCheckpointerOptions, loadCliSettings, parseJsonc, type CliSettings } from './settings-file';
export { settingsSource, settingsCandidates } from './settings-source';
