// A Unix socket file that belongs to one service and is removed only by it. Node (libuv) unlinks a listening socket's
// path when the server closes, whatever is at that path by then: a service that stopped while another one had bound
// the same path took that one's socket away, leaving it running unreachable (issue 22). So a socket is bound under a
// name of its own and renamed into place (which also replaces a dead service's socket in one step, with no moment
// without one), and on close it is removed only while the path still is that very socket (inode and device).
import { lstatSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Server } from 'node:net';

export interface SocketFile {
  path: string;
  dev: number;
  ino: number;
}

/** The temporary name a socket at `path` is bound under before it is renamed into place: short, since Unix socket
 *  paths are limited, and this process's own. */
export function bindingPath(path: string): string {
  return join(dirname(path), `.${process.pid.toString(36)}.${Math.floor(Math.random() * 36 ** 2).toString(36)}`);
}

/**
 * Listens on `path` (POSIX): binds under bindingPath(path) with an owner-only umask, then renames the socket into
 * place. Returns what identifies it for removeOwnSocket.
 */
export async function listenOwnSocket(server: Server, path: string, setUmask: (mask: number) => number | undefined): Promise<SocketFile> {
  const temp = bindingPath(path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // owner-only from the start: the folder is 0700 already, and the socket is made under a 0177 umask
    const old = setUmask(0o177);
    try {
      server.listen(temp, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      if (old !== undefined) setUmask(old);
    }
  });
  try {
    renameSync(temp, path);
    const st = lstatSync(path);
    return { path, dev: st.dev, ino: st.ino };
  } catch (err) {
    server.close();
    throw err;
  }
}

/** Removes the socket file if the path still is the one listenOwnSocket made (never another service's). */
export function removeOwnSocket(own: SocketFile | undefined): void {
  if (!own) return;
  try {
    const st = lstatSync(own.path);
    if (st.ino === own.ino && st.dev === own.dev && st.isSocket()) unlinkSync(own.path);
  } catch {
    /* already gone */
  }
}
