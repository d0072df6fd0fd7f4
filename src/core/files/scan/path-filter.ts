// Which workspace paths a snapshot covers: nested .gitignore files, the user's include/exclude globs and the
// store itself when it lives inside the workspace. `.git` (folder or file) is never entered, anywhere.
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { COOKIE_PREFIX } from './watcher-sync';

export interface IgnoreLevel {
  /** Folder holding the .gitignore, workspace-relative ('' for the root). */
  base: string;
  rules: Ignore;
  /** Hash of the .gitignore content: folders scanned under the same rules need no new matching. */
  key: string;
}

/** Identifies the ignore rules a folder is listed under: the same key, the same entries left out. */
export function rulesKeyOf(chain: readonly IgnoreLevel[]): string {
  return chain.map((l) => `${l.base}:${l.key}`).join('|');
}

export interface PathFilterOptions {
  include?: string[];
  exclude?: string[];
  /** Workspace-relative folders never snapshotted (e.g. the checkpoint store inside the workspace). */
  excludedDirs?: string[];
}

export class PathFilter {
  private readonly includeMatch?: (p: string) => boolean;
  private readonly excludeMatch?: (p: string) => boolean;
  private readonly excludedDirs: Set<string>;
  /** Identifies the user's rules, so a stat cache made under other rules is not trusted blindly. */
  readonly key: string;

  constructor(opts: PathFilterOptions) {
    if (opts.include?.length) this.includeMatch = picomatch(opts.include, { dot: true });
    if (opts.exclude?.length) this.excludeMatch = picomatch(opts.exclude, { dot: true });
    this.excludedDirs = new Set(opts.excludedDirs ?? []);
    this.key = JSON.stringify([opts.include ?? [], opts.exclude ?? [], [...this.excludedDirs]]);
  }

  static parseGitignore(content: string): Ignore {
    return ignore().add(content);
  }

  /** Whether `rel` is left out. The deepest .gitignore that has a say wins, as in git. */
  isExcluded(rel: string, isDir: boolean, chain: readonly IgnoreLevel[]): boolean {
    // a watcher sync cookie lives for milliseconds in the root: never snapshotted, so never restored or removed
    if (rel.startsWith(COOKIE_PREFIX) && !rel.includes('/')) return true;
    if (isDir && this.excludedDirs.has(rel)) return true;
    if (this.excludeMatch?.(rel)) return true;
    if (!isDir && this.includeMatch && !this.includeMatch(rel)) return true;
    let ignored = false;
    for (const level of chain) {
      const sub = level.base === '' ? rel : rel.slice(level.base.length + 1);
      const r = level.rules.test(isDir ? sub + '/' : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}
