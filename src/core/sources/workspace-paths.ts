// Which sessions belong to a workspace: every agent attributes a session by the folder it worked in.
import { resolve, sep } from 'node:path';

/** Whether `cwd` is `root` or inside it (case-insensitively on Windows). */
export function isInside(cwd: string, root: string): boolean {
  const norm = (p: string) => (process.platform === 'win32' ? resolve(p).toLowerCase() : resolve(p));
  const c = norm(cwd);
  const r = norm(root);
  return c === r || c.startsWith(r.endsWith(sep) ? r : r + sep);
}
