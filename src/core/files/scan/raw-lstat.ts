// lstat without a Stats object, for the one place that stats every path of a workspace in a row (stat-check.ts).
// fs.lstatSync builds a Stats object with four Date objects for each call, which is a third of the CPU of a fresh
// process's 50,000-path check (98 → 64 ms CPU, same paths, same process, load 4). Node's own fs binding
// (process.binding('fs'), allowed without a warning in Node 20 and 22) returns the numbers lstatSync builds them from.
// It is an internal interface, so it is used only where it proves to answer exactly as lstatSync does (checked once per
// process on real paths); anything else (another Node, Electron's, Windows, a worker thread) keeps lstatSync.
import { lstatSync } from 'node:fs';

/** What the stat check reads of an lstat; the object is reused by the next call, so read it at once. */
export interface RawStat {
  mode: number;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** lstat of a path: its numbers, or undefined when it is gone or cannot be stat-ed (as a refused lstatSync). */
export type RawLstat = (path: string) => RawStat | undefined;

// positions in the binding's result (node/src/node_file.h, FillStatsArray): dev, mode, nlink, uid, gid, rdev, blksize,
// ino, size, blocks, then seconds and nanoseconds of atime, mtime, ctime, birthtime
const MODE = 1;
const INO = 7;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;

type Binding = { lstat(path: string, bigint: false, req: undefined, throwIfNoEntry: boolean): Float64Array | undefined };

let chosen: { raw: RawLstat | undefined } | undefined;

/** The binding's lstat when it answers as lstatSync does here, else undefined (decided once per process). */
export function nodeLstat(): RawLstat | undefined {
  chosen ??= { raw: probe() };
  return chosen.raw;
}

function probe(): RawLstat | undefined {
  if (process.platform === 'win32' || !/^v(20|22)\./.test(process.version)) return undefined;
  let binding: Binding;
  try {
    binding = (process as unknown as { binding(name: string): Binding }).binding('fs');
  } catch {
    return undefined;
  }
  if (typeof binding?.lstat !== 'function') return undefined;
  const out: RawStat = { mode: 0, size: 0, mtimeMs: 0, ino: 0 };
  const raw: RawLstat = (path) => {
    let v: Float64Array | undefined;
    try {
      v = binding.lstat(path, false, undefined, false);
    } catch {
      return undefined; // e.g. ENOTDIR: a parent became a file
    }
    if (v === undefined) return undefined;
    out.mode = v[MODE]!;
    out.size = v[SIZE]!;
    // the same arithmetic as Node's Stats (msFromTimeSpec), so the numbers compare equal to those an index stored
    out.mtimeMs = v[MTIME_SEC]! * 1e3 + v[MTIME_NSEC]! / 1e6;
    out.ino = v[INO]!;
    return out;
  };
  return agrees(raw) ? raw : undefined;
}

/** Whether `raw` gives what lstatSync gives for a folder, a file, a symlink-free missing path and a path through a file. */
function agrees(raw: RawLstat): boolean {
  try {
    const paths = [process.execPath, __filename, process.cwd()].filter((p) => typeof p === 'string' && p !== '');
    for (const p of paths) {
      const want = lstatSync(p, { throwIfNoEntry: false });
      const got = raw(p);
      if (!want || !got) return false;
      if (got.mode !== want.mode || got.size !== want.size || got.mtimeMs !== want.mtimeMs || got.ino !== want.ino) return false;
    }
    return raw(`${process.execPath}.no-such-entry-${process.pid}`) === undefined && raw(`${process.execPath}/below-a-file`) === undefined;
  } catch {
    return false;
  }
}

/** @internal Tests: forget the decision (and the binding) so the next call probes again. */
export function resetNodeLstat(): void {
  chosen = undefined;
}
