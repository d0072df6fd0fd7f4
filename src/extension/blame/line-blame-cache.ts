// Agent blame off the typing path (issue 27, item 5), without `vscode`: the engine's blame of a file (as saved) is read
// once per file and kept until the file is saved or the timeline grows; the editor's lines are matched to it once per
// document version; a cursor that moves within the delay asks for nothing, and an answer for a cursor that has moved
// on since is dropped, never shown.
import { ownersOfText, type DescribedBlame, type LineOwner } from '../../core/engine';

export interface BlameSource {
  describedBlame(absPath: string): Promise<DescribedBlame>;
}

/** The editor's document as far as blame needs it. */
export interface BlameDocument {
  path: string;
  version: number;
  getText(): string;
}

export class LineBlameCache {
  readonly #files = new Map<string, { generation: number; blame: Promise<DescribedBlame | undefined> }>();
  readonly #owners = new Map<string, { version: number; generation: number; owners: LineOwner[] }>();
  #generation = 0;
  /** How many times the engine was asked (what the cache saves, for the tests). */
  reads = 0;

  constructor(
    private readonly source: BlameSource,
    private readonly onError: (path: string, error: Error) => void = () => {},
  ) {}

  /** The owner of `line` (0-based) of the document as it is now; undefined when the file has no blame (outside the
   *  folders, never snapshotted, unreadable). */
  async ownerAt(doc: BlameDocument, line: number): Promise<LineOwner | undefined> {
    return (await this.ownersOf(doc))?.[line];
  }

  async ownersOf(doc: BlameDocument): Promise<LineOwner[] | undefined> {
    const generation = this.#generation;
    const kept = this.#owners.get(doc.path);
    if (kept && kept.version === doc.version && kept.generation === generation) return kept.owners;
    const blame = await this.#blameOf(doc.path);
    if (!blame) return undefined;
    const owners = ownersOfText(blame, doc.getText());
    // an invalidation while the blame was read leaves this answer unkept (the next ask reads again)
    if (generation === this.#generation) this.#owners.set(doc.path, { version: doc.version, generation, owners });
    return owners;
  }

  #blameOf(path: string): Promise<DescribedBlame | undefined> {
    const kept = this.#files.get(path);
    if (kept && kept.generation === this.#generation) return kept.blame;
    this.reads++;
    const blame = this.source.describedBlame(path).catch((error: Error) => {
      this.onError(path, error);
      return undefined;
    });
    this.#files.set(path, { generation: this.#generation, blame });
    return blame;
  }

  /** A file was saved or changed on disk, or the timeline grew: everything read may be out of date (a blame read
   *  before is dropped even if it is still on its way). */
  invalidate(): void {
    this.#generation++;
    this.#files.clear();
    this.#owners.clear();
  }

  /** A document was closed: nothing of it is kept. */
  forget(path: string): void {
    this.#files.delete(path);
    this.#owners.delete(path);
  }
}

/**
 * The cursor's line, asked for only once the cursor has rested `delayMs`; a newer cursor (or `cancel`) makes the
 * answer for an older one be dropped.
 */
export class CursorBlame {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ticket = 0;

  constructor(
    private readonly cache: LineBlameCache,
    private readonly show: (result: { doc: BlameDocument; line: number; owner: LineOwner } | undefined) => void,
    private readonly delayMs: number,
  ) {}

  moved(doc: BlameDocument | undefined, line: number): void {
    const ticket = this.cancel();
    if (!doc) return this.show(undefined);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.cache.ownerAt(doc, line).then(
        (owner) => {
          if (ticket === this.#ticket) this.show(owner ? { doc, line, owner } : undefined);
        },
        () => {
          if (ticket === this.#ticket) this.show(undefined);
        },
      );
    }, this.delayMs);
  }

  /** Drops what is pending; returns the new ticket. */
  cancel(): number {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    return ++this.#ticket;
  }
}
