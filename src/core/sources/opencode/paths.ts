// Where OpenCode keeps its data: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (OpenCode uses the XDG
// folders on every platform), with opencode.db and the older storage/ tree in it.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE_NAME } from './db-rows';

export function openCodeDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.local', 'share'), 'opencode');
}

export const dbPathOf = (dataDir: string): string => join(dataDir, DB_FILE_NAME);
export const storageDirOf = (dataDir: string): string => join(dataDir, 'storage');
