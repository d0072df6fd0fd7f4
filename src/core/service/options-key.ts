// Which checkpointer options a snapshot depends on, as one string: the service answers a client only when its
// checkpointer of that folder was made with the same ones (else the client snapshots on its own), so a snapshot
// through the service is always the one the client would have taken.
import { resolve } from 'node:path';
import { defaultStoreDir } from '../files/store/store-dir';
import type { FileCheckpointerOptions } from '../files/types';

const DEFAULT_MAX_FILE = 50 * 1024 * 1024;
const DEFAULT_CAP = 5 * 1024 ** 3;

export function checkpointOptionsKey(opts: FileCheckpointerOptions, realRoot: string): string {
  return JSON.stringify({
    storeDir: opts.storeDir ? resolve(opts.storeDir) : defaultStoreDir(opts.home, realRoot),
    home: resolve(opts.home),
    maxFileSize: opts.maxFileSize ?? DEFAULT_MAX_FILE,
    include: opts.include?.length ? opts.include : [],
    exclude: opts.exclude ?? [],
    sizeCap: opts.sizeCapBytes ?? DEFAULT_CAP,
  });
}
