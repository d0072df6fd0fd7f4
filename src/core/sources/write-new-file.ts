// A new session file of another agent (a fork), written so that nothing existing is ever replaced and no half-written
// file is ever seen under its name: written and fsynced under a temporary name, then hard-linked into place (link
// fails when the name exists), then the folder is synced.
import { randomUUID } from 'node:crypto';
import { link, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export async function writeNewFile(dir: string, file: string, text: string): Promise<void> {
  const tmp = join(dir, `.${randomUUID()}.jsonl.partial`);
  const fh = await open(tmp, 'wx');
  try {
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await link(tmp, file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw e.code === 'EEXIST' ? new Error(`Cannot write the fork: ${file} already exists`) : e;
  } finally {
    await unlink(tmp).catch(() => {});
  }
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // folders cannot be opened for fsync on every platform (Windows); the file itself is synced
  }
}
