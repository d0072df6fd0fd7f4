// What VS Code's UserPromptSubmit hook knew about a prompt when it took the workspace snapshot. VS Code gives its
// hooks the chat session id and the prompt, never the request id, and writes its log about every 5 s, so the request
// is often not on disk yet: the snapshot is keyed by an anchor of its own and tied to the request when the log is read,
// by session, text and time (matchPromptRecords). One JSONL file per session: <home>/vscode-chat/prompts/<id>.jsonl.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readRegularFileSync } from '../../agent-files';
import { parseJsonlRecords } from '../jsonl-records';
import type { ChatRequestInfo } from './convert';

export const vsPromptRecordSchema = z.object({
  v: z.literal(1),
  anchorId: z.string().min(1),
  promptSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** When the hook ran (ms since epoch). */
  atMs: z.number().int().min(0),
  cwd: z.string(),
  workspaceRoot: z.string(),
});
export type VsPromptRecord = z.infer<typeof vsPromptRecordSchema>;

/** How long after a request's submit time its hook may run (1.5–2.7 s measured; a busy machine, a queued prompt). */
export const HOOK_LAG_LIMIT_MS = 120_000;
/** Without the same text, how close the hook must be to the request (a request whose text differs and is not on
 *  disk yet must not give its snapshot to the one before it). */
export const UNTEXTED_LAG_LIMIT_MS = 15_000;
/** How far the hook's clock may be before the request's (both are this machine's clock; rounding only). */
const CLOCK_SLACK_MS = 2_000;

/** Chat session ids become file names: VS Code's are UUIDs. */
export function isSafeChatSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

export function vsPromptRecordsFile(home: string, sessionId: string): string {
  if (!isSafeChatSessionId(sessionId)) throw new Error(`unusable session id ${JSON.stringify(sessionId.slice(0, 80))}`);
  return join(home, 'vscode-chat', 'prompts', `${sessionId}.jsonl`);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function appendVsPromptRecord(home: string, sessionId: string, rec: VsPromptRecord): void {
  const checked = vsPromptRecordSchema.parse(rec);
  const file = vsPromptRecordsFile(home, sessionId);
  mkdirSync(join(home, 'vscode-chat', 'prompts'), { recursive: true });
  appendFileSync(file, JSON.stringify(checked) + '\n');
}

/** The session's records in the order they were written; lines that are not records are skipped. */
export function readVsPromptRecords(home: string, sessionId: string): VsPromptRecord[] {
  if (!isSafeChatSessionId(sessionId)) return [];
  let text: string;
  try {
    text = readRegularFileSync(vsPromptRecordsFile(home, sessionId)).toString('utf8');
  } catch {
    return [];
  }
  return parseJsonlRecords(text, vsPromptRecordSchema);
}

/**
 * Ties each record to one request: the latest not yet tied that was submitted before the hook ran (within the lag
 * limit) with the same text, else, when no request has that text (VS Code may send the hook a prompt with its
 * references expanded), the latest submitted at most UNTEXTED_LAG_LIMIT_MS before it. Latest, so a prompt sent again
 * with the same words goes to its own request. Records that match nothing (the request is not in the log yet) are
 * left out, to be tied at a later read.
 */
export function matchPromptRecords(records: readonly VsPromptRecord[], requests: readonly ChatRequestInfo[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const taken = new Set<string>();
  const byTime = [...requests].filter((r) => r.timestamp > 0).sort((a, b) => b.timestamp - a.timestamp);
  const shaOf = new Map(requests.map((r) => [r.requestId, sha256Hex(r.text)]));
  const candidates = (rec: VsPromptRecord) =>
    byTime.filter((r) => !taken.has(r.requestId) && r.timestamp <= rec.atMs + CLOCK_SLACK_MS && rec.atMs - r.timestamp <= HOOK_LAG_LIMIT_MS);
  const tie = (rec: VsPromptRecord, requestId: string) => {
    taken.add(requestId);
    out.set(requestId, [...(out.get(requestId) ?? []), rec.anchorId]);
  };
  // by text first, for every record, so a record whose text matches nothing cannot take another's request
  const untied: VsPromptRecord[] = [];
  for (const rec of records) {
    const hit = candidates(rec).find((r) => shaOf.get(r.requestId) === rec.promptSha256);
    if (hit) tie(rec, hit.requestId);
    else untied.push(rec);
  }
  for (const rec of untied) {
    const hit = candidates(rec)[0];
    if (hit && rec.atMs - hit.timestamp <= UNTEXTED_LAG_LIMIT_MS) tie(rec, hit.requestId);
  }
  return out;
}
