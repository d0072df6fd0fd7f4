// The snapshot `hooks install` takes to warm the store and stat index is filed under a session of its own,
// `<agent>-hooks-baseline`. It is no agent's turn: on the folder's timeline it is a moment of the workspace, never a
// window someone worked in (a prompt start whose turn never ends would make every later change "several sessions'").

const SUFFIX = '-hooks-baseline';

/** The session id the install baseline of `agent`'s hooks is filed under. */
export const baselineSessionOf = (agent: string): string => `${agent}${SUFFIX}`;

/** Whether `sessionId` names such a baseline rather than an agent's session. */
export const isBaselineSession = (sessionId: string): boolean => sessionId.endsWith(SUFFIX);
