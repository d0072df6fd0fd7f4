// One operation at a time: each task starts once every task queued before it has settled (failed or not), and its
// own result or error goes back to its caller only. The file checkpointer, the catalog, the session writer and the
// session transactions each keep one.
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Settles once every task queued so far has. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
