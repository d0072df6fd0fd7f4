import { realpathSync, statSync } from 'node:fs';

/** The real path of a workspace folder. A missing path, or one that is not a folder (a file would snapshot as an
 *  empty tree and "succeed"), is refused with a message that says which. */
export function resolveWorkspaceRoot(p: string): string {
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    throw new Error(`workspace folder ${p} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`workspace ${p} is not a folder`);
  return real;
}
