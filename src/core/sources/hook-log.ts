// A hook prints nothing (a prompt hook's stdout is given to the model), so every problem is one line of a log under
// <home>/logs: the agent's own (its hooks' logProblem), or hooks.log for what happens before an agent is known (an
// unknown agent named, the process's last guards). Capped: past 1 MiB the log moves to `.1`.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CAP_BYTES = 1024 * 1024;

/** One line in `<home>/logs/<fileName>`: time and message (control characters replaced, length capped). Never
 *  throws: with nowhere to log, a hook stays silent. */
export function appendHookLog(home: string, fileName: string, message: string): void {
  try {
    const dir = join(home, 'logs');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, fileName);
    try {
      if (statSync(file).size > CAP_BYTES) renameSync(file, `${file}.1`);
    } catch {
      /* no log yet */
    }
    appendFileSync(file, `${new Date().toISOString()} ${message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').slice(0, 2000)}\n`);
  } catch {
    /* nowhere left to say it */
  }
}
