// Temp file + rename for everything the engine keeps in its own store (records, caches, the journal).
import { randomBytes } from 'node:crypto';
import { closeSync, fsync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const fsyncFd = promisify(fsync);
/** Up to this size a file is written with synchronous calls: a few page-cache copies cost microseconds, where each
 *  thread-pool round trip of the async calls (mkdir, open, write, close, rename) waits for a thread and then for the
 *  event loop, which on a loaded machine adds up on a prompt's hook. Only fsync, which waits for the disk, stays async. */
const SMALL_FILE = 64 * 1024;

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
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const small = buf.length <= SMALL_FILE;
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  if (small) await stageSmall(tmp, buf, opts.durable === true);
  else await stageLarge(tmp, buf, opts.durable === true);
  return {
    async commit() {
      try {
        if (small) renameSync(tmp, file);
        else await rename(tmp, file);
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

async function stageSmall(tmp: string, buf: Buffer, durable: boolean): Promise<void> {
  mkdirSync(dirname(tmp), { recursive: true });
  const fd = openSync(tmp, 'wx');
  try {
    for (let done = 0; done < buf.length;) done += writeSync(fd, buf, done, buf.length - done);
    if (durable) await fsyncFd(fd);
  } catch (err) {
    closeSync(fd);
    await unlink(tmp).catch(() => {});
    throw err;
  }
  closeSync(fd);
}

async function stageLarge(tmp: string, data: Buffer, durable: boolean): Promise<void> {
  await mkdir(dirname(tmp), { recursive: true });
  const h = await open(tmp, 'wx');
  try {
    await h.writeFile(data);
    if (durable) await h.sync();
  } catch (err) {
    await h.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await h.close();
}

/** fsyncs a folder, so renames into it survive a power cut (where a folder cannot be opened to sync, skipped). Its
 *  open and close are synchronous calls (see SMALL_FILE); only the fsync goes to the thread pool. */
export async function syncDir(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return; // not supported (Windows)
  }
  try {
    await fsyncFd(fd);
  } catch {
    /* not supported (Windows) */
  } finally {
    closeSync(fd);
  }
}
