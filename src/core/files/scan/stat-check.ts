// The fast check of a fresh process: one lstat per path a loaded stat index knows, in the index's order, with no
// tree walk and no objects per file. What it returns is what a full scan would have to look at again.
import { constants as fsConstants, lstatSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { rulesKeyOf, type IgnoreLevel } from './path-filter';
import type { StatIndex } from './stat-index';
import { nodeLstat, type RawLstat } from './raw-lstat';
import { fsPath, hasEscapedBytes } from '../file-names';

const { S_IFMT, S_IFDIR, S_IFREG, S_IFLNK } = fsConstants;

export interface IgnoreRules {
  chainFor(relDir: string): IgnoreLevel[];
  readGitignore(relDir: string, present: boolean): void;
}

/** What the comparisons below read of a stat result. */
interface StatData {
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

/** lstat of each folder and each file of the index, by position; paths are put together only where they are used. */
interface StatSource {
  dir(d: number): StatData | undefined;
  /** File f, which belongs to folder d (after enter(d), where the source has one). */
  file(d: number, f: number): StatData | undefined;
  /** Gets ready to look at folder d's files, right after dir(d) said it is a folder whose listing holds; false: the
   *  folder is not the one dir(d) looked at any more, or cannot be entered (it is then looked at again whole). */
  enter?(d: number): boolean;
}

/** One lstat per call, from this thread: through `raw` when given (no Stats object), else lstatSync. */
function jsSource(index: StatIndex, names: string[], prefix: string, raw?: RawLstat): StatSource {
  const { dirRel } = index;
  const stat = raw ?? statOrUndefined;
  let baseOf = -1;
  let base = '';
  let escaped = false;
  // a folder whose name (or a parent's) is not valid UTF-8 is reached by its bytes (file-names.ts); its files' names
  // are never looked at here (such a folder's own listing is never trusted)
  const statOf = (path: string, esc: boolean) => (esc ? statOrUndefined(fsPath(path)) : stat(path));
  return {
    dir: (d) => {
      // a copy: the raw answer is reused by the next call, and a folder's is read after its files are stat-ed
      const st = statOf(dirRel[d] === '' ? prefix || '.' : prefix + dirRel[d], hasEscapedBytes(dirRel[d]!));
      return st && { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev };
    },
    file: (d, f) => {
      if (d !== baseOf) {
        baseOf = d;
        base = dirRel[d] === '' ? prefix : `${prefix}${dirRel[d]}/`;
        escaped = hasEscapedBytes(dirRel[d]!);
      }
      return statOf(base + names[f]!, escaped);
    },
  };
}

/**
 * One lstat per call like jsSource, but each folder's files by their bare names from inside the folder: the kernel
 * then walks one path component per call instead of every folder above it (~10 % of the pass's CPU at 50,000 files,
 * three folders deep). chdir follows symlinks, so a folder is entered only when its own lstat just said it is a real
 * folder, and trusted only when `.` is then that very folder (same device and inode). Folders themselves are looked
 * up by absolute path, so where the process happens to be never matters.
 */
function enteringSource(index: StatIndex, names: string[], root: string, raw?: RawLstat): StatSource {
  const { dirRel } = index;
  const stat = raw ?? statOrUndefined;
  const absPrefix = root.endsWith(sep) ? root : root + sep;
  const absOf = (rel: string) => (rel === '' ? root : absPrefix + rel);
  /** The folder dir() last saw as a real folder, and its identity. */
  let lastDir = -1;
  let lastDev = 0;
  let lastIno = 0;
  /** '' when the process is in the folder being checked; else the absolute path its files are found under. */
  let base = '';
  return {
    dir: (d) => {
      const rel = dirRel[d]!;
      const st = hasEscapedBytes(rel) ? statOrUndefined(fsPath(absOf(rel))) : stat(absOf(rel));
      if (!st) {
        lastDir = -1;
        return undefined;
      }
      lastDir = (st.mode & S_IFMT) === S_IFDIR ? d : -1;
      lastDev = st.dev;
      lastIno = st.ino;
      return { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev };
    },
    enter: (d) => {
      const rel = dirRel[d]!;
      if (hasEscapedBytes(rel)) {
        // a name that is not UTF-8 cannot be given to chdir as a string: its files by absolute path, as jsSource does
        base = `${absPrefix}${rel}/`;
        return true;
      }
      if (d !== lastDir) return false;
      try {
        process.chdir(absOf(rel));
      } catch {
        return false; // gone, or no search permission: looking at it again says which
      }
      const here = stat('.');
      base = '';
      // a folder swapped (e.g. for a symlink to elsewhere) between its lstat and the chdir is not the one checked
      return here !== undefined && (here.mode & S_IFMT) === S_IFDIR && here.dev === lastDev && here.ino === lastIno;
    },
    file: (_d, f) => (base === '' ? stat(names[f]!) : statOrUndefined(fsPath(base + names[f]!))),
  };
}

function statOrUndefined(path: string | Buffer): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // e.g. ENOTDIR: a parent became a file
  }
}

