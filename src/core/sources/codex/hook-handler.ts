// What `agent-rewind hook codex` does with one hook input from the Codex CLI (the JSON on its stdin), once read:
//   UserPromptSubmit → a snapshot of the workspace (payload cwd) anchored at the turn id (kind 'user-message'); the
//                      reader gives each prompt its turn id (CodexSession.checkpointKeysOf), so the snapshot is found
//                      at the prompt's message;
//   Stop             → the turn-end snapshot, anchored at `<turn id>:turn-end`.
// Codex 0.169 sends (observed): session_id, turn_id, transcript_path, cwd, hook_event_name, model, permission_mode,
// plus prompt (UserPromptSubmit) or stop_hook_active / last_assistant_message (Stop).
// Never throws, never prints (Codex would show stdout to the model or the person): problems go to
// `<home>/logs/codex-hooks.log`, capped in size. Nothing is written into CODEX_HOME.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { SnapshotDeclined, type HookSnapshot } from '../hook-snapshot';
import { isFolder } from '../stat-checks';

const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/);

export const codexHookInputSchema = z
  .object({
    hook_event_name: z.string().min(1).max(100),
    session_id: id,
    turn_id: id.optional(),
    cwd: z.string().min(1).max(4096),
    transcript_path: z.string().max(4096).nullish(),
  })
  .passthrough();
export type CodexHookInput = z.infer<typeof codexHookInputSchema>;

export const CODEX_HOOK_LOG = 'codex-hooks.log';
const MAX_LOG_BYTES = 256 * 1024;

export interface CodexHookResult {
  action: 'snapshot' | 'ignored' | 'failed';
  anchorId?: string;
  reason?: string;
  /** For 'failed': the input was unusable ('input') or the snapshot failed ('snapshot'). */
  problem?: 'input' | 'snapshot';
}

export interface CodexHookOptions {
  home: string;
  /** How the snapshot is taken: a fresh process's (service/fresh-hook-snapshot.ts) or the service's hook endpoint's
   *  warm checkpointer. */
  snapshot: HookSnapshot;
}

/** Handles one Codex hook input. Resolves in every case (problems are logged), so the hook never blocks Codex. */
export async function handleCodexHook(stdinJson: unknown, opts: CodexHookOptions): Promise<void> {
  await runCodexHook(stdinJson, opts);
}

/** The same, telling what it did (for tests and the service's hook endpoint). Resolves in every case but one:
 *  SnapshotDeclined from an injected snapshot (nothing was written: the caller falls back to a fresh process). */
export async function runCodexHook(stdinJson: unknown, opts: CodexHookOptions): Promise<CodexHookResult> {
  let event = '?';
  let stage: 'input' | 'snapshot' = 'input';
  try {
    let value = stdinJson;
    if (typeof value === 'string' || Buffer.isBuffer(value)) value = JSON.parse(String(value));
    const parsed = codexHookInputSchema.safeParse(value);
    if (!parsed.success)
      return logged(
        opts.home,
        event,
        `ignored a hook input that is not a Codex hook payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
      );
    const input = parsed.data;
    event = input.hook_event_name;
    if (event !== 'UserPromptSubmit' && event !== 'Stop') return { action: 'ignored', reason: `event ${event} is not handled` };
    if (!input.turn_id) return logged(opts.home, event, `session ${input.session_id}: no turn_id in the payload, no snapshot taken`);
    if (!isAbsolute(input.cwd) || !isFolder(input.cwd))
      return logged(opts.home, event, `session ${input.session_id}: the folder ${input.cwd} does not exist, no snapshot taken`);
    const anchorId = event === 'Stop' ? `${input.turn_id}:turn-end` : input.turn_id;
    // a fresh process: through the home's checkpoint service when it serves this folder with the settings file's
    // options (the same as Claude Code's hook and the CLI), else in-process
    const snapshot = opts.snapshot;
    stage = 'snapshot';
    await snapshot({ root: input.cwd, sessionId: input.session_id, anchorId, kind: event === 'Stop' ? 'turn-end' : 'user-message' });
    return { action: 'snapshot', anchorId };
  } catch (err) {
    if (err instanceof SnapshotDeclined) throw err;
    return logged(opts.home, event, `snapshot failed: ${(err as Error)?.message ?? String(err)}`, stage);
  }
}

function logged(home: string, event: string, message: string, problem: 'input' | 'snapshot' = 'input'): CodexHookResult {
  appendCodexHookLog(home, `${event}: ${message}`);
  return { action: 'failed', reason: message, problem };
}

/** One line in `<home>/logs/codex-hooks.log`; past the cap the log moves to `.1` (one old generation kept). */
export function appendCodexHookLog(home: string, message: string): void {
  try {
    const dir = join(home, 'logs');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, CODEX_HOOK_LOG);
    try {
      if (statSync(file).size > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
    } catch {
      /* no log yet */
    }
    appendFileSync(file, `${new Date().toISOString()} ${message.replace(/[\r\n]+/g, ' ').slice(0, 2000)}\n`);
  } catch {
    // nowhere to log: stay silent rather than disturb Codex
  }
}
