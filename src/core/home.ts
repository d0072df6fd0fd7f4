import { homedir } from 'node:os';
import { resolve } from 'node:path';

/** Where agent-rewind keeps sessions, blobs and file checkpoints: --home, $AGENT_REWIND_HOME, or ~/.agent-rewind. */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env.AGENT_REWIND_HOME) return resolve(env.AGENT_REWIND_HOME);
  return resolve(homedir(), '.agent-rewind');
}
