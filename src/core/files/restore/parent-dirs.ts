// The folders a restore writes into, held open: every write, rename and unlink of a restore goes through
// `/proc/self/fd/<fd>/<name>` of its parent folder's descriptor (Linux resolves that from the folder the descriptor
// holds, like openat(2)), so a folder of the workspace swapped for a symlink while the restore runs cannot make it
// write anywhere else. Each folder is opened one component at a time with O_NOFOLLOW|O_DIRECTORY from the nearest
// folder above it held open (lstat-ed first: still that folder at its path) or else from the workspace root's
// descriptor, and before each use the folder's path is lstat-ed again and must still be that folder: a swap
// is reported (and the restore rolled back) instead of being written around. Where /proc is missing (macOS), each
// use checks every component with lstat right before the step instead (a narrow race window remains there).
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PathSafetyError, ensureSafeParentsSync, splitRelPath } from '../safe-paths';
import { fsPath } from '../file-names';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Open folders kept beyond those in use (writes come sorted by path, so most reuse the last few). */
const KEEP_OPEN = 64;

let procWorks: boolean | undefined;
function procFdWorks(): boolean {
  if (procWorks === undefined) {
    procWorks = false;
    if (process.platform === 'linux') {
      try {
        const fd = openSync('/', DIR_FLAGS);
        try {
          procWorks = statSync(`/proc/self/fd/${fd}/.`).ino === fstatSync(fd).ino;
        } finally {
          closeSync(fd);
        }
      } catch {
        procWorks = false;
      }
    }
  }
  return procWorks;
}

interface Held {
  fd: number;
  dev: number;
  ino: number;
  refs: number;
  /** No longer used for its path: closed as soon as no step uses it. */
  retired?: boolean;
}

export interface ParentHandle {
  /** Put before `/<name>` to reach an entry of the folder. */
  readonly path: string;
  release(): void;
}

export class ParentDirs {
  private readonly held = new Map<string, Held>();
  /** Retired folders a step still uses (removed by the restore, or replaced by another real folder). */
  private readonly retired = new Set<Held>();
  private rootFd: number | undefined;
  private readonly viaProc: boolean;

  constructor(private readonly root: string) {
    this.viaProc = procFdWorks();
  }

  private rootHeld(): number {
    if (this.rootFd === undefined) this.rootFd = openSync(this.root, constants.O_RDONLY | constants.O_DIRECTORY);
    return this.rootFd;
  }

  /**
   * The folder `parentRel` ('' for the root), made when missing and `create` is on; undefined when it is missing
   * and `create` is off. Throws PathSafetyError when a folder on the way is a symlink or not a folder, or when the
   * folder held open is no longer the one at that path.
   */
  acquire(parentRel: string, create: boolean): ParentHandle | undefined {
    if (!this.viaProc) {
      if (parentRel !== '' && !ensureSafeParentsSync(this.root, `${parentRel}/x`, create)) return undefined;
      return { path: parentRel === '' ? this.root : join(this.root, ...splitRelPath(parentRel)), release: () => {} };
    }
    if (parentRel === '') return { path: `/proc/self/fd/${this.rootHeld()}`, release: () => {} };
    let h = this.held.get(parentRel);
    if (h && !this.stillThere(parentRel, h)) {
      // another real folder is at that path now (one the restore itself removed and made again, say): that one is
      // used, reached afresh from the root; a symlink or a missing folder was refused by stillThere
      this.retire(parentRel);
      h = undefined;
    }
    if (!h) {
      const opened = this.open(parentRel, create);
      if (opened === undefined) return undefined;
      h = opened;
      this.held.set(parentRel, h);
    }
    h.refs++;
    const held = h;
    let released = false;
    this.trim();
    return {
      path: `/proc/self/fd/${held.fd}`,
      release: () => {
        if (released) return;
        released = true;
        held.refs--;
        if (held.retired && held.refs === 0) {
          this.retired.delete(held);
          closeSync(held.fd);
        }
      },
    };
  }

  /** Whether the folder held open is still the one at `rel`; throws when a symlink (or nothing) is there instead. */
  private stillThere(rel: string, h: Held): boolean {
    const st = lstatSync(fsPath(join(this.root, rel)), { throwIfNoEntry: false });
    if (st?.isDirectory() && st.ino === h.ino && st.dev === h.dev) return true;
    if (st?.isDirectory()) return false;
    throw new PathSafetyError(
      `${rel} was replaced while the rewind ran (${!st ? 'it is gone' : st.isSymbolicLink() ? 'it is a symlink now' : 'another entry is there now'}); refusing to write through it`,
    );
  }

