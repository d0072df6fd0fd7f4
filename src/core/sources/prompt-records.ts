// Prompt records: what an agent's prompt hook knew about a prompt when it took the workspace snapshot, kept so the
// snapshot can be tied to the prompt's transcript line later. When the hook runs, that line is not on disk yet (for a
// new session not even the file), so the tie is made lazily, when the transcript is read:
//   1. by prompt id, when the agent gives its hooks one that its transcript lines carry too. A fork that copies the
//      origin's prompt lines and gives each copy the fork's new prompt id can make several lines share one id: the
//      real prompt is the last of them (copies come first).
//   2. without a prompt id: by position and text, the first unmatched prompt at or after the transcript's size at
//      hook time whose text has the same sha256.
// One JSONL file per session: <home>/<agent folder>/prompts/<session_id>.jsonl. Every line read back is validated.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readRegularFileSync } from '../agent-files';
import { parseJsonlRecords } from './jsonl-records';

export const promptRecordSchema = z.object({
  v: z.literal(1),
  /** The snapshot's anchor id (the prompt id, or `prompt-<uuid v7>` without one). */
  anchorId: z.string().min(1),
  promptId: z.string().min(1).optional(),
  /** sha256 (hex) of the prompt text as the hook received it (UTF-8). */
  promptSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Length of the prompt text in UTF-16 code units (JavaScript string length). */
  promptLength: z.number().int().min(0),
  transcriptPath: z.string(),
  /** Bytes of the transcript when the hook ran; 0 when it did not exist yet. */
  transcriptSize: z.number().int().min(0),
  cwd: z.string(),
  workspaceRoot: z.string(),
  /** ISO time the hook ran. */
  at: z.string(),
});
export type PromptRecord = z.infer<typeof promptRecordSchema>;

/** A prompt line of a transcript, as a reader sees it. */
export interface TranscriptPrompt {
  /** The line's uuid (the entry id). */
  entryId: string;
  promptId?: string;
  /** The prompt's text (a string content, or its text blocks joined as the reader does). */
  text: string;
  /** Where the line starts in the transcript file. */
  byteOffset: number;
}

/** Session ids become file names: only the characters UUIDs use (and a few more), no path parts. */
export function isSafeSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

/** `folder`: the agent's folder under the home (its id). */
export function promptsDir(home: string, folder: string): string {
  return join(home, folder, 'prompts');
}

export function promptRecordsFile(home: string, folder: string, sessionId: string): string {
  if (!isSafeSessionId(sessionId)) throw new Error(`unusable session id ${JSON.stringify(sessionId.slice(0, 80))}`);
  return join(promptsDir(home, folder), `${sessionId}.jsonl`);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Appends one record (one write of one line, so concurrent hooks do not interleave). */
export function appendPromptRecord(home: string, folder: string, sessionId: string, rec: PromptRecord): void {
  const checked = promptRecordSchema.parse(rec);
  const file = promptRecordsFile(home, folder, sessionId);
  mkdirSync(promptsDir(home, folder), { recursive: true });
  appendFileSync(file, JSON.stringify(checked) + '\n');
}

/** The session's records in the order they were written; lines that are not valid records are skipped. */
export function readPromptRecords(home: string, folder: string, sessionId: string): PromptRecord[] {
  let text: string;
  try {
    text = readRegularFileSync(promptRecordsFile(home, folder, sessionId)).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseJsonlRecords(text, promptRecordSchema);
}

/**
 * Ties records to transcript prompt lines: entry id → anchor id of its snapshot. A prompt gets at most one record and
 * a record at most one prompt; records that match nothing (the prompt was blocked, the transcript is not written yet)
 * are left out.
 */
export function matchPromptRecords(prompts: readonly TranscriptPrompt[], records: readonly PromptRecord[]): Map<string, string> {
  const ordered = [...prompts].sort((a, b) => a.byteOffset - b.byteOffset);
  const shaOf = new Map<string, string>();
  const sha = (p: TranscriptPrompt) => {
    let h = shaOf.get(p.entryId);
    if (h === undefined) shaOf.set(p.entryId, (h = sha256Hex(p.text)));
    return h;
  };
  const used = new Set<string>();
  const out = new Map<string, string>();
  const take = (p: TranscriptPrompt, r: PromptRecord) => {
    used.add(p.entryId);
    out.set(p.entryId, r.anchorId);
  };
  // 1. prompt ids
  for (const r of records) {
    if (!r.promptId) continue;
    const same = ordered.filter((p) => p.promptId === r.promptId && !used.has(p.entryId));
    if (same.length === 0) continue;
    const after = same.filter((p) => p.byteOffset >= r.transcriptSize);
    const pool = after.length ? after : same;
    const sameText = pool.filter((p) => sha(p) === r.promptSha256);
    take((sameText.length ? sameText : pool).at(-1)!, r);
  }
  // 2. position and text, for records written without a prompt id
  for (const r of records) {
    if (r.promptId) continue;
    const p = ordered.find((q) => !used.has(q.entryId) && q.byteOffset >= r.transcriptSize && sha(q) === r.promptSha256);
    if (p) take(p, r);
  }
  return out;
}
