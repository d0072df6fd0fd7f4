// Writing a session file (docs/ARCHITECTURE.md, "Contracts: Session files"): the whole file as text, the byte-keeping
// upgrade of an old-format file, and the backups made before either replaces bytes. The facade (session-manager.ts)
// decides when; these only say what.
import { prepareForPersist, type PendingBlob } from './persist-transform';
import type { UpgradePlan } from './session-file-read';
import type { SessionStorage } from './storage';
import type { SessionEntry, SessionHeader } from './types';

/** Thrown by every operation after a write to the session file failed; `cause` is the first failure. */
export class SessionPersistenceError extends Error {
  constructor(file: string | undefined, cause: unknown) {
    super(`session file ${file ?? '(memory)'} could not be written: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** Copies file to a new `<file>.<kind>-<timestamp>[-n].bak` (never overwriting an older backup). */
export async function backupFile(storage: SessionStorage, file: string, kind: string): Promise<string> {
  const base = `${file}.${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
  for (let n = 0; ; n++) {
    const name = n === 0 ? base : base.replace(/\.bak$/, `-${n}.bak`);
    try {
      await storage.copyFile(file, name);
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw err;
    }
  }
}

/** The new lines for entries (large strings truncated, images to the blob store) and the blobs they need. */
export function entryLines(entries: readonly SessionEntry[]): { lines: string[]; blobs: PendingBlob[] } {
  const lines: string[] = [];
  const blobs: PendingBlob[] = [];
  for (const e of entries) {
    const p = prepareForPersist(e);
    if (p.blobs.length) blobs.push(...p.blobs);
    lines.push(JSON.stringify(p.value));
  }
  return { lines, blobs };
}

/** The whole file: the title line kept as it was, the header, then the entries. */
export function wholeFileText(
  titleLine: string | undefined,
  header: SessionHeader,
  entries: readonly SessionEntry[],
): { text: string; lines: number; blobs: PendingBlob[] } {
  const body = entryLines(entries);
  const parts: string[] = [];
  if (titleLine !== undefined) parts.push(titleLine);
  parts.push(JSON.stringify(prepareForPersist(header).value), ...body.lines);
  return { text: parts.join('\n') + '\n', lines: parts.length, blobs: body.blobs };
}

/**
 * An old-format file upgraded to the current version: every line is kept byte for byte except the header and what the
 * migration had to change: v1 entries gain an id and a parentId inserted at the start of their own bytes (so bytes
 * that are not valid UTF-8 survive), and only reshaped entries are re-serialized.
 */
export function upgradedFileBytes(current: Buffer, plan: UpgradePlan, header: SessionHeader): { data: Buffer; lines: number; blobs: PendingBlob[] } {
  const out: Buffer[] = [];
  const blobs: PendingBlob[] = [];
  let lineNo = 1;
  let start = 0;
  while (start < current.length) {
    let end = current.indexOf(0x0a, start);
    const terminated = end !== -1;
    if (!terminated) end = current.length;
    const raw = current.subarray(start, end);
    const e = plan.entryLines.get(lineNo);
    if (lineNo === plan.header) out.push(Buffer.from(JSON.stringify(prepareForPersist(header).value), 'utf8'));
    else if (e && (plan.reshaped.has(e) || raw.indexOf(0x7b) === -1)) {
      const p = prepareForPersist(e);
      blobs.push(...p.blobs);
      out.push(Buffer.from(JSON.stringify(p.value), 'utf8'));
    } else if (e) {
      const had = plan.original.get(e) ?? { id: true, parentId: true };
      const add = (had.id ? '' : `"id":${JSON.stringify(e.id)},`) + (had.parentId ? '' : `"parentId":${JSON.stringify(e.parentId)},`);
      const brace = raw.indexOf(0x7b) + 1;
      const rest = raw.subarray(brace);
      // `{}` has nothing after the inserted fields: no trailing comma then
      const body = /^\s*}/.test(rest.toString('latin1', 0, Math.min(rest.length, 64))) ? add.replace(/,$/, '') : add;
      out.push(Buffer.concat([raw.subarray(0, brace), Buffer.from(body, 'utf8'), rest]));
    } else out.push(Buffer.from(raw)); // title line, lines we could not read, blank lines: as they were
    out.push(terminated ? Buffer.from('\n') : Buffer.alloc(0));
    start = end + 1;
    lineNo++;
  }
  return { data: Buffer.concat(out), lines: lineNo - 1, blobs };
}
