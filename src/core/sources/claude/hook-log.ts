// The Claude Code hook's log, `<home>/logs/claude-hooks.log`: a hook prints nothing (UserPromptSubmit stdout is given
// to the model), so every problem is one line here, whether the hook ran in a fresh process or in the checkpoint
// service's hook endpoint.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The log is rotated (to .1) past this size. */
export const LOG_CAP_BYTES = 1024 * 1024;

export function hookLogFile(home: string): string {
  return join(home, 'logs', 'claude-hooks.log');
}

/** One line per problem: time, event, session, message (control characters replaced, length capped). */
export function logHookProblem(home: string, event: string | undefined, sessionId: string | undefined, message: string): void {
  try {
    const file = hookLogFile(home);
    mkdirSync(join(home, 'logs'), { recursive: true });
    try {
      if (statSync(file).size > LOG_CAP_BYTES) renameSync(file, file + '.1');
    } catch {
      /* no log yet */
    }
    const clean = (s: string, max: number) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').slice(0, max);
    appendFileSync(file, `${new Date().toISOString()} ${clean(event ?? '-', 60)} ${clean(sessionId ?? '-', 80)} ${clean(message, 1000)}\n`);
  } catch {
    /* nowhere left to say it: a hook stays silent */
  }
}
