// One FileCheckpointer per open workspace folder. A session's files are only snapshotted or restored when its cwd
// is one of those folders: nothing outside the workspace is ever written.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FileCheckpointer } from '../files/file-checkpointer';
import type { FileCheckpointerOptions, FileCheckpoints } from '../files/types';
import type { SyncResult } from '../files/scan/watcher-sync';
import { WorkerFileCheckpointer, type StartFilesWorker } from '../files/workers/worker-checkpointer';
import { fileCheckpointerOptions, type EngineSettings } from '../settings/settings';

/** Makes the checkpoints of a folder in this thread (default: a FileCheckpointer). */
export type OpenCheckpoints = (options: FileCheckpointerOptions) => FileCheckpoints;

export class CheckpointerPool {
  readonly #byRoot = new Map<string, FileCheckpoints>();
  #settle: ((root: string) => Promise<SyncResult>) | undefined;

  /** startWorker: run each checkpointer in a worker thread (the extension host must never block on a walk). */
  constructor(
    private settings: EngineSettings,
    private roots: readonly string[],
    private readonly startWorker?: StartFilesWorker,
    private readonly open: OpenCheckpoints = (o) => new FileCheckpointer(o),
  ) {}

  /** Settings or folders changed: checkpointers are made again on next use with the new options. */
  async reset(settings: EngineSettings, roots: readonly string[]): Promise<void> {
    this.settings = settings;
    this.roots = roots;
    await this.dispose();
  }

  /** The folder a session's files are snapshotted and restored in: its cwd, when that folder is open here or is inside
   *  one that is (an agent started in a sub-project of the workspace snapshots that folder, as its hooks do). */
  rootFor(cwd: string): string | undefined {
    const target = canonical(cwd);
    const open = this.roots.find((r) => canonical(r) === target);
    if (open) return open;
    const inside = this.roots.some((r) => {
      const rel = relative(canonical(r), target);
      return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
    });
    return inside ? target : undefined;
  }

  /** The folder a session's rewinds are logged under: its workspace folder (rootFor), else its own cwd; a realpath,
   *  so the extension and the CLI name one folder alike whichever way they reached it. */
  folderOf(cwd: string): string {
    return canonical(this.rootFor(cwd) ?? cwd);
  }

  /** The open folder that holds `absPath` (the innermost, when folders nest), or undefined. */
  openRootHolding(absPath: string): string | undefined {
    const target = canonicalPath(absPath);
    let best: string | undefined;
    for (const r of this.roots) {
      const rel = relative(canonical(r), target);
      if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && (best === undefined || canonical(r).length > canonical(best).length)) best = r;
    }
    return best;
  }

  /** The checkpointer of a session's workspace folder, or undefined when that folder is not open here. */
  forCwd(cwd: string): FileCheckpoints | undefined {
    const root = this.rootFor(cwd);
    if (!root || !existsSync(root)) return undefined;
    let cp = this.#byRoot.get(root);
    if (!cp) {
      const options = fileCheckpointerOptions(this.settings, root);
      cp = this.startWorker ? new WorkerFileCheckpointer(options, this.startWorker) : this.open(options);
      this.#byRoot.set(root, cp);
      this.#applySync(cp);
    }
    return cp;
  }

  /** The barrier of the editor's watcher that feeds notifyChanged: awaited before every tracked snapshot. */
  setWatcherSync(settle: ((root: string) => Promise<SyncResult>) | undefined): void {
    this.#settle = settle;
    for (const cp of this.#byRoot.values()) this.#applySync(cp);
  }

  #applySync(cp: FileCheckpoints): void {
    const settle = this.#settle;
    cp.setWatcherSync(settle ? { settle: () => settle(cp.workspaceRoot) } : undefined);
  }

  /** Feeds changed paths (absolute) from an editor's file watcher to the checkpointers they belong to. */
  notifyChanged(absPaths: readonly string[]): void {
    for (const [root, cp] of this.#byRoot) {
      // Workspace-relative, '/'-separated: the checkpointer's root is a realpath, the editor's paths may not be.
      const inside = absPaths
        .map((p) => relative(root, p))
        .filter((rel) => rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel))
        .map((rel) => rel.split(sep).join('/'));
      if (inside.length) cp.notifyChanged(inside);
    }
  }

  async dispose(): Promise<void> {
    const all = [...this.#byRoot.values()];
    this.#byRoot.clear();
    await Promise.all(all.map((cp) => cp.dispose().catch(() => undefined)));
  }
}

/** A path that may not exist any more (a file deleted since): its folder's realpath and its name. */
export function canonicalPath(p: string): string {
  return join(canonical(dirname(p)), basename(p));
}

/** The same folder reached through a symlink (or with a trailing slash) compares equal. */
function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}
