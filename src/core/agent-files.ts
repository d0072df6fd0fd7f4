// Opening another agent's files (transcripts, rollouts, subagent transcripts, Codex's session index, fork origins) and
// our hooks' prompt records without ever blocking: a FIFO opened for reading waits for a writer forever, and a device
// may never end. Each file is opened non-blocking and checked with fstat on the opened descriptor (a check by path
// before opening can be raced) to be a regular file; anything else is refused with ENOTREG. A path named inside a
// session file (a fork's origin, a referenced rollout) is followed only when it resolves, symlinks and all, inside the
// agent's own folders: see isInsideFolders.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

/** O_NONBLOCK is 0 where the platform has none (Windows, where opening a named pipe this way does not block). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(readonly path: string) {
    super(`not a regular file: ${path}`);
  }
}

/** `path` opened for reading, if it is a regular file (else NotRegularFileError, or the fs error: ENOENT, EACCES…). */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const fh = await open(path, READ_FLAGS);
  try {
    if (!(await fh.stat()).isFile()) throw new NotRegularFileError(path);
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** The whole content of the regular file at `path` (see openRegularFile). */
export async function readRegularFile(path: string): Promise<Buffer> {
  const fh = await openRegularFile(path);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** readRegularFile without the event loop, for the few synchronous readers (our hooks' prompt records). */
export function readRegularFileSync(path: string): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(path);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.max(64 * 1024, st.size - total + 1));
      const n = readSync(fd, buf, 0, buf.length, total);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `path`, with every symlink resolved, is inside one of `folders` (each resolved too, so a config folder that
 * is itself a symlink still counts). False for a path that does not exist or cannot be resolved.
 */
export async function isInsideFolders(path: string, folders: readonly string[]): Promise<boolean> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return false;
  }
  for (const folder of folders) {
    const root = await realpath(folder).catch(() => undefined);
    if (root === undefined) continue;
    const rel = relative(root, real);
    if (rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return true;
  }
  return false;
}
