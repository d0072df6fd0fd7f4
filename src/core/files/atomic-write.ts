// Temp file + rename for everything the engine keeps in its own store (records, caches, the journal).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomic(file: string, data: string | Buffer, opts: { durable?: boolean } = {}): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  const h = await open(tmp, 'wx');
  try {
    await h.writeFile(data);
    if (opts.durable) await h.sync();
  } finally {
    await h.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}
