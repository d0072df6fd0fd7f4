// What the user is told when the system's limit on file watches leaves folders unwatched (fs-watcher.ts): the
// snapshots stay exact (those folders are checked with lstat on each request), only slower, and the fix is one line.
import { readFileSync } from 'node:fs';

/** The folders a watcher could not watch because of the system's limit, and what to tell the user about it. */
export interface WatchLimitReport {
  /** The folder the limit was first met at (workspace-relative, '' the root). */
  first: string;
  /** The error the system gave (ENOSPC: inotify's max_user_watches; EMFILE / ENFILE: open files). */
  code: string;
  /** Folders not watched now (each with everything below it). */
  folders: number;
  /** One paragraph for a log, a status line or a notification, with the fix. */
  message: string;
}

/** The sysctl setting a raised inotify limit is written as; 524288 is what VS Code's and watchman's guides give. */
export const WATCH_LIMIT_FIX = 'fs.inotify.max_user_watches=524288';

/** The current inotify limit, when the system has one to read (Linux). */
function inotifyLimit(): number | undefined {
  try {
    const n = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export function watchLimitMessage(workspaceRoot: string, code: string, folders: number): string {
  const what = `${folders.toLocaleString('en-US')} folder${folders === 1 ? '' : 's'} of ${workspaceRoot} (with everything below ${folders === 1 ? 'it' : 'them'})`;
  const after = `are not watched for changes, so every snapshot checks ${folders === 1 ? 'it' : 'them'} with one lstat per entry instead: snapshots stay exact, only slower.`;
  if (code === 'ENOSPC') {
    const limit = inotifyLimit();
    return (
      `The system's limit on file watches was reached (fs.inotify.max_user_watches${limit ? ` = ${limit.toLocaleString('en-US')}` : ''}): ${what} ${after} ` +
      `To raise it: sudo sysctl ${WATCH_LIMIT_FIX} (and the line ${WATCH_LIMIT_FIX} in /etc/sysctl.conf to keep it after a restart), the checkpoint service watches them from its next periodic check on.`
    );
  }
  return `The system's limit on open files was reached (${code}) while watching folders: ${what} ${after} Raise the open-files limit (ulimit -n) and restart the checkpoint service.`;
}
