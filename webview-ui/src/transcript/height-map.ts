// Row heights of a virtualized list of variable-height rows. Unmeasured rows count with an estimate; measured
// ones with their real height. A Fenwick tree keeps "offset of row i" and "row at offset y" at O(log n), so a
// 10,000-row transcript costs the same per scroll frame as a 100-row one.

export interface VisibleRange {
  /** First row to render (inclusive). */
  start: number;
  /** One past the last row to render. */
  end: number;
}

export class HeightMap {
  private heights: Float64Array;
  private tree: Float64Array;
  private measured: Uint8Array;

  constructor(
    private count: number,
    private readonly estimate: number,
  ) {
    this.heights = new Float64Array(count).fill(estimate);
    this.measured = new Uint8Array(count);
    this.tree = new Float64Array(count + 1);
    this.rebuild();
  }

  get length(): number {
    return this.count;
  }

  get totalHeight(): number {
    return this.prefix(this.count);
  }

  heightOf(index: number): number {
    return this.heights[index] ?? 0;
  }

  isMeasured(index: number): boolean {
    return this.measured[index] === 1;
  }

  /** Records a measured height; returns how much the row grew (negative: shrank). */
  set(index: number, height: number): number {
    if (index < 0 || index >= this.count || !(height >= 0)) return 0;
    this.measured[index] = 1;
    const delta = height - this.heights[index]!;
    if (delta === 0) return 0;
    this.heights[index] = height;
    for (let i = index + 1; i <= this.count; i += i & -i) this.tree[i]! += delta;
    return delta;
  }

  /** The y offset where row `index` starts (index === length gives the total height). */
  offsetOf(index: number): number {
    return this.prefix(Math.max(0, Math.min(index, this.count)));
  }

  /** The row that covers offset y (clamped to the rows that exist; 0 for an empty list). */
  indexAt(y: number): number {
    if (this.count === 0 || y <= 0) return 0;
    // Fenwick descent: the largest position whose prefix sum is <= y.
    let pos = 0;
    let remaining = y;
    let step = 1;
    while (step * 2 <= this.count) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.count && this.tree[next]! <= remaining) {
        pos = next;
        remaining -= this.tree[next]!;
      }
    }
    return Math.min(pos, this.count - 1);
  }

  /** Rows to render for a viewport, with `overscan` pixels of margin above and below. */
  visibleRange(scrollTop: number, viewportHeight: number, overscan: number): VisibleRange {
    if (this.count === 0) return { start: 0, end: 0 };
    const start = this.indexAt(Math.max(0, scrollTop - overscan));
    const last = this.indexAt(scrollTop + viewportHeight + overscan);
    return { start, end: Math.min(this.count, last + 1) };
  }

  /**
   * Changes the number of rows. Rows below `keep` keep their heights (a session that only grew keeps its
   * measurements); all others start again from the estimate.
   */
  resize(count: number, keep: number): void {
    const heights = new Float64Array(count).fill(this.estimate);
    const measured = new Uint8Array(count);
    const kept = Math.max(0, Math.min(keep, count, this.count));
    heights.set(this.heights.subarray(0, kept));
    measured.set(this.measured.subarray(0, kept));
    this.count = count;
    this.heights = heights;
    this.measured = measured;
    this.tree = new Float64Array(count + 1);
    this.rebuild();
  }

  private prefix(n: number): number {
    let sum = 0;
    for (let i = n; i > 0; i -= i & -i) sum += this.tree[i]!;
    return sum;
  }

  private rebuild(): void {
    // O(n) Fenwick construction.
    for (let i = 1; i <= this.count; i++) {
      this.tree[i]! += this.heights[i - 1]!;
      const parent = i + (i & -i);
      if (parent <= this.count) this.tree[parent]! += this.tree[i]!;
    }
  }
}

/** Where to scroll so that the row that was at the top stays put after heights above it changed. */
export interface ScrollAnchor {
  index: number;
  /** Pixels of the row that are scrolled above the viewport's top. */
  offset: number;
}

export function anchorAt(map: HeightMap, scrollTop: number): ScrollAnchor {
  const index = map.indexAt(scrollTop);
  return { index, offset: scrollTop - map.offsetOf(index) };
}

export function scrollTopFor(map: HeightMap, anchor: ScrollAnchor): number {
  if (map.length === 0) return 0;
  const index = Math.min(anchor.index, map.length - 1);
  return Math.max(0, map.offsetOf(index) + Math.min(anchor.offset, map.heightOf(index)));
}
