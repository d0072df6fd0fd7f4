// The checkpoint service (a long-lived process that keeps workspaces' trees and watchers warm) and its client.
export { CheckpointService, ServiceRunningError, type CheckpointServiceOptions } from './server';
export { probe } from './ping';
export {
  ServiceClient,
  ServiceFirstCheckpoints,
  ServiceRefusal,
  ServiceLost,
  ServiceStuck,
  openFileCheckpoints,
  CONNECT_TIMEOUT_MS,
  DEFAULT_LIVENESS,
  type Liveness,
} from './client';
export { serviceDir, socketPath, secretPath, infoPath } from './paths';
export type { PingValue, ServiceOrigin } from './protocol';
export { MAX_SERVED_FOLDERS } from './server';
export { ensureSecret, readSecret } from './secret';
export { checkpointOptionsKey } from './options-key';
export { CheckpointServiceHost, type ServiceWanted } from './service-host';
export { launcherScript, writeLauncher, shQuote } from './launcher-script';
export { SERVICE_MALLOC_ENV, SERVICE_NODE_ARGS, SERVICE_WORKER_LIMITS } from './service-heap';
