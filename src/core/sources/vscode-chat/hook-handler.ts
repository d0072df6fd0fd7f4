// What `agent-rewind hook vscode-chat` does with one hook input from VS Code's agent (the JSON on its stdin), also
// when VS Code runs a hook file written for another agent that reads the same events (it runs Claude Code's too, and
// the registry hands such input here: isVscodeHookInput):
//   UserPromptSubmit → a snapshot of the workspace under an anchor of its own + a prompt record (prompt-records.ts),
//                      since VS Code gives its hooks the chat session id and the prompt but no request id;
//   Stop             → the turn-end snapshot (`<that anchor>:turn-end`).
// The input is never trusted: validated, the session id checked before it names a file, the workspace an existing
// folder. Nothing is written into VS Code's folders; everything goes to the agent-rewind home.
import { isAbsolute } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { HookProblem, SnapshotDeclined, type HookSnapshot } from '../hook-snapshot';
import { isVscodeHookInput, logVscodeHookProblem } from './hook-input';
import { appendVsPromptRecord, isSafeChatSessionId, readVsPromptRecords, sha256Hex } from './prompt-records';
import { isFolder } from '../stat-checks';

export { isVscodeHookInput };

const inputSchema = z
  .object({
    hook_event_name: z.string().min(1).max(100),
    session_id: z.string().min(1).max(200),
    transcript_path: z.string().max(4096).optional(),
    cwd: z.string().max(4096).optional(),
    prompt: z.string().optional(),
  })
  .passthrough();

export interface VsHookRun {
  home: string;
  snapshot: HookSnapshot;
  now?: () => number;
}

export interface VsHookOutcome {
  status: 'done' | 'bad-input' | 'failed';
  anchorId?: string;
  workspace?: string;
}

/** One hook input as text, start to end; every problem logged. Throws only SnapshotDeclined (nothing written). */
export async function runVscodeHook(text: string, run: VsHookRun): Promise<VsHookOutcome> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    logVscodeHookProblem(run.home, `stdin is not JSON: ${(err as Error).message}`);
    return { status: 'bad-input' };
  }
  const parsed = inputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    logVscodeHookProblem(run.home, `invalid hook input: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    return { status: 'bad-input' };
  }
  const input = parsed.data;
  const event = input.hook_event_name;
  const sessionId = input.session_id;
  const problem = (m: string, status: VsHookOutcome['status']): VsHookOutcome => {
    logVscodeHookProblem(run.home, m, event, sessionId);
    return { status };
  };
  if (event !== 'UserPromptSubmit' && event !== 'Stop') return { status: 'done' }; // SessionStart, tool events: nothing to keep
  if (!isSafeChatSessionId(sessionId)) return problem(`session_id ${JSON.stringify(sessionId.slice(0, 80))} is not a usable id`, 'bad-input');
  const cwd = input.cwd;
  if (!cwd || !isAbsolute(cwd) || !isFolder(cwd))
    return problem(`no workspace: cwd ${JSON.stringify(cwd ?? '')} is not an existing absolute folder`, 'bad-input');
  try {
    if (event === 'UserPromptSubmit') {
      const anchorId = `prompt-${uuidv7()}`;
      const atMs = (run.now ?? Date.now)();
      const { realRoot } = await run.snapshot({ root: cwd, sessionId, anchorId, kind: 'user-message' });
      appendVsPromptRecord(run.home, sessionId, { v: 1, anchorId, promptSha256: sha256Hex(input.prompt ?? ''), atMs, cwd, workspaceRoot: realRoot });
      return { status: 'done', anchorId, workspace: realRoot };
    }
    const last = readVsPromptRecords(run.home, sessionId).pop();
    const anchorId = last ? `${last.anchorId}:turn-end` : `turn-end-${uuidv7()}`;
    const { realRoot } = await run.snapshot({ root: cwd, sessionId, anchorId, kind: 'turn-end' });
    return { status: 'done', anchorId, workspace: realRoot };
  } catch (err) {
    if (err instanceof SnapshotDeclined) throw err;
    return problem((err as Error)?.message ?? String(err), err instanceof HookProblem ? 'bad-input' : 'failed');
  }
}
