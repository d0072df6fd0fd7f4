// Where a workspace's checkpoints live by default; kept apart so the extension host's worker proxy can name the store
// without loading the engine.
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { resolveWorkspaceRoot } from '../workspace-root';

/** Where a workspace's checkpoints live by default: <home>/checkpoints/<folder name>-<hash of its path>. */
export function defaultStoreDir(home: string, workspaceRoot: string): string {
  const real = resolveWorkspaceRoot(workspaceRoot);
  const key = createHash('sha256').update(real).digest('hex').slice(0, 16);
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return join(home, 'checkpoints', `${name}-${key}`);
}
