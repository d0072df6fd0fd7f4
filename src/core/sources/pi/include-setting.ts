// The setting (agentRewind.includePiSessions) that leaves pi's and oh-my-pi's own folders out. Its own file: the
// adapter (agent.ts) loads the reader lazily, and the reader's folder list reads the setting, so neither imports the
// other.
export const INCLUDE_PI_SESSIONS = 'includePiSessions';
