// Where a worker thread's code is at run time. Bundled, it is its own bundle (scripts/build.mjs) in the folder of the
// bundle that starts it: dist/ holds extension.js, files-worker.js, service-worker.js and cli-bundle.js, and any of
// them may start one. Run from source (tests, benches, through tsx), it is the TypeScript module beside this one,
// loaded through tsx in the new thread.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The threads whose code is a module of this folder, each bundled as dist/<name>.js. */
export const THREADS = ['blob-thread-main', 'compaction-thread-main'] as const;
export type ThreadName = (typeof THREADS)[number];

/**
 * Starts the thread `name`, unref'd: it never keeps the process alive by itself. `onMessage` is attached here, before
 * the unref: Node refs a worker again when a 'message' listener is added to it, so one added after unref() kept every
 * process that used a thread alive until the thread was closed. While its owner waits for an answer it refs the
 * worker itself.
 */
export function startThread<M>(name: ThreadName, onMessage: (message: M) => void): Worker {
  const worker = __filename.endsWith('.ts')
    ? // tsx is found from this module, not from the working folder (a snapshot runs from inside its workspace)
      new Worker(
        `const load = require('node:module').createRequire(${JSON.stringify(__filename)}); load('tsx/cjs'); load(${JSON.stringify(join(__dirname, `${name}.ts`))});`,
        { eval: true },
      )
    : new Worker(join(__dirname, `${name}.js`));
  worker.on('message', onMessage);
  worker.unref();
  return worker;
}
