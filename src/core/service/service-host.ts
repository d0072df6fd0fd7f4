// What the extension host starts: the checkpoint service for its open workspace folders, run in a worker thread.
// One service per home: when another one (another window, `agent-rewind serve`) already runs, this one says so and
// stays off; the hooks and the CLI then use that one, or their own checkpointer for folders it does not serve.
import type { Worker } from 'node:worker_threads';
import { releaseLockOfThread } from '../file-lock';
import { serviceLockPath } from './paths';

export type ToServiceWorker = { type: 'start'; home: string; workspaces: string[] } | { type: 'stop' };
export type FromServiceWorker =
  | { type: 'started'; socket: string; workspaces: string[] }
  | { type: 'failed'; message: string; alreadyRunning: boolean }
  | { type: 'stopped' }
  | { type: 'log'; text: string }
  /** The system's watch limit left folders unwatched (said once per folder): for the user, with the fix. */
  | { type: 'watchLimit'; text: string };

export interface ServiceWanted {
  home: string;
  workspaces: string[];
}

export class CheckpointServiceHost {
  private worker: Worker | undefined;
  private current: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly startWorker: () => Worker,
    private readonly log: (message: string) => void,
    /** Shows the user what needs their action (the watch limit's fix); logged as well. */
    private readonly tell: (message: string) => void = () => {},
  ) {}

  /** Starts, restarts (other folders or home) or stops (undefined, or no folder) the service. Calls are queued. */
  update(wanted: ServiceWanted | undefined): Promise<void> {
    const run = this.queue.then(() => this.apply(wanted));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async apply(wanted: ServiceWanted | undefined): Promise<void> {
    const key = wanted && wanted.workspaces.length ? JSON.stringify([wanted.home, [...wanted.workspaces].sort()]) : undefined;
    if (key === this.current) return;
    await this.stopWorker();
    this.current = key;
    if (!wanted || !key) return;
    const w = this.startWorker();
    this.worker = w;
    let answer: ((m: FromServiceWorker) => void) | undefined;
    // attached before the unref below: Node refs a worker again when a 'message' listener is added after unref()
    w.on('message', (m: FromServiceWorker) => {
      if (m.type === 'log') this.log(`checkpoint service: ${m.text}`);
      else if (m.type === 'watchLimit') this.tell(m.text);
      else answer?.(m);
    });
    // the service's lock names this thread: a thread that ended without stopping it (terminated, crashed) must not
    // keep every later service of the home from starting while this process lives
    const threadId = w.threadId;
    w.once('exit', () => void releaseLockOfThread(serviceLockPath(wanted.home), threadId).catch(() => undefined));
    const outcome = await new Promise<FromServiceWorker>((resolve) => {
      answer = resolve;
      w.once('error', (err) => resolve({ type: 'failed', message: err.message, alreadyRunning: false }));
      w.once('exit', (code) => resolve({ type: 'failed', message: `the service worker stopped (exit code ${code})`, alreadyRunning: false }));
      w.postMessage({ type: 'start', home: wanted.home, workspaces: wanted.workspaces } satisfies ToServiceWorker);
    });
    w.unref(); // held until it said whether it started; from now on it never keeps the process alive by itself
    if (outcome.type === 'started') this.log(`checkpoint service serving ${outcome.workspaces.join(', ')} at ${outcome.socket}`);
    else if (outcome.type === 'failed') {
      this.log(outcome.alreadyRunning ? `checkpoint service not started here: ${outcome.message}` : `checkpoint service could not start: ${outcome.message}`);
      await this.stopWorker();
    }
  }

  private async stopWorker(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (!w) return;
    // the service saves its folders' stat caches and removes its socket before the thread ends
    const stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      w.on('message', (m: FromServiceWorker) => m.type === 'stopped' && (clearTimeout(timer), resolve()));
      w.once('exit', () => (clearTimeout(timer), resolve()));
    });
    w.postMessage({ type: 'stop' } satisfies ToServiceWorker);
    await stopped;
    await w.terminate();
  }

  dispose(): Promise<void> {
    return this.update(undefined);
  }
}
