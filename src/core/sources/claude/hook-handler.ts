// What `agent-rewind hook claude` does with one hook input from Claude Code (the JSON on its stdin), once read:
//   UserPromptSubmit → snapshot of the workspace anchored at the prompt id (kind 'user-message') + a prompt record
//                      (prompt-records.ts) so the snapshot can be tied to the prompt's transcript line later;
//   Stop             → the turn-end snapshot (anchor `<prompt id>:turn-end`), which lets a later rewind tell the
//                      user's own edits from the agent's.
// The input is never trusted: it is validated, ids that become file names are checked, the workspace must be an
// existing folder. Nothing is written into Claude Code's folders; everything goes to the agent-rewind home.
// Problems are thrown as HookProblem (expected, e.g. a missing folder) or any Error; the caller logs them.
import { isAbsolute } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { SnapshotSummary } from '../../files/types';
import { HookProblem, SnapshotDeclined, type HookSnapshot } from '../hook-snapshot';
import { logHookProblem } from './hook-log';
import { appendPromptRecord, isSafeSessionId, sha256Hex, type PromptRecord } from './prompt-records';
import { isFolder, regularFileSize } from '../stat-checks';

export { HookProblem };

const MAX_ID = 200;
// ids become anchor ids and log text: printable, no control characters
const idString = z
  .string()
  .min(1)
  .max(MAX_ID)
  .regex(/^[^\u0000-\u001f\u007f]+$/);

export const hookInputSchema = z
  .object({
    hook_event_name: z.string().min(1).max(100),
    session_id: idString,
    transcript_path: z.string().max(4096).optional(),
    cwd: z.string().max(4096).optional(),
    prompt_id: idString.optional(),
    prompt: z.string().optional(),
  })
  .passthrough();
export type ClaudeHookInput = z.infer<typeof hookInputSchema>;

export interface HookContext {
  /** The agent-rewind home. */
  home: string;
  /** For CLAUDE_PROJECT_DIR. */
  env: NodeJS.ProcessEnv;
  /** Size of a file in bytes, undefined when missing (injectable for tests). */
  fileSize?: (path: string) => number | undefined;
  /** How the snapshot is taken: a fresh process's (service/fresh-hook-snapshot.ts: through the service's line protocol
   *  or in-process), or the service's hook endpoint's warm checkpointer. */
  snapshot: HookSnapshot;
}

export interface HookOutcome {
  event: string;
  sessionId: string;
  /** What the hook did: 'snapshot', or 'ignored' for events it does not handle. */
  action: 'snapshot' | 'ignored';
  anchorId?: string;
  summary?: SnapshotSummary;
  record?: PromptRecord;
}

/** `$CLAUDE_PROJECT_DIR` when it is an existing folder, else the input's cwd (absolute, existing folder). */
export function hookWorkspaceRoot(input: Pick<ClaudeHookInput, 'cwd'>, env: NodeJS.ProcessEnv): string {
  const project = env.CLAUDE_PROJECT_DIR;
  if (project && isAbsolute(project) && isFolder(project)) return project;
  const cwd = input.cwd;
  if (!cwd) throw new HookProblem(`no workspace: CLAUDE_PROJECT_DIR ${project ? `(${project}) is not a folder` : 'is not set'} and the input has no cwd`);
  if (!isAbsolute(cwd)) throw new HookProblem(`no workspace: cwd ${JSON.stringify(cwd)} is not an absolute path`);
  if (!isFolder(cwd)) throw new HookProblem(`no workspace: cwd ${cwd} does not exist or is not a folder`);
  return cwd;
}

/** Validates the parsed stdin; throws HookProblem saying what is wrong. */
export function parseHookInput(raw: unknown): ClaudeHookInput {
  const r = hookInputSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new HookProblem(`invalid hook input: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (!isSafeSessionId(r.data.session_id))
    throw new HookProblem(`invalid hook input: session_id ${JSON.stringify(r.data.session_id.slice(0, 80))} is not a usable id`);
  return r.data;
}

export async function handleClaudeHook(raw: unknown, ctx: HookContext): Promise<HookOutcome> {
  const input = parseHookInput(raw);
  const event = input.hook_event_name;
  const sessionId = input.session_id;
  if (event !== 'UserPromptSubmit' && event !== 'Stop') return { event, sessionId, action: 'ignored' };
  const snapshot = ctx.snapshot;

  if (event === 'UserPromptSubmit') {
    // measured first: the prompt's own line is written after the hook returns
    const transcriptPath = input.transcript_path ?? '';
    const transcriptSize = (transcriptPath && isAbsolute(transcriptPath) ? (ctx.fileSize ?? regularFileSize)(transcriptPath) : undefined) ?? 0;
    const root = hookWorkspaceRoot(input, ctx.env);
    const anchorId = input.prompt_id ?? `prompt-${uuidv7()}`;
    const { summary, realRoot } = await snapshot({ root, sessionId, anchorId, kind: 'user-message' });
    const prompt = input.prompt ?? '';
    const record: PromptRecord = {
      v: 1,
      anchorId,
      ...(input.prompt_id ? { promptId: input.prompt_id } : {}),
      promptSha256: sha256Hex(prompt),
      promptLength: prompt.length,
      transcriptPath,
      transcriptSize,
      cwd: input.cwd ?? '',
      workspaceRoot: realRoot,
      at: new Date().toISOString(),
    };
    appendPromptRecord(ctx.home, sessionId, record);
    return { event, sessionId, action: 'snapshot', anchorId, summary, record };
  }

  const root = hookWorkspaceRoot(input, ctx.env);
  const anchorId = input.prompt_id ? `${input.prompt_id}:turn-end` : `turn-end-${uuidv7()}`;
  const { summary } = await snapshot({ root, sessionId, anchorId, kind: 'turn-end' });
  return { event, sessionId, action: 'snapshot', anchorId, summary };
}

/** How one hook input ended: done (or an event we do not handle), bad input (logged), or a failure (logged). */
export type ClaudeHookStatus = 'done' | 'bad-input' | 'failed';

/**
 * One hook input as text (the stdin Claude Code wrote), start to end: parsed, handled, every problem logged to
 * `<home>/logs/claude-hooks.log`. Never throws, except SnapshotDeclined from an injected snapshot (nothing was
 * written then: the caller falls back to the fresh-process path, which logs what it finds itself).
 */
export async function runClaudeHookText(text: string, ctx: HookContext): Promise<ClaudeHookStatus> {
  const home = ctx.home;
  if (!text.trim()) {
    logHookProblem(home, undefined, undefined, 'empty stdin (expected the hook input JSON)');
    return 'bad-input';
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    logHookProblem(home, undefined, undefined, `stdin is not JSON: ${(err as Error).message}`);
    return 'bad-input';
  }
  let event: string | undefined;
  let sessionId: string | undefined;
  if (raw && typeof raw === 'object') {
    const r = raw as { hook_event_name?: unknown; session_id?: unknown };
    if (typeof r.hook_event_name === 'string') event = r.hook_event_name;
    if (typeof r.session_id === 'string') sessionId = r.session_id;
  }
  try {
    const outcome = await handleClaudeHook(raw, ctx);
    if (outcome.action === 'ignored')
      logHookProblem(home, event, sessionId, `event ${outcome.event} is not handled (only UserPromptSubmit and Stop); remove it from the hook settings`);
    return 'done';
  } catch (err) {
    if (err instanceof SnapshotDeclined) throw err;
    logHookProblem(home, event, sessionId, (err as Error)?.message ?? String(err));
    return err instanceof HookProblem ? 'bad-input' : 'failed';
  }
}
