// Loading a session file (docs/ARCHITECTURE.md, "Reading never writes"): lenient parsing (a bad line is reported and
// kept in the file, never thrown), the header check, entry validation, and the in-memory migration of an old format,
// whose file upgrade (session-file-write.ts) waits for the first write.
import { parseJsonlColumns, type SkippedLine } from './jsonl';
import { migrateSession } from './migrations';
import { ReadCursor } from './session-file-sync';
import type { SessionStorage } from './storage';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from './types';

export interface LoadReport {
  /** Lines that could not be used, with 1-based line numbers; they stay in the file untouched. */
  skipped: SkippedLine[];
  /** The version the file was migrated from, in memory. The file itself is upgraded (after a backup of its bytes,
   *  see backupFile) only when something is written to it: reading never changes a file. */
  migratedFrom?: number;
  /** Where the previous bytes were copied before the file was replaced (invalid header, or a migration of a file
   *  with unusable lines or of a "v1" file whose entries already had ids and parents). */
  backupFile?: string;
  /** Blob hashes referenced by image blocks but missing from the blob store (the refs are kept). */
  missingBlobs?: string[];
}

/** open() with onInvalidHeader 'throw' on a file that is not a session. */
export class InvalidSessionFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file} is not a session file (${reason}); it was not changed`);
  }
}

/** An old-format file read and migrated in memory only: what its upgrade on the first write needs. */
export interface UpgradePlan {
  from: number;
  /** The file's bytes as read: the upgrade is skipped if the file no longer starts with them. */
  bytes: Buffer;
  /** The header's 1-based line number. */
  header: number;
  entryLines: Map<number, SessionEntry>;
  /** Entries the migration changed beyond adding an id and a parentId: re-serialized whole. */
  reshaped: Set<SessionEntry>;
  /** Whether each entry had an id and a parentId of its own in the file. */
  original: Map<SessionEntry, { id: boolean; parentId: boolean }>;
}

export type ReadSession =
  /** Missing or empty: a new session at that path. */
  | { kind: 'new' }
  /** The first record is not a session header (the caller backs the bytes up before replacing them). */
  | { kind: 'invalid'; skipped: SkippedLine[] }
  | {
      kind: 'session';
      header: SessionHeader;
      /** A `{"type":"title"}` line found before the header, kept byte for byte. */
      titleLine: string | undefined;
      entries: SessionEntry[];
      skipped: SkippedLine[];
      cursor: ReadCursor;
      upgrade: UpgradePlan | undefined;
    };

/** Why a parsed record cannot be an entry (undefined when it can); `seen` holds the ids already accepted. */
export function invalidEntryReason(value: Record<string, unknown>, seen: Set<string>): string | undefined {
  if (typeof value.type !== 'string') return 'entry without a type';
  if (value.type === 'session' || value.type === 'title') return `a second "${value.type}" line`;
  if (typeof value.id !== 'string' || value.id === '') return 'entry without an id';
  if (seen.has(value.id)) return `duplicate entry id ${value.id}`;
  if (value.parentId !== null && value.parentId !== undefined && typeof value.parentId !== 'string') return 'parentId is not a string';
  return undefined;
}

/** Reads and checks a session file, migrating an old format in memory. Never writes. */
export async function readSessionFile(storage: SessionStorage, file: string, onInvalidHeader: 'replace' | 'throw'): Promise<ReadSession> {
  const st = await storage.stat(file);
  if (st && !st.isFile) throw new Error(`${file} is not a file`);
  // an existing empty file is not a session someone asked to open; 'replace' starts one there, 'throw' refuses
  if (st && st.size === 0 && onInvalidHeader === 'throw') throw new InvalidSessionFileError(file, 'empty file');
  if (!st || st.size === 0) return { kind: 'new' };
  const bytes = await storage.readBytesFrom(file, 0);
  const text = bytes.toString('utf8');
  const parsed = parseJsonlColumns(text);
  const { values, lines } = parsed;
  const skipped = parsed.skipped;
  let titleLine: string | undefined;
  let first = 0;
  if (values[0]?.type === 'title') {
    const lineNo = lines[0]!;
    titleLine = text.split('\n', lineNo)[lineNo - 1]!.replace(/\r$/, '');
    first = 1;
  }
  const head = values[first];
  if (!head || head.type !== 'session' || typeof head.id !== 'string') {
    const reason = !head ? 'no readable line' : head.type === 'session' ? 'the session header has no string id' : 'the first record is not a session header';
    if (onInvalidHeader === 'throw') throw new InvalidSessionFileError(file, reason);
    return { kind: 'invalid', skipped };
  }
  const header = head as SessionHeader;
  const legacy = !(typeof header.version === 'number' && header.version >= 2);
  const entries: SessionEntry[] = [];
  const entryLines = new Map<number, SessionEntry>();
  const seen = new Set<string>();
  let outOfOrder = false;
  for (let i = first + 1; i < values.length; i++) {
    const value = values[i]!;
    const reason = legacy ? (typeof value.type === 'string' ? undefined : 'entry without a type') : invalidEntryReason(value, seen);
    if (reason) {
      skipped.push({ line: lines[i]!, reason });
      outOfOrder = true;
      continue;
    }
    if (!legacy) seen.add(value.id as string);
    entries.push(value as SessionEntry);
    entryLines.set(lines[i]!, value as SessionEntry);
  }
  if (outOfOrder) skipped.sort((a, b) => a.line - b.line);
  const tornTail = parsed.unterminated && parsed.skipped.some((x) => x.line === parsed.lineCount);
  // a torn last line may still be being written: leave it unconsumed so syncFromDisk reads it once it is complete
  const cursor = new ReadCursor();
  const consumed = tornTail ? bytes.lastIndexOf(0x0a) + 1 : bytes.length;
  cursor.readUpTo(consumed, tornTail ? parsed.lineCount - 1 : parsed.lineCount, bytes.subarray(0, consumed));
  cursor.tailMayBeOpen = parsed.unterminated;

  const original = new Map<SessionEntry, { id: boolean; parentId: boolean }>();
  if (header.version !== CURRENT_SESSION_VERSION) for (const e of entries) original.set(e, { id: 'id' in e, parentId: 'parentId' in e });
  const reshaped = new Set<SessionEntry>();
  const from = migrateSession(header, entries, reshaped);
  // migrated in memory only: the file is upgraded by the first write, never by reading
  const upgrade = from === undefined ? undefined : { from, bytes, header: lines[first]!, entryLines, reshaped, original };
  return { kind: 'session', header, titleLine, entries, skipped, cursor, upgrade };
}
