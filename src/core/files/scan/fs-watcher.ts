// A Node watcher for the tracker (the extension feeds VS Code's FileSystemWatcher instead): one non-recursive watch
// per folder (folder-watch.ts: Node's own handle where it can, fs.watch elsewhere), so it works the same on every
// platform Node supports and never enters `.git`.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fsPath, nameFromBytes } from '../file-names';
import { RESTORE_TEMP } from '../restore-temp-names';
import { folderWatches, type FolderWatch, type FolderWatchKind } from './folder-watch';

export interface WatchHandlers {
  /** Workspace-relative paths that changed (files, or folders whose listing changed). */
  onChange(rels: string[]): void;
  /** Events may have been lost (a watch failed): the next snapshot must check everything. */
  onOverflow(): void;
  /** Folders not to watch (ignored ones). */
  skip?(rel: string): boolean;
  /**
   * The system's limit on watches was reached (inotify's max_user_watches: ENOSPC; too many open files: EMFILE) at
   * folder `rel`: it and every folder below it are not watched (see WatcherStop.unwatched) and nothing was reported
   * for them, so whoever trusts the reports must look at those folders itself.
   */
  onLimit?(rel: string, code: string): void;
}

/** Options of watchWorkspace that only tests set. */
export interface WatchOptions {
  /** Watch at most this many folders, failing the next as the system does when its limit is reached (ENOSPC). */
  limit?: number;
  /** 'fs.watch': never Node's bare handle (folder-watch.ts), so that tests run the watcher both ways. */
  folderWatch?: FolderWatchKind;
}

/** Folders watched between two turns of the event loop while a watch starts. */
const YIELD_EVERY = 64;

/** The codes fs.watch fails with when a limit of the system, not the folder, is the reason. */
const LIMIT_CODES = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

/** Stops the watcher when called. */
export interface WatcherStop {
  (): void;
  /** Starts watching those of these folders (workspace-relative) it does not watch yet, with their subfolders, and
   *  reports each one it starts as changed: a folder that stopped being ignored was left out when the watch began,
   *  and what changed in it before its watch started must still be looked at. A folder left unwatched by the
   *  system's limit is tried again; those below it are not (they are covered by it until it is watched). */
  watchFolders(rels: Iterable<string>): Promise<void>;
  /** The folders the system's limit left unwatched (see WatchHandlers.onLimit): nothing at or below them is
   *  watched. */
  unwatched(): ReadonlySet<string>;
  /** How folders are watched (folder-watch.ts); undefined while none is. */
  kind(): FolderWatchKind | undefined;
}

/** `rel` is `top` or below it (workspace-relative, '' the root). */
const within = (rel: string, top: string): boolean => top === '' || rel === top || rel.startsWith(top + '/');

export async function watchWorkspace(root: string, h: WatchHandlers, opts: WatchOptions = {}): Promise<WatcherStop> {
  const watchers = new Map<string, FolderWatch>();
  const unwatched = new Set<string>();
  let closed = false;
  const onEvent = (rel: string, event: string, filename: Buffer | undefined): void => {
    // names as bytes: one that is not valid UTF-8 is reported as the model names it (file-names.ts)
    const name = filename ? nameFromBytes(filename) : undefined;
    if (!name) return h.onChange([rel]);
    if (name === '.git' || name.startsWith('.git/')) return;
    const childRel = rel === '' ? name : `${rel}/${name}`;
    h.onChange([childRel]);
    // a restore's own temp file (Restorer.tmpName) is a file or a symlink, never a folder to watch: its create and
    // its rename away are two of the three events per restored file, and each lstat waited in the thread pool
    // behind the restore's own renames
    if (event === 'rename' && !RESTORE_TEMP.test(name)) void addIfDir(childRel);
  };
  const onError = (rel: string): void => {
    watchers.delete(rel);
    h.onOverflow();
  };
  const watches = folderWatches(onEvent, onError, opts.folderWatch);
  const watchFolder = (abs: string | Buffer, rel: string): FolderWatch => {
    if (opts.limit !== undefined && watchers.size >= opts.limit)
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${String(abs)}'`), { code: 'ENOSPC' });
    return watches.start(abs, rel);
  };
  let sinceYield = 0;
  const isUnwatched = (rel: string): boolean => {
    for (const top of unwatched) if (within(rel, top)) return true;
    return false;
  };

  const add = async (rel: string): Promise<void> => {
    if (closed || watchers.has(rel)) return;
    const abs = rel === '' ? root : join(root, rel);
    let w: FolderWatch;
    try {
      w = watchFolder(fsPath(abs), rel);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!LIMIT_CODES.has(code)) return h.onOverflow();
      // the folder's own parent, if watched, still reports the folder's appearance and removal; what happens inside it
      // and below is checked by whoever reads unwatched()
      for (const top of [...unwatched]) if (within(top, rel)) unwatched.delete(top);
      unwatched.add(rel);
      return h.onLimit ? h.onLimit(rel, code) : h.onOverflow();
    }
    unwatched.delete(rel);
    watchers.set(rel, w);
    // the sub-folders, listed synchronously and watched one after the other, yielding now and then: every listing of a
    // big tree in flight at once (a promise each) grew the heap by ~40 MB on 50,000 files, which a long-lived service
    // then kept
    let subfolders: string[];
    try {
      subfolders = readdirSync(fsPath(abs), { withFileTypes: true, encoding: 'buffer' })
        .filter((e) => e.isDirectory())
        .map((e) => nameFromBytes(e.name))
        .filter((name) => name.toLowerCase() !== '.git')
        .map((name) => (rel === '' ? name : `${rel}/${name}`))
        .filter((r) => !h.skip?.(r));
    } catch {
      return;
    }
    for (const sub of subfolders) {
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((r) => setImmediate(r));
      }
      await add(sub);
    }
  };

  const addIfDir = async (rel: string): Promise<void> => {
    try {
      // synchronous: a few microseconds on a cached entry, where the thread-pool round trip costs more and waits
      // behind a restore's renames (one event per file it writes)
      if (lstatSync(fsPath(join(root, rel))).isDirectory() && !h.skip?.(rel)) await add(rel);
    } catch {
      const w = watchers.get(rel);
      if (w) {
        w.close();
        watchers.delete(rel);
      }
    }
  };

  await add('');
  const stop = () => {
    closed = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  return Object.assign(stop, {
    async watchFolders(rels: Iterable<string>): Promise<void> {
      const before = new Set(watchers.keys());
      // below a folder the limit left unwatched nothing is tried: one failed watch (the folder itself) per call
      for (const rel of rels) if (!watchers.has(rel) && !h.skip?.(rel) && (unwatched.has(rel) || !isUnwatched(rel))) await add(rel);
      const started = [...watchers.keys()].filter((r) => !before.has(r));
      if (started.length > 0) h.onChange(started);
    },
    unwatched: () => unwatched,
    kind: () => watches.kind,
  });
}
