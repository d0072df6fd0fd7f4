// What `agent-rewind hook gemini` does with one hook input from Gemini CLI (the JSON on its stdin), once read:
//   BeforeAgent → a snapshot of the workspace (kind 'user-message') under a new anchor, and a prompt record
//                 (sources/prompt-records.ts): Gemini gives its hooks no prompt or message id, and the prompt's record
//                 is not in the transcript yet, so the transcript's size and the prompt's text are kept, and the reader
//                 ties the snapshot to the first prompt recorded after that size with that text;
//   AfterAgent  → the turn-end snapshot, which lets a later rewind tell the user's own edits from the agent's.
// Gemini 0.61 sends (observed): session_id, transcript_path, cwd, hook_event_name, timestamp, plus prompt
// (BeforeAgent, AfterAgent). The workspace is $GEMINI_PROJECT_DIR when it is a folder, else the input's cwd.
// Never throws, never prints (a BeforeAgent hook's output reaches the model): problems go to
// `<home>/logs/gemini-hooks.log`. Nothing is written into Gemini's folders.
import { isAbsolute } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { appendHookLog } from '../hook-log';
import { HookProblem, SnapshotDeclined, type HookSnapshot } from '../hook-snapshot';
import { appendPromptRecord, isSafeSessionId, sha256Hex, type PromptRecord } from '../prompt-records';
import { RECORDS_FOLDER } from './records-folder';
import { isFolder, regularFileSize } from '../stat-checks';

export const GEMINI_HOOK_LOG = 'gemini-hooks.log';
export const PROJECT_DIR_VARIABLE = 'GEMINI_PROJECT_DIR';

export const geminiHookInputSchema = z
  .object({
    hook_event_name: z.string().min(1).max(100),
    session_id: z.string().min(1).max(200),
    transcript_path: z.string().max(4096).optional(),
    cwd: z.string().max(4096).optional(),
    prompt: z.string().optional(),
  })
  .passthrough();

export interface GeminiHookRun {
  home: string;
  env: NodeJS.ProcessEnv;
  snapshot: HookSnapshot;
  /** Size of a file in bytes, undefined when missing (injectable for tests). */
  fileSize?: (path: string) => number | undefined;
}

export interface GeminiHookResult {
  status: 'done' | 'bad-input' | 'failed';
  action?: 'snapshot' | 'ignored';
  anchorId?: string;
  record?: PromptRecord;
  workspace?: string;
}

function workspaceOf(cwd: string | undefined, env: NodeJS.ProcessEnv): string {
  const project = env[PROJECT_DIR_VARIABLE];
  if (project && isAbsolute(project) && isFolder(project)) return project;
  if (!cwd) throw new HookProblem(`no workspace: ${PROJECT_DIR_VARIABLE} ${project ? `(${project}) is not a folder` : 'is not set'} and the input has no cwd`);
  if (!isAbsolute(cwd) || !isFolder(cwd)) throw new HookProblem(`no workspace: cwd ${JSON.stringify(cwd.slice(0, 300))} is not an existing absolute folder`);
  return cwd;
}

export function logGeminiHookProblem(home: string, event: string | undefined, sessionId: string | undefined, message: string): void {
  appendHookLog(home, GEMINI_HOOK_LOG, `${event ?? '-'} ${sessionId?.slice(0, 80) ?? '-'} ${message}`);
}

/** One hook input as text, start to end. Resolves in every case but one: SnapshotDeclined from an injected snapshot
 *  (nothing was written then: the caller falls back to the fresh-process path). */
export async function runGeminiHook(text: string, run: GeminiHookRun): Promise<GeminiHookResult> {
  let event: string | undefined;
  let sessionId: string | undefined;
  let stage: 'input' | 'snapshot' = 'input';
  try {
    if (!text.trim()) throw new HookProblem('empty stdin (expected the hook input JSON)');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new HookProblem(`stdin is not JSON: ${(err as Error).message}`);
    }
    const parsed = geminiHookInputSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HookProblem(`invalid hook input: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const input = parsed.data;
    event = input.hook_event_name;
    sessionId = input.session_id;
    if (!isSafeSessionId(input.session_id)) throw new HookProblem(`session_id ${JSON.stringify(input.session_id.slice(0, 80))} is not a usable id`);
    if (event !== 'BeforeAgent' && event !== 'AfterAgent') {
      logGeminiHookProblem(run.home, event, sessionId, `event ${event} is not handled (only BeforeAgent and AfterAgent); remove it from the hook settings`);
      return { status: 'done', action: 'ignored' };
    }
    const root = workspaceOf(input.cwd, run.env);
    stage = 'snapshot';
    if (event === 'AfterAgent') {
      const anchorId = `turn-end-${uuidv7()}`;
      const { realRoot } = await run.snapshot({ root, sessionId: input.session_id, anchorId, kind: 'turn-end' });
      return { status: 'done', action: 'snapshot', anchorId, workspace: realRoot };
    }
    // measured before the snapshot: the prompt's record is written after the hook returns
    const transcriptPath = input.transcript_path ?? '';
    const transcriptSize = (transcriptPath && isAbsolute(transcriptPath) ? (run.fileSize ?? regularFileSize)(transcriptPath) : undefined) ?? 0;
    const anchorId = `prompt-${uuidv7()}`;
    const { realRoot } = await run.snapshot({ root, sessionId: input.session_id, anchorId, kind: 'user-message' });
    const prompt = input.prompt ?? '';
    const record: PromptRecord = {
      v: 1,
      anchorId,
      promptSha256: sha256Hex(prompt),
      promptLength: prompt.length,
      transcriptPath,
      transcriptSize,
      cwd: input.cwd ?? '',
      workspaceRoot: realRoot,
      at: new Date().toISOString(),
    };
    appendPromptRecord(run.home, RECORDS_FOLDER, input.session_id, record);
    return { status: 'done', action: 'snapshot', anchorId, record, workspace: realRoot };
  } catch (err) {
    if (err instanceof SnapshotDeclined) throw err;
    logGeminiHookProblem(run.home, event, sessionId, (err as Error)?.message ?? String(err));
    return { status: err instanceof HookProblem || stage === 'input' ? 'bad-input' : 'failed' };
  }
}
