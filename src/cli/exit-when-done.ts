// A CLI process ends as soon as it has nothing left to do, with process.exit() rather than by running out of work.
// A natural exit tears Node down first: it waits for V8's background tasks (optimising compiles, concurrent marking)
// and frees the heap page by page, ~16 ms of a fresh snapshot's wall time on a loaded machine (scratch runs,
// BENCHMARKS.md, files), which a hook pays at every prompt. process.exit() skips that and still runs the 'exit'
// listeners (the code cache is written there). It is called only once the event loop has run out of work
// ('beforeExit'), after every other 'beforeExit' listener (the detached service start, start-service-later.ts), and
// only when they started nothing: no work of the process is ever cut short.

/** What ending early needs of its process (a test gives its own). */
export interface ExitingProcess {
  prependListener(event: 'beforeExit', listener: () => void): unknown;
  nextTick(fn: () => void): void;
  /** What is still open (process.getActiveResourcesInfo): once the loop has run out of work, only what waits for
   *  nothing, such as the pipe of a stderr that was written to. */
  getActiveResourcesInfo(): string[];
  /** Ends with process.exitCode. */
  exit(): void;
}

export function exitWhenDone(proc: ExitingProcess = process): void {
  // first of the listeners, so that what is open before any of them runs is known
  proc.prependListener('beforeExit', () => {
    const idle = proc.getActiveResourcesInfo().sort().join();
    // after the other listeners of this 'beforeExit' and their promise callbacks: anything they started (a read, a
    // timer, a child still tied to this process) is open now and was not before, and the loop goes on with it
    proc.nextTick(() => {
      if (proc.getActiveResourcesInfo().sort().join() === idle) proc.exit();
    });
  });
}
