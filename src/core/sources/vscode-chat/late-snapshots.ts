// Without our hooks, the only sign of a new VS Code chat request is its line in the session log, which VS Code writes
// about every 5 s, while the agent is already at work. So the extension snapshots the workspace as soon as it sees a
// request with no snapshot yet, under the request id (VsChatSession.checkpointKeysOf finds it), and records how late
// that was: the preview then says the snapshot may already hold what the agent changed in those seconds.
// One JSONL file per session: <home>/vscode-chat/late/<sessionId>.jsonl. Nothing is written into VS Code's folders.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readRegularFileSync } from '../../agent-files';
import { parseJsonlRecords } from '../jsonl-records';
import type { SnapshotRecord } from '../../files/snapshot-records';
import type { ChatRequestInfo } from './convert';
import { isSafeChatSessionId } from './prompt-records';

export const lateSnapshotRecordSchema = z.object({
  v: z.literal(1),
  requestId: z.string().min(1),
  /** The request's submit time (VS Code's timestamp, ms since epoch). */
  requestAtMs: z.number().int().min(0),
  /** When the snapshot was taken (ms since epoch). */
  takenAtMs: z.number().int().min(0),
});
export type LateSnapshotRecord = z.infer<typeof lateSnapshotRecordSchema>;

/** A request seen later than this after it was sent is not snapshotted: the workspace then holds too much of the
 *  agent's work to pass for the state the request was sent in (an old session read at start-up, a log written late). */
export const LATE_SNAPSHOT_LIMIT_MS = 60_000;
/** How far the request's clock may be ahead of ours (both are this machine's; rounding only). */
const CLOCK_SLACK_MS = 2_000;

function lateRecordsFile(home: string, sessionId: string): string {
  if (!isSafeChatSessionId(sessionId)) throw new Error(`unusable session id ${JSON.stringify(sessionId.slice(0, 80))}`);
  return join(home, 'vscode-chat', 'late', `${sessionId}.jsonl`);
}

export function appendLateSnapshotRecord(home: string, sessionId: string, rec: LateSnapshotRecord): void {
  const checked = lateSnapshotRecordSchema.parse(rec);
  mkdirSync(join(home, 'vscode-chat', 'late'), { recursive: true });
  appendFileSync(lateRecordsFile(home, sessionId), JSON.stringify(checked) + '\n');
}

/** The session's late snapshots by request id (the first record of a request wins); damaged lines are skipped. */
export function readLateSnapshotRecords(home: string, sessionId: string): Map<string, LateSnapshotRecord> {
  const out = new Map<string, LateSnapshotRecord>();
  if (!isSafeChatSessionId(sessionId)) return out;
  let text: string;
  try {
    text = readRegularFileSync(lateRecordsFile(home, sessionId)).toString('utf8');
  } catch {
    return out;
  }
  for (const record of parseJsonlRecords(text, lateSnapshotRecordSchema)) if (!out.has(record.requestId)) out.set(record.requestId, record);
  return out;
}

/** What the preview says about a snapshot taken late. */
export function lateSnapshotNote(rec: LateSnapshotRecord): string {
  const seconds = Math.max(0, rec.takenAtMs - rec.requestAtMs) / 1000;
  return (
    `This snapshot was taken ${seconds.toFixed(1)} s after the request was sent (agent-rewind's hooks were not installed, ` +
    `so it was taken when the request appeared in VS Code's chat log): changes the agent made in those seconds are in it, ` +
    `and rewinding to it does not undo them.`
  );
}

export interface LateSnapshotRun {
  home: string;
  sessionId: string;
  requests: readonly ChatRequestInfo[];
  /** The keys a request's snapshot may be stored under (VsChatSession.checkpointKeysOf). */
  keysOf: (requestId: string) => readonly string[];
  /** The session's snapshot records (FileCheckpoints.listSnapshots). */
  listSnapshots: () => Promise<readonly SnapshotRecord[]>;
  /** Takes the user-message snapshot of the workspace under this anchor. */
  snapshot: (anchorId: string) => Promise<unknown>;
  /** Whether our hooks are installed for the session's workspace (then they take the snapshots, on time). */
  hooksInstalled: () => boolean;
  now?: () => number;
}

export interface LateSnapshotOutcome {
  taken: LateSnapshotRecord[];
  /** Requests without a snapshot that were left so, and why. */
  skipped: { requestId: string; reason: string }[];
}

/**
 * The session's newest request, when it has no snapshot yet and was sent less than LATE_SNAPSHOT_LIMIT_MS ago, gets
 * one now, under its request id. Only the newest: an older request's turn is over or going on under a newer one, so
 * the workspace now is not what it was sent in.
 */
export async function snapshotNewRequests(run: LateSnapshotRun): Promise<LateSnapshotOutcome> {
  const out: LateSnapshotOutcome = { taken: [], skipped: [] };
  if (run.hooksInstalled()) return out; // they take its snapshot, on time
  const newest = [...run.requests]
    .filter((r) => !r.removed && r.timestamp > 0)
    .sort((a, b) => a.timestamp - b.timestamp)
    .pop();
  if (!newest) return out;
  if (readLateSnapshotRecords(run.home, run.sessionId).has(newest.requestId)) return out;
  const known = new Set((await run.listSnapshots()).filter((r) => r.kind === 'user-message').map((r) => r.anchorId));
  if (run.keysOf(newest.requestId).some((k) => known.has(k))) return out;
  const now = (run.now ?? Date.now)();
  const skip = (reason: string) => {
    out.skipped.push({ requestId: newest.requestId, reason });
    return out;
  };
  if (now - newest.timestamp > LATE_SNAPSHOT_LIMIT_MS) return skip(`seen ${Math.round((now - newest.timestamp) / 1000)} s after it was sent`);
  if (newest.timestamp > now + CLOCK_SLACK_MS) return skip('sent later than now (clock)');
  await run.snapshot(newest.requestId);
  // the snapshot reads the tree until it ends: what the agent changed until then may be in it
  const takenAtMs = Math.floor((run.now ?? Date.now)());
  const rec: LateSnapshotRecord = { v: 1, requestId: newest.requestId, requestAtMs: Math.floor(newest.timestamp), takenAtMs };
  appendLateSnapshotRecord(run.home, run.sessionId, rec);
  out.taken.push(rec);
  return out;
}
