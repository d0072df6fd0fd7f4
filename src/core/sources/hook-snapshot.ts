// How the agents' hook handlers (claude/, codex/) take their snapshot. By default a fresh process asks the home's
// checkpoint service over its line protocol and snapshots in-process when it is not answered; the service's own hook
// endpoint (service/hook-endpoint.ts) runs the same handlers with its warm checkpointer of the folder instead, so
// validation, anchors and prompt records are one piece of code whichever way a hook arrives.
import type { SnapshotSummary } from '../files/types';
import { cliCheckpointerOptions } from '../engine/settings-file';
import { openFileCheckpoints } from '../service/client';

/** A problem worth a log line, not a crash (bad input, a folder that is gone). */
export class HookProblem extends Error {}

/** The service does not answer this folder (or not with the options the CLI would use): the caller falls back to the
 *  fresh-process path. Thrown before anything is written, so falling back never records a prompt twice. */
export class SnapshotDeclined extends Error {
  constructor(
    readonly code: 'not-served' | 'options-differ' | 'no-deadline' | 'late',
    message: string,
  ) {
    super(message);
  }
}

export interface HookSnapshotRequest {
  /** The workspace as the hook found it (not yet resolved). */
  root: string;
  sessionId: string;
  anchorId: string;
  kind: 'user-message' | 'turn-end';
}

export type HookSnapshot = (r: HookSnapshotRequest) => Promise<{ summary: SnapshotSummary; realRoot: string }>;

/** A fresh process's snapshot: through the home's service when it serves the folder with the CLI's settings, else
 *  in-process. `warn` gets settings-file problems. */
export function freshProcessSnapshot(home: string, warn: (message: string) => void): HookSnapshot {
  return async ({ root, sessionId, anchorId, kind }) => {
    let fc;
    try {
      // the extension's settings (settings-file.ts), as every process that snapshots a workspace uses them
      fc = openFileCheckpoints(cliCheckpointerOptions(home, root, warn));
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
