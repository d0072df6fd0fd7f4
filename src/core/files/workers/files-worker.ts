// The worker thread that runs a workspace's FileCheckpointer for the extension host (bundled as
// dist/files-worker.js): first snapshots read every file and full checks stat the whole tree, which would block
// the host's thread for seconds. The host's watcher reports and its sync barrier are forwarded here.
import { parentPort } from 'node:worker_threads';
import { FileCheckpointer } from '../file-checkpointer';
import type { SyncResult } from '../scan/watcher-sync';
import { WORKER_METHODS, type FromWorker, type ToWorker } from './worker-protocol';

const port = parentPort;
if (!port) throw new Error('files-worker must run in a worker thread');

let checkpointer: FileCheckpointer | undefined;
let initError: Error | undefined;
let nextSettle = 0;
const settling = new Map<number, (r: SyncResult) => void>();
const post = (m: FromWorker) => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'init':
      try {
        checkpointer = new FileCheckpointer(m.options);
      } catch (err) {
        initError = err as Error;
      }
      return;
    case 'notify':
      return checkpointer?.notifyChanged(m.paths);
    case 'sync':
      return checkpointer?.setWatcherSync(
        m.on
          ? {
              settle: () =>
                new Promise<SyncResult>((resolve) => {
                  const id = ++nextSettle;
                  settling.set(id, resolve);
                  post({ type: 'settle', id });
                }),
            }
          : undefined,
      );
    case 'settled': {
      const resolve = settling.get(m.id);
      settling.delete(m.id);
      return resolve?.(m.result);
    }
    case 'call':
      return void call(m.id, m.method, m.args);
  }
});

async function call(id: number, method: string, args: unknown[]): Promise<void> {
  try {
    if (!checkpointer) throw initError ?? new Error('the file-checkpoint worker was not initialised');
    if (!(WORKER_METHODS as readonly string[]).includes(method)) throw new Error(`unknown file-checkpoint method ${method}`);
    const fn = (checkpointer as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
    const value = await fn.apply(checkpointer, args);
    post({ type: 'result', id, ok: true, value });
  } catch (err) {
    post({ type: 'result', id, ok: false, message: err instanceof Error ? err.message : String(err) });
  }
}