  /** Stops using the folders held for `rel` and below (the restore removed it, or it was replaced). */
  retire(rel: string): void {
    for (const [k, h] of this.held) {
      if (k === rel || k.startsWith(rel + '/')) {
        this.held.delete(k);
        h.retired = true;
        if (h.refs === 0) closeSync(h.fd);
        else this.retired.add(h);
      }
    }
  }

  /** The folder at `rel` must still be the one just opened: not a symlink, not another folder put in its place. */
  private verify(rel: string, h: Held): void {
    const st = lstatSync(fsPath(join(this.root, rel)), { throwIfNoEntry: false });
    if (!st || !st.isDirectory() || st.ino !== h.ino || st.dev !== h.dev) {
      throw new PathSafetyError(
        `${rel} was replaced while the rewind ran (${!st ? 'it is gone' : st.isSymbolicLink() ? 'it is a symlink now' : 'another entry is there now'}); refusing to write through it`,
      );
    }
  }

  /**
   * The nearest folder above `rel` held open, to open `rel` from: one component opened instead of all of them from
   * the root, for a restore's thousands of folders side by side. It must still be the folder at its path (as before
   * each use of a held folder); one that is not (swapped for a symlink, removed, replaced) is let go, and `rel` is
   * opened from the root, which refuses a symlink on the way. Undefined then, or when none is held.
   */
  private heldAncestor(rel: string): { rel: string; h: Held } | undefined {
    for (let cut = rel.lastIndexOf('/'); cut > 0; cut = rel.lastIndexOf('/', cut - 1)) {
      const at = rel.slice(0, cut);
      const h = this.held.get(at);
      if (!h) continue;
      const st = lstatSync(fsPath(join(this.root, at)), { throwIfNoEntry: false });
      if (st?.isDirectory() && st.ino === h.ino && st.dev === h.dev) return { rel: at, h };
      this.retire(at);
      return undefined;
    }
    return undefined;
  }

  /** Opens `rel` one component at a time from the nearest folder held above it (or the root), never following a
   *  symlink. */
  private open(rel: string, create: boolean): Held | undefined {
    const parts = splitRelPath(rel);
    const from = this.heldAncestor(rel);
    let fd = from ? from.h.fd : this.rootHeld();
    let owned = false;
    try {
      for (let i = from ? from.rel.split('/').length : 0; i < parts.length; i++) {
        const p = fsPath(`/proc/self/fd/${fd}/${parts[i]}`);
        let next: number;
        try {
          next = openSync(p, DIR_FLAGS);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const at = parts.slice(0, i + 1).join('/');
          if (code === 'ENOENT') {
            if (!create) return undefined;
            mkdirSync(p);
            next = openSync(p, DIR_FLAGS);
          } else if (code === 'ELOOP' || code === 'ENOTDIR') {
            const st = lstatSync(p, { throwIfNoEntry: false });
            throw new PathSafetyError(st?.isSymbolicLink() ? `refusing to go through the symlink ${at}` : `${at} is not a folder`);
          } else throw err;
        }
        if (owned) this.keepOnTheWay(parts.slice(0, i).join('/'), fd);
        fd = next;
        owned = true;
      }
      const st = fstatSync(fd);
      const h: Held = { fd, dev: st.dev, ino: st.ino, refs: 0 };
      // the path must lead to the folder just opened (no component swapped between the opens)
      this.verify(rel, h);
      owned = false;
      return h;
    } catch (err) {
      if (owned) closeSync(fd);
      throw err;
    }
  }

  /** Keeps a folder opened on the way to another held, so that its other subfolders are opened from it (heldAncestor
   *  checks it is still at its path before each such use). */
  private keepOnTheWay(rel: string, fd: number): void {
    if (this.held.has(rel)) {
      closeSync(fd);
      return;
    }
    const st = fstatSync(fd);
    this.held.set(rel, { fd, dev: st.dev, ino: st.ino, refs: 0 });
  }

  /** Closes folders nobody uses once more than KEEP_OPEN are open. */
  private trim(): void {
    if (this.held.size <= KEEP_OPEN) return;
    for (const [rel, h] of this.held) {
      if (this.held.size <= KEEP_OPEN / 2) break;
      if (h.refs > 0) continue;
      closeSync(h.fd);
      this.held.delete(rel);
    }
  }

  /** Closes everything (after every step using a handle has finished). */
  close(): void {
    for (const h of this.held.values()) closeSync(h.fd);
    for (const h of this.retired) closeSync(h.fd);
    this.held.clear();
    this.retired.clear();
    if (this.rootFd !== undefined) closeSync(this.rootFd);
    this.rootFd = undefined;
  }
}
