// What `agent-rewind hook opencode` does with one input from our OpenCode plugin (plugin-file.ts; the JSON on its
// stdin), once read:
//   chat.message  → a snapshot of the workspace (the plugin's `directory`) anchored at the user message's id, before
//                   OpenCode has stored the message or the model has acted; the reader gives each prompt its message
//                   id as its key (OpenCodeSession.checkpointKeysOf), so the snapshot is found at the prompt;
//   session.idle  → the turn-end snapshot, anchored at `<message id>:turn-end` (the last prompt the plugin saw).
// Never throws, never prints: problems go to `<home>/logs/opencode-hooks.log`, capped in size. Nothing is written
// into OpenCode's folders.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { appendHookLog } from '../hook-log';
import { SnapshotDeclined, type HookSnapshot } from '../hook-snapshot';
import { isFolder } from '../stat-checks';

export const OPENCODE_HOOK_LOG = 'opencode-hooks.log';

export const openCodeHookInputSchema = z
  .object({
    hook_event_name: z.string().min(1).max(100),
    session_id: z.string().regex(/^ses_[A-Za-z0-9]{1,64}$/),
    message_id: z
      .string()
      .regex(/^msg_[A-Za-z0-9]{1,64}$/)
      .optional(),
    cwd: z.string().min(1).max(4096),
  })
  .passthrough();

export interface OpenCodeHookResult {
  action: 'snapshot' | 'ignored' | 'failed';
  anchorId?: string;
  reason?: string;
  problem?: 'input' | 'snapshot';
}

export function appendOpenCodeHookLog(home: string, message: string): void {
  appendHookLog(home, OPENCODE_HOOK_LOG, message);
}

function logged(home: string, event: string, message: string, problem: 'input' | 'snapshot' = 'input'): OpenCodeHookResult {
  appendOpenCodeHookLog(home, `${event}: ${message}`);
  return { action: 'failed', reason: message, problem };
}

/** Handles one plugin input. Resolves in every case (problems are logged) but one: SnapshotDeclined from an injected
 *  snapshot (nothing was written: the caller falls back to a fresh process). */
export async function runOpenCodeHook(stdin: unknown, opts: { home: string; snapshot: HookSnapshot }): Promise<OpenCodeHookResult> {
  let event = '?';
  let stage: 'input' | 'snapshot' = 'input';
  try {
    const value: unknown = typeof stdin === 'string' || Buffer.isBuffer(stdin) ? JSON.parse(String(stdin)) : stdin;
    const parsed = openCodeHookInputSchema.safeParse(value);
    if (!parsed.success)
      return logged(
        opts.home,
        event,
        `ignored an input that is not from agent-rewind's OpenCode plugin: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
      );
    const input = parsed.data;
    event = input.hook_event_name;
    if (event !== 'chat.message' && event !== 'session.idle') return { action: 'ignored', reason: `event ${event} is not handled` };
    if (!input.message_id) return logged(opts.home, event, `session ${input.session_id}: no message id, no snapshot taken`);
    if (!isAbsolute(input.cwd) || !isFolder(input.cwd))
      return logged(opts.home, event, `session ${input.session_id}: the folder ${input.cwd} does not exist, no snapshot taken`);
    const turnEnd = event === 'session.idle';
    const anchorId = turnEnd ? `${input.message_id}:turn-end` : input.message_id;
    stage = 'snapshot';
    await opts.snapshot({ root: input.cwd, sessionId: input.session_id, anchorId, kind: turnEnd ? 'turn-end' : 'user-message' });
    return { action: 'snapshot', anchorId };
  } catch (err) {
    if (err instanceof SnapshotDeclined) throw err;
    return logged(opts.home, event, `snapshot failed: ${(err as Error)?.message ?? String(err)}`, stage);
  }
}
