// Cross-process sync of a session file (docs/ARCHITECTURE.md, "Writers"): how far this process has read the file,
// reading only what other processes appended since, and the file lock a transaction holds.
import { acquireFileLock, LockBusyError, NotALockError, type HeldLock } from '../file-lock';
import { parseJsonlLenient, type ParsedJsonl } from './jsonl';
import type { SessionStorage } from './storage';

/** How long a transaction waits for another live process's lock (about what the lock library used before waited). */
const LOCK_TIMEOUT_MS = 40_000;
export const CONSUMED_TAIL_BYTES = 64;

/** Where this process has read a session file up to, and whether its last line may still be open. */
export class ReadCursor {
  /** Bytes (and lines) of the file already parsed; reading appended lines starts here. */
  bytes = 0;
  lines = 0;
  /** The last bytes before `bytes` as they were read: if they differ on disk, the file was edited (by hand) and
   *  `bytes` no longer points at a line start, so the whole file is read again. */
  tail: Buffer = Buffer.alloc(0);
  /** The file may end without a newline (a writer died mid-line); check before appending. */
  tailMayBeOpen = false;

  /** The file's first `length` bytes (`lines` lines) are read; `endingWith` holds at least their last bytes. */
  readUpTo(length: number, lines: number, endingWith: Buffer): void {
    this.bytes = length;
    this.lines = lines;
    this.tail = Buffer.from(endingWith.subarray(Math.max(0, endingWith.length - CONSUMED_TAIL_BYTES)));
  }

  restart(): void {
    this.bytes = 0;
    this.lines = 0;
    this.tail = Buffer.alloc(0);
  }
}

/** The complete lines appended to `file` since the cursor (which moves past them); undefined when there are none. A
 *  line still being written is left for later. A file replaced or edited in place is read again from its start. */
export async function readAppended(storage: SessionStorage, file: string, cursor: ReadCursor): Promise<ParsedJsonl | undefined> {
  const st = await storage.stat(file);
  if (!st) return undefined;
  // replaced by a shorter file (another process rewrote it): read it all again; known ids are skipped by the caller
  if (st.size < cursor.bytes) cursor.restart();
  if (st.size === cursor.bytes) return undefined;
  const tailLength = cursor.tail.length;
  let buf = await storage.readBytesFrom(file, cursor.bytes - tailLength);
  if (!buf.subarray(0, tailLength).equals(cursor.tail)) {
    // edited in place (a line changed length): our offset is no longer a line start, so read it all again
    cursor.restart();
    buf = await storage.readBytesFrom(file, 0);
  } else {
    buf = buf.subarray(tailLength);
  }
  const lastNl = buf.lastIndexOf(0x0a);
  cursor.tailMayBeOpen = lastNl !== buf.length - 1;
  if (lastNl === -1) return undefined;
  const parsed = parseJsonlLenient(buf.subarray(0, lastNl + 1).toString('utf8'), cursor.lines + 1);
  const newTail = Buffer.concat([cursor.tail, buf.subarray(Math.max(0, lastNl + 1 - CONSUMED_TAIL_BYTES), lastNl + 1)]);
  cursor.readUpTo(cursor.bytes + lastNl + 1, cursor.lines + parsed.lineCount, newTail);
  return parsed;
}

/** Takes the cross-process lock of a session file (`<file>.lock`, core/file-lock.ts), with errors that say which
 *  lock and what to do. */
export async function lockSessionFile(file: string): Promise<HeldLock> {
  const lockPath = `${file}.lock`;
  const hint = `if no agent-rewind command or VS Code window is working on this session, remove ${lockPath}`;
  try {
    return await acquireFileLock(lockPath, { timeoutMs: LOCK_TIMEOUT_MS });
  } catch (err) {
    const why = err instanceof LockBusyError ? `it is locked by process ${err.owner}` : err instanceof NotALockError ? err.message : (err as Error).message;
    throw new Error(`could not lock ${file}: ${why}; ${hint}`, { cause: err });
  }
}
