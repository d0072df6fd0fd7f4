// How the agents' hook handlers (claude/, codex/) take their snapshot: injected, never chosen here. A fresh process
// (`agent-rewind hook`) passes service/fresh-hook-snapshot.ts, which asks the home's checkpoint service and snapshots
// in-process when it is not answered; the service's own hook endpoint (service/hook-endpoint.ts) passes its warm
// checkpointer of the folder. So validation, anchors and prompt records are one piece of code whichever way a hook
// arrives, and the source layer never imports the service (the service sits above it).
import type { SnapshotSummary } from '../files/types';

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
