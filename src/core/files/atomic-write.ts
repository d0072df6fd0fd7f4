// Temp file + rename for everything the engine keeps in its own store (records, caches, the journal).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';

/** `durable`: the data is fsynced before the rename and the folder after it, so the file survives a power cut. */
export async function writeFileAtomic(file: string, data: string | Buffer, opts: { durable?: boolean } = {}): Promise<void> {
  await (await stageFileAtomic(file, data, opts)).commit();
}

export interface StagedFile {
  /** Renames the staged file into place (and, when durable, fsyncs the folder). */
  commit(): Promise<void>;
  /** Removes the staged file (nothing was renamed). */
  abort(): Promise<void>;
}

/** The first half of writeFileAtomic: the data written (and fsynced when durable) to a temp file beside `file`, so
 *  that its fsync can overlap other work whose completion must come before the file becomes visible. */
export async function stageFileAtomic(file: string, data: string | Buffer, opts: { durable?: boolean } = {}): Promise<StagedFile> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  const h = await open(tmp, 'wx');
  try {
    await h.writeFile(data);
    if (opts.durable) await h.sync();
  } catch (err) {
    await h.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await h.close();
  return {
    async commit() {
      try {
        await rename(tmp, file);
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw err;
      }
      if (opts.durable) await syncDir(dirname(file));
    },
    async abort() {
      await unlink(tmp).catch(() => {});
    },
  };
}

/** writeFileAtomic for a small file on the calling thread, never durable (a cache: losing it costs only time). */
export function writeFileAtomicSync(file: string, data: Buffer): void {
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(tmp, data, { flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
    throw err;
  }
}

/** fsyncs a folder, so renames into it survive a power cut (where a folder cannot be opened to sync, skipped). */
export async function syncDir(dir: string): Promise<void> {
  let h: FileHandle | undefined;
  try {
    h = await open(dir, 'r');
    await h.sync();
  } catch {
    /* not supported (Windows) */
  } finally {
    await h?.close().catch(() => {});
  }
}
