// Old session formats are upgraded in memory on load; the file itself is only upgraded when something is written to
// it (see SessionManager), so reading never changes a file. The ids given to v1 entries are derived from the session
// id and the entry's place in the file, so every process (and every later open) gives the same entry the same id.
// v1 → v2: entries get ids and a linear parent chain in file order; compaction.firstKeptEntryIndex → firstKeptEntryId.
//   Entries that already carry an id and a parentId keep both.
// v2 → v3: message role "hookMessage" → "custom".
import { createHash } from 'node:crypto';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from './types';

/**
 * Upgrades header + entries in place. Returns the version migrated from, or undefined when already current.
 * `reshaped` receives the entries changed beyond gaining an id and a parentId (their lines must be re-serialized
 * when the file is upgraded; every other line can keep its bytes).
 */
export function migrateSession(header: SessionHeader, entries: SessionEntry[], reshaped: Set<SessionEntry> = new Set()): number | undefined {
  const from = typeof header.version === 'number' ? header.version : 1;
  if (from >= CURRENT_SESSION_VERSION) return undefined;
  if (from < 2) migrateV1ToV2(header, entries, reshaped);
  if (from < 3) migrateV2ToV3(header, entries, reshaped);
  return from;
}

/** The id of the v1 entry at `index`: 8 hex digits from the session id and the index, never one already taken. */
function legacyEntryId(sessionId: string, index: number, taken: Set<string>): string {
  for (let n = 0; ; n++) {
    const id = createHash('sha256').update(`${sessionId}\0${index}\0${n}`).digest('hex').slice(0, 8);
    if (!taken.has(id)) return id;
  }
}

function migrateV1ToV2(header: SessionHeader, entries: SessionEntry[], reshaped: Set<SessionEntry>): void {
  const taken = new Set<string>();
  for (const e of entries) if (typeof e.id === 'string') taken.add(e.id);
  let prev: string | null = null;
  let index = 0;
  for (const e of entries) {
    // real v1 entries have neither field; one that has both (a newer file whose header lost its version) keeps its
    // place in the tree instead of being forced into the chain
    const linked = typeof e.id === 'string' && (e.parentId === null || typeof e.parentId === 'string');
    if (typeof e.id !== 'string') {
      e.id = legacyEntryId(String(header.id), index, taken);
      taken.add(e.id);
    }
    if (!linked) e.parentId = prev;
    prev = e.id;
    index++;
  }
  for (const e of entries) {
    if (e.type !== 'compaction' || typeof e.firstKeptEntryIndex !== 'number') continue;
    const kept = entryAtFileIndex(entries, e.firstKeptEntryIndex);
    if (kept) {
      e.firstKeptEntryId = kept.id;
      delete e.firstKeptEntryIndex;
      reshaped.add(e);
    }
  }
  header.version = 2;
}

function migrateV2ToV3(header: SessionHeader, entries: SessionEntry[], reshaped: Set<SessionEntry>): void {
  for (const e of entries) {
    const msg = e.type === 'message' ? (e as { message?: { role?: unknown } }).message : undefined;
    if (msg && msg.role === 'hookMessage') {
      msg.role = 'custom';
      reshaped.add(e);
    }
  }
  header.version = 3;
}

/** Legacy compaction indexes count the header as index 0, so entry i of the list is index i + 1. */
export function entryAtFileIndex(entries: readonly SessionEntry[], index: number): SessionEntry | undefined {
  return Number.isInteger(index) && index >= 1 ? entries[index - 1] : undefined;
}
