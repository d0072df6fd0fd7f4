// One change watch per folder for fs-watcher.ts. fs.watch wraps Node's FSEvent handle in an FSWatcher (an
// EventEmitter with its listeners and closures) for every folder; the checkpoint service watching the 4,442 folders of
// a 200,000-file workspace held ~7 MB for them, the bare handles with one shared callback ~3.7 MB (issue 26: the
// service's memory per file). The handle is Node's internal interface (process.binding('fs_event_wrap'), the one
// fs.watch itself uses, as raw-lstat.ts uses the fs one), so it is taken only where it has the shape fs.watch relies
// on and its first start answers as fs.watch's does; anywhere else (another Node, Electron's, a worker thread that has
// no process.binding) fs.watch is used, with the same events.
import { watch, type FSWatcher } from 'node:fs';
import { getSystemErrorName } from 'node:util';

/** A change in the watched folder `rel`: `name` is the entry's name as bytes, undefined when the system did not say. */
export type FolderEvent = (rel: string, event: string, name: Buffer | undefined) => void;

export interface FolderWatch {
  close(): void;
}

export interface FolderWatches {
  /** Watches the folder `abs` (reported as `rel`); throws as fs.watch does (`code` ENOSPC at the system's limit). */
  start(abs: string | Buffer, rel: string): FolderWatch;
  /** Which one is in use; undefined until the first start has decided. */
  readonly kind: FolderWatchKind | undefined;
}

export type FolderWatchKind = 'handle' | 'fs.watch';

/** What this module needs of Node's FSEvent handle (node/src/fs_event_wrap.cc, lib/internal/fs/watchers.js). */
interface EventHandle {
  start(path: string | Buffer, persistent: boolean, recursive: boolean, encoding: string): unknown;
  close(): void;
  onchange: ((this: EventHandle, status: number, event: unknown, name: unknown) => void) | null;
  /** The folder it watches, for the shared callback. */
  rel?: string;
}
type EventHandleClass = new () => EventHandle;

/** Node's FSEvent class when it has the methods fs.watch calls, else undefined. */
function eventHandleClass(): EventHandleClass | undefined {
  try {
    const binding = (process as unknown as { binding?: (name: string) => { FSEvent?: unknown } }).binding?.('fs_event_wrap');
    const C = binding?.FSEvent;
    if (typeof C !== 'function') return undefined;
    const proto = (C as { prototype?: Record<string, unknown> }).prototype;
    return typeof proto?.start === 'function' && typeof proto.close === 'function' ? (C as EventHandleClass) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The watches of one watcher: `onEvent` for every change, `onError` when a folder's watch fails after it started (it is
 * closed; events may have been lost). `prefer: 'fs.watch'` never uses the handle (tests run both).
 */
export function folderWatches(onEvent: FolderEvent, onError: (rel: string) => void, prefer?: FolderWatchKind): FolderWatches {
  const Handle = prefer === 'fs.watch' ? undefined : eventHandleClass();
  let kind: FolderWatchKind | undefined = Handle ? undefined : 'fs.watch';

  const viaFsWatch = (abs: string | Buffer, rel: string): FolderWatch => {
    const w: FSWatcher = watch(abs, { persistent: false, encoding: 'buffer' }, (event, name) => onEvent(rel, event, name ?? undefined));
    w.on('error', () => {
      w.close();
      onError(rel);
    });
    return w;
  };

  // one callback for every handle (`this` is the handle): no closure, emitter or listener per folder
  function onchange(this: EventHandle, status: number, event: unknown, name: unknown): void {
    const rel = this.rel!;
    if (typeof status !== 'number' || status < 0) {
      this.close();
      onError(rel);
      return;
    }
    // anything but the bytes of a name (another Node's arguments) says only that something in the folder changed
    onEvent(rel, typeof event === 'string' ? event : 'change', Buffer.isBuffer(name) ? name : undefined);
  }

  const viaHandle = (abs: string | Buffer, rel: string): FolderWatch | undefined => {
    const h = new Handle!();
    h.rel = rel;
    h.onchange = onchange;
    let err: unknown;
    try {
      err = h.start(abs, false, false, 'buffer');
    } catch {
      err = undefined;
    }
    if (typeof err !== 'number') {
      // not the interface fs.watch calls (it returns 0 or a negative errno): never used again in this process
      try {
        h.close();
      } catch {
        /* never started */
      }
      return undefined;
    }
    if (err !== 0) {
      h.close();
      const code = errorCode(err);
      throw Object.assign(new Error(`${code}: watch '${String(abs)}'`), { code, errno: err, syscall: 'watch' });
    }
    return h;
  };

  return {
    start(abs, rel) {
      if (kind === 'fs.watch') return viaFsWatch(abs, rel);
      const w = viaHandle(abs, rel);
      if (w) {
        kind = 'handle';
        return w;
      }
      if (kind === 'handle') throw Object.assign(new Error(`watch '${String(abs)}' failed`), { code: 'EUNKNOWN' });
      kind = 'fs.watch';
      return viaFsWatch(abs, rel);
    },
    get kind() {
      return kind;
    },
  };
}

function errorCode(errno: number): string {
  try {
    return getSystemErrorName(errno);
  } catch {
    return 'EUNKNOWN';
  }
}
