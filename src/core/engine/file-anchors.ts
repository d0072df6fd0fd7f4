// Which file snapshot belongs to which user message. For our sessions the snapshot is keyed by the message's own id
// (one anchor). A foreign agent's hook cannot know the id its transcript will give the prompt, so its snapshot is
// keyed by what the hook does know (Claude Code's prompt id, Codex's turn id) and is matched to the message here,
// when the transcript is read.
import type { SnapshotRecord } from '../files/snapshot-records';
import type { FileCheckpoints } from '../files/types';
import { isForeignView, type SessionView } from '../sources/session-view';

/** Every user-message snapshot of the session, by the entry id of the message it belongs to. */
export async function snapshotsByEntry(view: SessionView, checkpointer: FileCheckpoints): Promise<Map<string, SnapshotRecord>> {
  return snapshotsByEntryFromRecords(view, await checkpointer.listSnapshots(view.sessionId));
}

export function snapshotsByEntryFromRecords(view: SessionView, all: readonly SnapshotRecord[]): Map<string, SnapshotRecord> {
  const records = all.filter((r) => r.kind === 'user-message');
  const out = new Map<string, SnapshotRecord>();
  if (!isForeignView(view)) {
    for (const r of records) out.set(r.anchorId, r);
    return out;
  }
  const byKey = new Map(records.map((r) => [r.anchorId, r]));
  for (const entry of view.getEntries()) {
    for (const key of view.checkpointKeysOf(entry.id)) {
      const r = byKey.get(key);
      if (r) {
        out.set(entry.id, r);
        break;
      }
    }
  }
  return out;
}

/** The key the checkpointer knows the message's snapshot by (for our sessions, the message id itself). */
export async function snapshotKeyOf(view: SessionView, entryId: string, checkpointer: FileCheckpoints): Promise<string> {
  if (!isForeignView(view)) return entryId;
  const keys = view.checkpointKeysOf(entryId);
  if (keys.length > 1) {
    const known = new Set((await checkpointer.listSnapshots(view.sessionId)).map((r) => r.anchorId));
    const found = keys.find((k) => known.has(k));
    if (found) return found;
  }
  // No key at all: a key that names no snapshot, so the checkpointer says "no snapshot for this message".
  return keys[0] ?? `entry:${entryId}`;
}
