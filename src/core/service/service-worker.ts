// The checkpoint service in a worker thread of the extension host (bundled as dist/service-worker.js): the tree
// walks, hashing and watcher events of the served folders never touch the host's event loop.
import { parentPort } from 'node:worker_threads';
import { CheckpointService, ServiceRunningError } from './server';
import { cliCheckpointerOptions } from '../settings/settings-file';
import type { FromServiceWorker, ToServiceWorker } from './service-host';

const port = parentPort;
if (!port) throw new Error('service-worker must run in a worker thread');
const post = (m: FromServiceWorker) => port.postMessage(m);

let service: CheckpointService | undefined;

port.on('message', async (m: ToServiceWorker) => {
  if (m.type === 'start') {
    const log = (text: string) => post({ type: 'log', text });
    // the options the CLI and the hooks use (the settings file), not the window's: the service answers them
    const s = new CheckpointService({
      home: m.home,
      workspaces: m.workspaces,
      checkpointer: (root) => cliCheckpointerOptions(m.home, root, log),
      log,
      origin: 'extension',
      onWatchLimit: (_, report) => post({ type: 'watchLimit', text: report.message }),
    });
    try {
      await s.start();
      service = s;
      post({ type: 'started', socket: s.socket, workspaces: s.workspaces });
    } catch (err) {
      await s.stop().catch(() => undefined);
      post({ type: 'failed', message: (err as Error).message, alreadyRunning: err instanceof ServiceRunningError });
    }
  } else if (m.type === 'stop') {
    await service?.stop().catch(() => undefined);
    service = undefined;
    post({ type: 'stopped' });
  }
});
