// OpenCode's sessions read once from a data folder (both layouts, de-duplicated by id: the database's copy wins, and
// the JSON adds only what the database lacks), for callers that read once; the source adapter keeps an OpenCodeStore.
import type { OcSessionInfo } from './rows';
import type { OpenCodeSession } from './session';
import { OpenCodeStore } from './store';

/** Every session of both layouts (no messages), one per id. A database that cannot be read is reported through
 *  `warn` and its sessions left out; the JSON ones are still listed. */
export async function listOpenCodeSessions(dataDir: string, warn: (message: string) => void = () => undefined): Promise<OcSessionInfo[]> {
  const store = new OpenCodeStore(dataDir);
  try {
    return await store.list(warn);
  } finally {
    store.dispose();
  }
}

/** One session read whole into the common model; undefined when neither layout has it. */
export async function readOpenCodeSession(dataDir: string, sessionId: string, sessionRef: string): Promise<OpenCodeSession | undefined> {
  const store = new OpenCodeStore(dataDir);
  try {
    return await store.read(sessionId, sessionRef);
  } finally {
    store.dispose();
  }
}
