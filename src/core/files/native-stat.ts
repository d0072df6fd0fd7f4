// The optional native lstat batch (native/stat_batch.c, built by node-gyp when the package is installed): a fresh
// process's stat pass over a big workspace on a few threads, without a Stats object per file. When it is missing
// (another platform, a failed build) or turned off (ScanTuning.nativeStat 'off', from AGENT_REWIND_NATIVE_STAT=0 in
// settings.ts), the JavaScript pass runs instead; 'always' (AGENT_REWIND_NATIVE_STAT=1) uses it on small workspaces
// too (tests).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/**
 * 4 numbers (mode, or -1 when lstat failed; size; mtimeMs; ino, as fs.lstatSync gives them) for each folder (prefix +
 * its path, or the prefix / '.' for the root) and then each of its files (prefix + path + '/' + name), in order.
 */
export type LstatTree = (prefix: Buffer, dirPaths: Buffer, fileCounts: Uint32Array, names: Buffer, threads: number) => Float64Array;

interface NativeStat {
  lstatTree: LstatTree;
}

let loaded: NativeStat | null | undefined;

export function nativeStat(): NativeStat | undefined {
  if (loaded === undefined) {
    loaded = null;
    {
      // beside the bundle in dist/, or where node-gyp put it when running from source
      for (const file of [join(__dirname, 'stat_batch.node'), join(__dirname, '../../../build/Release/stat_batch.node')]) {
        try {
          const mod = require(file) as Partial<NativeStat>;
          if (typeof mod.lstatTree === 'function') {
            loaded = mod as NativeStat;
            break;
          }
        } catch {
          /* not there: the next place, or JavaScript */
        }
      }
    }
  }
  return loaded ?? undefined;
}

/** Threads for the batch: the kernel work of 50,000 lstat calls halves on two cores. */
export function statThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}
