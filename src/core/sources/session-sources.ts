// Every kind of session behind one door: the engine asks here for a workspace's sessions and for one session's view,
// and never needs to know which agent wrote it. Which adapter reads a file is decided once per file, from where it
// lives and its first line.
import { openRegularFile } from '../agent-files';
import { resolve } from 'node:path';
import type { SessionListing } from './listings';
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
    for (const l of all) this.#ownerOf.set(resolve(l.sessionRef), this.#adapters[lists.findIndex((x) => x.includes(l))]!);
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

  /** The adapter that reads `file`. */
  async adapterOf(file: string): Promise<SourceAdapter> {
    const key = resolve(file);
    const known = this.#ownerOf.get(key);
    if (known) return known;
    const firstLine = await readFirstLine(key);
    const owner = this.#adapters.find((a) => a.owns(key, firstLine)) ?? this.#adapters[0]!;
    // An empty file is decided again once it has a line.
    if (firstLine !== undefined) this.#ownerOf.set(key, owner);
    return owner;
  }

  async open(file: string): Promise<SessionView> {
    return (await this.adapterOf(file)).open(file);
  }

  async forget(file: string): Promise<void> {
    const key = resolve(file);
    const owner = this.#ownerOf.get(key);
    this.#ownerOf.delete(key);
    await Promise.all((owner ? [owner] : this.#adapters).map((a) => a.forget(key)));
  }

  async dispose(): Promise<void> {
    await Promise.all(this.#adapters.map((a) => a.dispose()));
  }
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
