// The fast check of a fresh process: one lstat per path a loaded stat index knows, in the index's order, with no
// tree walk and no objects per file. What it returns is what a full scan would have to look at again.
import { constants as fsConstants, lstatSync, type Stats } from 'node:fs';
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
  /** File f, which belongs to folder d. */
  file(d: number, f: number): StatData | undefined;
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

function statOrUndefined(path: string | Buffer): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // e.g. ENOTDIR: a parent became a file
  }
}

/**
 * Workspace-relative paths whose stat data no longer matches the index: changed, gone or racy files, files skipped
 * last time (looked at again, as a full scan would), and folders whose listing or rules may have changed (re-listed
 * whole, so their own files are not checked here; their sub-folders still are). `prefix` is put before every path
 * for lstat ('' when the process runs in the workspace). Loads the folders' .gitignore rules into `rules` as it goes.
 */
export function changedSinceIndex(index: StatIndex, rules: IgnoreRules, prefix: string, opts: { raw?: boolean } = {}): string[] {
  // Node's own binding where it answers as lstatSync does (raw-lstat.ts): a third less CPU on 50,000 paths
  const names = index.allNames();
  const source = jsSource(index, names, prefix, opts.raw !== false ? nodeLstat() : undefined);
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
