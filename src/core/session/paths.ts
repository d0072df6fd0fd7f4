// Where session files live: <root>/--<encoded cwd>--/<timestamp>_<id>.jsonl, the layout pi and oh-my-pi use too,
// so one encoding serves our home (<home>/sessions) and theirs (~/.pi/agent/sessions, ~/.omp/agent/sessions).
import { join } from 'node:path';

/** Strips the leading slash and replaces / \ : with -. */
export function encodeCwd(cwd: string): string {
  return cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-');
}

export function sessionFolderName(cwd: string): string {
  return `--${encodeCwd(cwd)}--`;
}

export function sessionsRoot(home: string): string {
  return join(home, 'sessions');
}

export function sessionDirFor(root: string, cwd: string): string {
  return join(root, sessionFolderName(cwd));
}

/** ISO timestamp with : and . replaced by - (safe on every filesystem), then the session id. */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  return `${isoTimestamp.replace(/[:.]/g, '-')}_${sessionId}.jsonl`;
}

export function blobsDir(home: string): string {
  return join(home, 'blobs');
}
