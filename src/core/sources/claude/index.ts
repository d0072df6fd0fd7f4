// The Claude Code source: finding transcripts, reading them into the engine's model, and writing forks.
export { readClaudeSession, type ReadClaudeSessionOptions } from './reader';
export { ClaudeSession } from './session';
export type { UserPrompt } from './normalize';
export type { FileHistoryFile } from './file-history';
export { claudeConfigDirs, discoverClaudeSessions, isClaudeTranscriptFile, looksLikeClaudeTranscript, type ClaudeSessionListing } from './discovery';
export { writeClaudeFork, type ClaudeForkOptions } from './fork';
