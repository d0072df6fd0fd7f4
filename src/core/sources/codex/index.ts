// The Codex CLI source: finding rollouts, reading them into the engine's model, writing forks, and the hooks that
// snapshot the workspace per prompt.
export { readCodexSession, type ReadCodexSessionOptions } from './reader';
export { CodexSession } from './session';
export type { CodexPrompt } from './replay';
export { codexHome, discoverCodexSessions, looksLikeCodexRollout, type CodexSessionListing } from './discovery';
export { writeCodexFork, uuidV7, type CodexForkOptions } from './fork';
export { CodexSource } from './codex-source';
