// Session state and artifacts (docs/ARCHITECTURE.md, "Contracts: State and artifacts"). Import from here rather than
// from the individual files.
export { SessionState, type StateSnapshot, type SessionStateOptions, type RewindRequest, type StateRewindResult, type ArtifactBlobs } from './session-state';
export { scopeOf, type JsonValue, type StateScope } from './records';
export { foldState, type ArtifactVersion, type FoldedState } from './fold';
