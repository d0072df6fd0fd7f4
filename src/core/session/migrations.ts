// Old session formats are upgraded in memory on load (the caller then rewrites the file atomically).
// v1 → v2: entries get ids and a linear parent chain in file order; compaction.firstKeptEntryIndex → firstKeptEntryId.
//   Entries that already carry an id and a parentId keep both.
// v2 → v3: message role "hookMessage" → "custom".
import { newEntryId } from './ids';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from './types';

/** Upgrades header + entries in place. Returns the version migrated from, or undefined when already current. */
export function migrateSession(header: SessionHeader, entries: SessionEntry[]): number | undefined {
  const from = typeof header.version === 'number' ? header.version : 1;
  if (from >= CURRENT_SESSION_VERSION) return undefined;
  if (from < 2) migrateV1ToV2(header, entries);
  if (from < 3) migrateV2ToV3(header, entries);
  return from;
}

function migrateV1ToV2(header: SessionHeader, entries: SessionEntry[]): void {
  const taken = new Set<string>();
  for (const e of entries) if (typeof e.id === 'string') taken.add(e.id);
  let prev: string | null = null;
  for (const e of entries) {
    // real v1 entries have neither field; one that has both (a newer file whose header lost its version) keeps its
    // place in the tree instead of being forced into the chain
    const linked = typeof e.id === 'string' && (e.parentId === null || typeof e.parentId === 'string');
    if (typeof e.id !== 'string') {
      e.id = newEntryId(taken);
      taken.add(e.id);
    }
    if (!linked) e.parentId = prev;
    prev = e.id;
  }
  for (const e of entries) {
    if (e.type !== 'compaction' || typeof e.firstKeptEntryIndex !== 'number') continue;
    const kept = entryAtFileIndex(entries, e.firstKeptEntryIndex);
    if (kept) {
      e.firstKeptEntryId = kept.id;
      delete e.firstKeptEntryIndex;
    }
  }
  header.version = 2;
}

function migrateV2ToV3(header: SessionHeader, entries: SessionEntry[]): void {
  for (const e of entries) {
    const msg = e.type === 'message' ? (e as { message?: { role?: unknown } }).message : undefined;
    if (msg && msg.role === 'hookMessage') msg.role = 'custom';
  }
  header.version = 3;
}

/** Legacy compaction indexes count the header as index 0, so entry i of the list is index i + 1. */
export function entryAtFileIndex(entries: readonly SessionEntry[], index: number): SessionEntry | undefined {
  return Number.isInteger(index) && index >= 1 ? entries[index - 1] : undefined;
}