export interface StatCheckOptions {
  /** false: lstatSync even where Node's binding answers as it does (tests compare the two). */
  raw?: boolean;
  /**
   * The workspace's absolute path, to look files up from inside each folder (enteringSource). Moves the process's
   * current folder during the call (put back before it returns), so only for a process that does nothing else
   * meanwhile and owns its folder: a CLI command, never the checkpoint service or the extension host (whose folder
   * other work shares). Ignored off the main thread (a worker cannot move the process).
   */
  enterFoldersOf?: string;
  /** @internal Tests: the lstat to use (e.g. one that swaps a folder right after looking at it). */
  lstat?: RawLstat;
}

/**
 * Workspace-relative paths whose stat data no longer matches the index: changed, gone or racy files, files skipped
 * last time (looked at again, as a full scan would), and folders whose listing or rules may have changed (re-listed
 * whole, so their own files are not checked here; their sub-folders still are). `prefix` is put before every path
 * for lstat ('' when the process runs in the workspace). Loads the folders' .gitignore rules into `rules` as it goes.
 */
export function changedSinceIndex(index: StatIndex, rules: IgnoreRules, prefix: string, opts: StatCheckOptions = {}): string[] {
  // Node's own binding where it answers as lstatSync does (raw-lstat.ts): a third less CPU on 50,000 paths
  const raw = opts.lstat ?? (opts.raw !== false ? nodeLstat() : undefined);
  const names = index.allNames();
  const from = opts.enterFoldersOf !== undefined && isMainThread ? cwdOrUndefined() : undefined;
  if (from === undefined) return compare(index, rules, names, jsSource(index, names, prefix, raw));
  try {
    return compare(index, rules, names, enteringSource(index, names, opts.enterFoldersOf!, raw));
  } finally {
    try {
      process.chdir(from);
    } catch {
      // the folder the process was in is gone: statPrefix() sees that the process is not in the workspace any more
    }
  }
}

function cwdOrUndefined(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined; // nowhere to come back to: do not move
  }
}

function compare(index: StatIndex, rules: IgnoreRules, names: string[], source: StatSource): string[] {
  const changed: string[] = [];
  const { dirs, fileStart, dirRel } = index;
  /** Folders returned for re-listing: that looks at their direct entries again, so those need no path of their own. */
  const relisted = new Uint8Array(dirs.length);
  for (let d = 0; d < dirs.length; d++) {
    const dir = dirs[d]!;
    const rel = dirRel[d]!;
    const st = source.dir(d);
    if (!st || (st.mode & S_IFMT) !== S_IFDIR) {
      if (d === 0 || !relisted[dir.parent]) changed.push(rel);
      d = dir.end - 1; // nothing below it is where it was
      continue;
    }
    const f0 = fileStart[d]!;
    const f1 = fileStart[d + 1]!;
    const listingHolds =
      dir.listedMtimeMs !== undefined &&
      dir.listedMtimeMs === st.mtimeMs &&
      dir.listedCtimeMs === st.ctimeMs &&
      dir.dirIno === st.ino &&
      dir.dirDev === st.dev &&
      dir.mode === (st.mode & 0o7777);
    // the rules come first (the folders below are matched under them); a changed listing may have a new .gitignore
    let hasGitignore = !listingHolds || dir.extra.includes('.gitignore');
    for (let f = f0; f < f1 && !hasGitignore; f++) hasGitignore = names[f] === '.gitignore';
    rules.readGitignore(rel, hasGitignore);
    if (!listingHolds || dir.rulesKey !== rulesKeyOf(rules.chainFor(rel))) {
      changed.push(rel);
      relisted[d] = 1;
      continue;
    }
    if (source.enter && !source.enter(d)) {
      // swapped or unreachable since its lstat: nothing below it is looked at through it, its new state is taken
      // when it is looked at again (even under a re-listed parent, which keeps the folders it knows as they were)
      changed.push(rel);
      d = dir.end - 1;
      continue;
    }
    const relBase = rel === '' ? '' : `${rel}/`;
    for (let f = f0; f < f1; f++) {
      const name = names[f]!;
      const fst = source.file(d, f);
      const fmt = fst ? fst.mode & S_IFMT : 0;
      const kind = fmt === S_IFREG ? 'file' : fmt === S_IFLNK ? 'symlink' : undefined;
      if (!fst || !index.fileMatches(f, kind, fst)) changed.push(relBase + name);
    }
    for (const name of dir.extra) changed.push(relBase + name);
  }
  return changed;
}
