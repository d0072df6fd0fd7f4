// Which rows of the transcript the webview has, which it has asked for, and which it still needs. The host
// sends rows in pages of `pageSize`; a page belongs to one transcript version, and a page of an older version
// (the session changed while it was on its way) is thrown away.
import type { TranscriptItem } from '../../../src/shared/view-models';

export class RowPages {
  private readonly pages = new Map<number, TranscriptItem[]>();
  private readonly requested = new Set<number>();
  private _version = -1;
  private _total = 0;

  constructor(readonly pageSize: number) {
    if (!(pageSize >= 1)) throw new Error('pageSize must be at least 1');
  }

  get version(): number {
    return this._version;
  }

  get total(): number {
    return this._total;
  }

  get loadedPageCount(): number {
    return this.pages.size;
  }

  /** A new transcript version: everything held so far is stale. */
  reset(version: number, total: number): void {
    this._version = version;
    this._total = total;
    this.pages.clear();
    this.requested.clear();
  }

  /** The pages covering rows [start, end) that are neither held nor on their way; marks them as requested. */
  claimMissing(start: number, end: number): { page: number; start: number; count: number }[] {
    const out: { page: number; start: number; count: number }[] = [];
    if (this._total === 0 || end <= start) return out;
    const first = Math.floor(Math.max(0, start) / this.pageSize);
    const last = Math.floor((Math.min(end, this._total) - 1) / this.pageSize);
    for (let page = first; page <= last; page++) {
      if (this.pages.has(page) || this.requested.has(page)) continue;
      this.requested.add(page);
      const pageStart = page * this.pageSize;
      out.push({ page, start: pageStart, count: Math.min(this.pageSize, this._total - pageStart) });
    }
    return out;
  }

  /** Stores a page the host sent. Returns false (and keeps nothing) for a stale version or a misaligned start. */
  store(version: number, start: number, items: TranscriptItem[]): boolean {
    if (version !== this._version || start % this.pageSize !== 0) return false;
    const page = start / this.pageSize;
    this.requested.delete(page);
    this.pages.set(page, items);
    return true;
  }

  /** A request that failed: forget it so the page is asked for again. */
  release(start: number): void {
    this.requested.delete(Math.floor(start / this.pageSize));
  }

  get(index: number): TranscriptItem | undefined {
    if (index < 0 || index >= this._total) return undefined;
    return this.pages.get(Math.floor(index / this.pageSize))?.[index % this.pageSize];
  }

  /** The index of a row by its entry id, among the rows held (used to keep a scroll anchor across versions). */
  indexOf(entryId: string): number {
    for (const [page, items] of this.pages) {
      const i = items.findIndex((it) => it.entryId === entryId);
      if (i >= 0) return page * this.pageSize + i;
    }
    return -1;
  }
}
