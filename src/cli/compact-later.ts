// A store a CLI snapshot found due for compaction is compacted by a detached `agent-rewind gc`, as git runs
// `gc --auto` in the background: the snapshot's process exits at once, and the gc takes the store lock only to start
// and to finish (store-compaction.ts). One at a time per store: a pid file beside the store says one is running.
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

function running(pidFile: string): boolean {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function compactLater(home: string, workspaceRoot: string, storeDir: string): void {
  const cli = process.argv[1];
  if (!cli) return;
  const pidFile = join(storeDir, 'compact.pid');
  if (running(pidFile)) return;
  try {
    unlinkSync(pidFile);
  } catch {
    /* none */
  }
  let fd: number;
  try {
    fd = openSync(pidFile, 'wx');
  } catch {
    return; // another process is starting one right now
  }
  try {
    const child = spawn(process.execPath, [cli, 'gc', '--workspace', workspaceRoot, '--home', home], { detached: true, stdio: 'ignore', cwd: storeDir });
    child.unref();
    if (child.pid !== undefined) writeSync(fd, String(child.pid));
  } finally {
    closeSync(fd);
  }
}
