// The snapshot an agent's hook takes in a fresh process (`agent-rewind hook <agent>`): through the home's checkpoint
// service when it serves the folder with the CLI's settings, else in-process. Injected into the adapters' hook
// handlers (sources/hook-snapshot.ts), which never import the service themselves.
import { cliCheckpointerOptions } from '../settings/settings-file';
import { HookProblem, type HookSnapshot } from '../sources/hook-snapshot';
import { openFileCheckpoints } from './client';

/** A fresh process's snapshot: through the home's service when it serves the folder with the CLI's settings, else
 *  in-process. `warn` gets settings-file problems. */
export function freshProcessSnapshot(home: string, warn: (message: string) => void): HookSnapshot {
  return async ({ root, sessionId, anchorId, kind }) => {
    let fc;
    try {
      // the extension's settings (settings-file.ts), as every process that snapshots a workspace uses them
      // a fresh process: ends after this snapshot (FileCheckpointerOptions.shortLived)
      fc = openFileCheckpoints({ ...cliCheckpointerOptions(home, root, warn), shortLived: true });
    } catch (err) {
      throw new HookProblem((err as Error).message);
    }
    try {
      return { summary: await fc.snapshot(sessionId, anchorId, kind), realRoot: fc.workspaceRoot };
    } finally {
      await fc.dispose();
    }
  };
}
