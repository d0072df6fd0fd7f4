// Which file snapshot belongs to which user message. For our sessions the snapshot is keyed by the message's own id
// (one anchor). A foreign agent's hook cannot know the id its transcript will give the prompt, so its snapshot is
// keyed by what the hook does know (Claude Code's prompt id, Codex's turn id) and is matched to the message here,
// when the transcript is read. A fork's copied prompts were snapshotted by its origin: their snapshots are found in the
// origin's records (read-only), and adopted into the fork's session (same root, anchor `origin:<session>:<anchor>`)
// only when acted on, since rewind, preview and undo work on one session.
import { isAbsolute, relative, sep } from 'node:path';
import type { SnapshotRecord } from '../files/snapshot-records';
import type { FileCheckpoints } from '../files/types';
import { isForeignView, type ForeignSessionView, type SessionView } from './session-view';

/** Every user-message snapshot of the session, by the entry id of the message it belongs to. */
export async function snapshotsByEntry(view: SessionView, checkpointer: Pick<FileCheckpoints, 'listSnapshots'>): Promise<Map<string, SnapshotRecord>> {
  const out = snapshotsByEntryFromRecords(view, await checkpointer.listSnapshots(view.sessionId));
  if (!isForeignView(view) || !view.originCheckpointsOf) return out;
  const lists = new Map<string, Promise<SnapshotRecord[]>>();
  for (const entry of view.getEntries()) {
    if (out.has(entry.id)) continue;
    const found = await originSnapshotOf(view, entry.id, checkpointer, lists);
    if (found) out.set(entry.id, found);
  }
  return out;
}

/** The anchor an origin's snapshot is adopted under in the fork: not the fork's prompt id, which its own prompt has. */
export function adoptedAnchor(originSessionId: string, originAnchorId: string): string {
  return `origin:${originSessionId}:${originAnchorId}`;
}

function keysOf(view: ForeignSessionView, entryId: string): string[] {
  const adopted = (view.originCheckpointsOf?.(entryId) ?? []).flatMap((o) => o.keys.map((k) => adoptedAnchor(o.sessionId, k)));
  return [...view.checkpointKeysOf(entryId), ...adopted];
}

/** The origin's user-message snapshot of a copied message, nearest origin first; an unreadable origin has none. */
async function originSnapshotOf(
  view: ForeignSessionView,
  entryId: string,
  checkpointer: Pick<FileCheckpoints, 'listSnapshots'>,
  lists = new Map<string, Promise<SnapshotRecord[]>>(),
): Promise<SnapshotRecord | undefined> {
  for (const origin of view.originCheckpointsOf?.(entryId) ?? []) {
    if (origin.sessionId === view.sessionId) continue;
    let list = lists.get(origin.sessionId);
    if (!list) lists.set(origin.sessionId, (list = checkpointer.listSnapshots(origin.sessionId).catch(() => [])));
    const records = await list;
    for (const key of origin.keys) {
      const r = records.find((x) => x.anchorId === key && x.kind === 'user-message');
      if (r) return r;
    }
  }
  return undefined;
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
    for (const key of keysOf(view, entry.id)) {
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
export async function snapshotKeyOf(view: SessionView, entryId: string, checkpointer: Pick<FileCheckpoints, 'listSnapshots'>): Promise<string> {
  if (!isForeignView(view)) return entryId;
  return keyAmong(view, entryId, keysOf(view, entryId).length > 1 ? await checkpointer.listSnapshots(view.sessionId) : []);
}

/** The first of the message's keys that names one of the session's `records`, else its first key. */
function keyAmong(view: ForeignSessionView, entryId: string, records: readonly SnapshotRecord[]): string {
  const keys = keysOf(view, entryId);
  const known = new Set(records.map((r) => r.anchorId));
  // No key at all: a key that names no snapshot, so the checkpointer says "no snapshot for this message".
  return keys.find((k) => known.has(k)) ?? keys[0] ?? `entry:${entryId}`;
}

/**
 * The snapshot to rewind a message's files to, and a note when it is not one of ours: where there is none (hooks not
 * installed then) but the agent kept its own checkpoint (Claude Code's file history), one is made from it — the
 * workspace as it is now with the files that agent tracked put back — so preview, protection, journal and undo are
 * the same as always, and the note says what such a checkpoint does not cover.
 */
export async function filesAnchorOf(view: SessionView, entryId: string, checkpointer: FileCheckpoints): Promise<{ key: string; note?: string }> {
  if (!isForeignView(view)) return { key: entryId };
  // one listing serves both: which key names the snapshot, and whether it is there at all
  const records = await checkpointer.listSnapshots(view.sessionId);
  const key = keyAmong(view, entryId, records);
  if (records.some((r) => r.anchorId === key && r.kind === 'user-message')) {
    const note = view.snapshotNoteOf?.(entryId, key);
    return note ? { key, note } : { key };
  }
  const origin = await originSnapshotOf(view, entryId, checkpointer);
  if (origin) {
    const anchor = adoptedAnchor(origin.sessionId, origin.anchorId);
    if (await checkpointer.adoptSnapshot(origin.sessionId, origin.anchorId, view.sessionId, anchor)) return { key: anchor };
  }
  if (!view.ownFileCheckpointAt) return { key };
  const own = view.ownFileCheckpointAt(entryId);
  if (!own) return { key };
  const files = own.files
    .map((f) => ({ path: relative(checkpointer.workspaceRoot, f.path), source: f.source }))
    .filter((f) => f.path !== '' && !f.path.startsWith('..') && !isAbsolute(f.path))
    .map((f) => ({ ...f, path: f.path.split(sep).join('/') }));
  if (files.length === 0) return { key };
  const imported = await checkpointer.importSnapshot(view.sessionId, `agent-checkpoint:${entryId}`, files);
  return { key: imported.anchorId, note: own.coverage };
}
