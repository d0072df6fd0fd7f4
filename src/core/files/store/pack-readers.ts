// Open pack files, kept for the life of the store: a restore or a preview reads many small objects, and opening the
// pack per object would cost more than the read.
import { closeSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreCorruptError } from './object-format';
import type { Loc } from './pack-table';

export class PackReaders {
  private readonly syncFds = new Map<string, number>();
  private readonly handles = new Map<string, Promise<FileHandle>>();

  constructor(private readonly packDir: string) {}

  /** Reads the stored bytes synchronously: restores and previews read many small objects. */
  readSync(loc: Loc): Buffer {
    let fd = this.syncFds.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(join(this.packDir, loc.pack + '.pack'), 'r');
      this.syncFds.set(loc.pack, fd);
    }
    const buf = Buffer.allocUnsafe(loc.length);
    let done = 0;
    while (done < loc.length) {
      const n = readSync(fd, buf, done, loc.length - done, loc.offset + done);
      if (n === 0) throw new StoreCorruptError(`pack ${loc.pack} is truncated`);
      done += n;
    }
    return buf;
  }

  async read(loc: Loc): Promise<Buffer> {
    const h = await this.handle(loc.pack);
    const buf = Buffer.allocUnsafe(loc.length);
    const { bytesRead } = await h.read(buf, 0, loc.length, loc.offset);
    if (bytesRead !== loc.length) throw new StoreCorruptError(`pack ${loc.pack} is truncated`);
    return buf;
  }

  private handle(pack: string): Promise<FileHandle> {
    let h = this.handles.get(pack);
    if (!h) {
      h = open(join(this.packDir, pack + '.pack'), 'r');
      this.handles.set(pack, h);
      h.catch(() => this.handles.delete(pack));
    }
    return h;
  }

  /** Closes what is open on `pack` (it is being removed or replaced). */
  async close(pack: string): Promise<void> {
    const sfd = this.syncFds.get(pack);
    if (sfd !== undefined) {
      this.syncFds.delete(pack);
      try {
        closeSync(sfd);
      } catch {
        /* already closed */
      }
    }
    const h = this.handles.get(pack);
    if (h) {
      this.handles.delete(pack);
      await (await h.catch(() => undefined))?.close();
    }
  }

  async closeAll(): Promise<void> {
    for (const fd of this.syncFds.values()) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    this.syncFds.clear();
    const hs = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(hs.map((h) => h.then((fh) => fh.close()).catch(() => {})));
  }
}
