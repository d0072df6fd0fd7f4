// Every kind of session behind one door: the engine asks here for a workspace's sessions and for one session's view,
// and never needs to know which agent wrote it. Which adapter reads a session is decided once per ref, from the ref
// and, when the ref is a file, its first line. The change signal (session-ref.ts) is asked here too: a session's
// stamp, and the sessions a changed path may have changed.
import { openRegularFile } from '../agent-files';
import { relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { SessionListing } from './listings';
import { fileStamp, type SessionRef, type SessionStamp } from './session-ref';
import type { SessionView } from './session-view';
import type { SourceAdapter, SourceContext, WatchedFolder } from './source-adapter';

const FIRST_LINE_BYTES = 64 * 1024;

export class SessionSources {
  readonly #adapters: readonly SourceAdapter[];
  readonly #ownerOf = new Map<string, SourceAdapter>();

  /** The first adapter is the fallback for a file nobody claims (an empty or new file of ours). */
  constructor(adapters: readonly SourceAdapter[]) {
    if (adapters.length === 0) throw new Error('SessionSources needs at least one adapter');
    this.#adapters = adapters;
  }

  get adapters(): readonly SourceAdapter[] {
    return this.#adapters;
  }

  /** This workspace's sessions of every kind, newest first. One kind failing never hides the others. */
  async list(ctx: SourceContext): Promise<SessionListing[]> {
    const lists = await Promise.all(
      this.#adapters.map((a) =>
        a.list(ctx).catch((error: unknown) => {
          ctx.warn(`Cannot list ${a.kinds[0]} sessions: ${(error as Error).message}`);
          return [] as SessionListing[];
        }),
      ),
    );
    const all = lists.flat();
    lists.forEach((listed, i) => {
      for (const l of listed) this.#ownerOf.set(l.sessionRef, this.#adapters[i]!);
    });
    return all.sort((a, b) => b.modifiedMs - a.modifiedMs || a.sessionRef.localeCompare(b.sessionRef));
  }

  watchFolders(ctx: SourceContext): WatchedFolder[] {
    const seen = new Set<string>();
    const out: WatchedFolder[] = [];
    for (const f of this.#adapters.flatMap((a) => a.watchFolders(ctx))) {
      const key = `${resolve(f.path)}\0${f.pattern ?? '*.jsonl'}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
    return out;
  }

  /** The adapter that reads the session `ref` names. */
  async adapterOf(ref: SessionRef): Promise<SourceAdapter> {
    const known = this.#ownerOf.get(ref);
    if (known) return known;
    // A ref no listing gave (a path typed on a command line, an older caller's): the adapters that claim it by its
    // shape alone come first, and a file's first line settles the rest.
    const byRef = this.#adapters.find((a) => a.owns(ref, undefined) && a.writable === false);
    if (byRef) {
      this.#ownerOf.set(ref, byRef);
      return byRef;
    }
    const firstLine = await readFirstLine(ref);
    const owner = this.#adapters.find((a) => a.owns(ref, firstLine)) ?? this.#adapters[0]!;
    // An empty file is decided again once it has a line.
    if (firstLine !== undefined) this.#ownerOf.set(ref, owner);
    return owner;
  }

  async open(ref: SessionRef): Promise<SessionView> {
    return (await this.adapterOf(ref)).open(ref);
  }

  /** The session's version now (undefined: it is gone): its adapter's stamp, else its file's size and mtime. */
  async stamp(ref: SessionRef): Promise<SessionStamp | undefined> {
    const adapter = await this.adapterOf(ref);
    return adapter.stamp ? adapter.stamp(ref) : fileStamp(ref);
  }

  /** The file a person opens or reveals for the session, if it has one. */
  async fileOf(ref: SessionRef): Promise<string | undefined> {
    const adapter = await this.adapterOf(ref);
    return adapter.fileOf ? adapter.fileOf(ref) : ref;
  }

  /** The sessions a change of `path` may have changed, asked of every adapter that watches it (a path nobody's watch
   *  list matches: the path itself, as a session file of ours). */
  async refsOfChange(path: string, ctx: SourceContext): Promise<SessionRef[]> {
    const file = resolve(path);
    const refs = new Set<SessionRef>();
    let watched = false;
    for (const adapter of this.#adapters) {
      if (!adapter.watchFolders(ctx).some((f) => watches(f, file))) continue;
      watched = true;
      for (const ref of adapter.refsOfChange ? await adapter.refsOfChange(file) : [file]) {
        refs.add(ref);
        if (adapter.refsOfChange) this.#ownerOf.set(ref, adapter);
      }
    }
    return watched ? [...refs] : [file];
  }

  async forget(ref: SessionRef): Promise<void> {
    const owner = this.#ownerOf.get(ref);
    this.#ownerOf.delete(ref);
    await Promise.all((owner ? [owner] : this.#adapters).map((a) => a.forget(ref)));
  }

  async dispose(): Promise<void> {
    await Promise.all(this.#adapters.map((a) => a.dispose()));
  }
}

/** Whether a change of `file` is one the folder's watch asks for (the folder itself: something in it appeared). */
function watches(folder: WatchedFolder, file: string): boolean {
  const rel = relative(resolve(folder.path), file);
  if (rel === '') return true;
  if (rel.startsWith('..') || rel.startsWith(sep) || /^[a-zA-Z]:/.test(rel)) return false;
  return picomatch(folder.pattern ?? '*.jsonl', { dot: true })(rel.split(sep).join('/'));
}

/** The file's first line (undefined: empty, missing or unreadable), read from a bounded prefix. */
export async function readFirstLine(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await openRegularFile(file);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(FIRST_LINE_BYTES);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead === 0) return undefined;
    const text = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    const nl = text.indexOf('\n');
    return nl < 0 ? text : text.slice(0, nl);
  } finally {
    await handle.close();
  }
}
