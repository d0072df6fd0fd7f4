// A Node fs.watch-based watcher for the tracker (the extension feeds VS Code's FileSystemWatcher instead): one
// non-recursive watch per folder, so it works the same on every platform Node supports and never enters `.git`.
import { lstatSync, watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fsPath, nameFromBytes } from '../file-names';

export interface WatchHandlers {
  /** Workspace-relative paths that changed (files, or folders whose listing changed). */
  onChange(rels: string[]): void;
  /** Events may have been lost (a watch failed): the next snapshot must check everything. */
  onOverflow(): void;
  /** Folders not to watch (ignored ones). */
  skip?(rel: string): boolean;
}

/** The names Restorer gives its temp files (`.arw-<tag>-<i>.tmp`, a roll-back's tag ending in `r`). */
const RESTORE_TEMP = /^\.arw-[0-9a-z]+-\d+\.tmp$/;

/** Stops the watcher when called. */
export interface WatcherStop {
  (): void;
  /** Starts watching those of these folders (workspace-relative) it does not watch yet, with their subfolders, and
   *  reports each one it starts as changed: a folder that stopped being ignored was left out when the watch began,
   *  and what changed in it before its watch started must still be looked at. */
  watchFolders(rels: Iterable<string>): Promise<void>;
}

export async function watchWorkspace(root: string, h: WatchHandlers): Promise<WatcherStop> {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const add = async (rel: string): Promise<void> => {
    if (closed || watchers.has(rel)) return;
    const abs = rel === '' ? root : join(root, rel);
    let w: FSWatcher;
    try {
      // names as bytes: one that is not valid UTF-8 is reported as the model names it (file-names.ts)
      w = watch(fsPath(abs), { persistent: false, encoding: 'buffer' }, (event, filename) => {
        const name = filename ? nameFromBytes(filename) : undefined;
        if (!name) return h.onChange([rel]);
        if (name === '.git' || name.startsWith('.git/')) return;
        const childRel = rel === '' ? name : `${rel}/${name}`;
        h.onChange([childRel]);
        // a restore's own temp file (Restorer.tmpName) is a file or a symlink, never a folder to watch: its create and
        // its rename away are two of the three events per restored file, and each lstat waited in the thread pool
        // behind the restore's own renames
        if (event === 'rename' && !RESTORE_TEMP.test(name)) void addIfDir(childRel);
      });
    } catch {
      return h.onOverflow();
    }
    w.on('error', () => {
      w.close();
      watchers.delete(rel);
      h.onOverflow();
    });
    watchers.set(rel, w);
    let entries;
    try {
      entries = (await readdir(fsPath(abs), { withFileTypes: true, encoding: 'buffer' })).map((e) => ({
        name: nameFromBytes(e.name),
        isDirectory: () => e.isDirectory(),
      }));
    } catch {
      return;
    }
    await Promise.all(
      entries
        .filter((e) => e.isDirectory() && e.name.toLowerCase() !== '.git')
        .map((e) => (rel === '' ? e.name : `${rel}/${e.name}`))
        .filter((r) => !h.skip?.(r))
        .map(add),
    );
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
      for (const rel of rels) if (!watchers.has(rel) && !h.skip?.(rel)) await add(rel);
      const started = [...watchers.keys()].filter((r) => !before.has(r));
      if (started.length > 0) h.onChange(started);
    },
  });
}
