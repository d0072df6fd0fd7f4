// Long indexing work runs in slices so the extension host is never blocked for long: call `maybeYield()` between
// units of work; it gives the event loop a turn once a slice has used its budget.
import { setImmediate as nextTurn } from 'node:timers/promises';

export const SLICE_MS = 15;

export class TimeSlicer {
  #sliceStart = performance.now();
  constructor(private readonly budgetMs = SLICE_MS) {}

  /** Whether the current slice has used its budget. */
  get due(): boolean {
    return performance.now() - this.#sliceStart >= this.budgetMs;
  }

  async maybeYield(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    this.#sliceStart = performance.now();
  }
}
