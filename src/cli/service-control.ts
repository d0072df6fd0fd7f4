// What `agent-rewind serve --status | --stop | --auto` say to the home's running checkpoint service: who it is, stop,
// and serve one more folder. Everything goes through its socket with the secret, as every request does.
import { checkpointOptionsKey, probe, readSecret, ServiceClient, ServiceRefusal, socketPath, type PingValue } from '../core/service';
import { resolveWorkspaceRoot } from '../core/files';
import { cliCheckpointerOptions } from './cli-settings';

export type ServiceStatus = ({ running: true } & PingValue & { socket: string }) | { running: false; note?: string };

export async function serviceStatus(home: string): Promise<ServiceStatus> {
  const secret = readSecret(home);
  if (!secret) return { running: false };
  const answer = await probe(socketPath(home), secret, 2_000);
  if (answer === false) return { running: false };
  if (answer === true) return { running: false, note: `something listens at ${socketPath(home)} but does not answer as a checkpoint service` };
  return { running: true, ...answer, socket: socketPath(home) };
}

/** How long `--stop` waits for the service to be gone: it finishes the requests in flight first (at most 30 s). */
const STOP_WAIT_MS = 35_000;

export async function stopService(home: string): Promise<{ pid?: number; stopped: boolean; waitedMs: number }> {
  const client = await ServiceClient.connect(home, 1_000, undefined, false);
  if (!client) return { stopped: false, waitedMs: 0 };
  const t = Date.now();
  let pid: number | undefined;
  try {
    pid = (await client.request<{ pid: number }>('stop', {})).pid;
  } finally {
    client.close();
  }
  const secret = readSecret(home) ?? '';
  while (Date.now() - t < STOP_WAIT_MS) {
    if (!alive(pid) && (await probe(socketPath(home), secret, 500)) === false) return { pid, stopped: true, waitedMs: Date.now() - t };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { pid, stopped: false, waitedMs: Date.now() - t };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long a `serve --auto` that lost the start to another waits for that one to answer. */
const ANSWER_WAIT_MS = 15_000;

/** Asks the running service to serve `folder` too (with the options the CLI uses for it); says what came of it. */
export async function askToServe(home: string, folder: string, warn: (message: string) => void): Promise<string> {
  const root = resolveWorkspaceRoot(folder);
  const optionsKey = checkpointOptionsKey(cliCheckpointerOptions(home, root, warn), root);
  const secret = readSecret(home) ?? '';
  // the winner of the start may still be opening its folders: it listens once it has
  const t = Date.now();
  while (typeof (await probe(socketPath(home), secret, 1_000)) !== 'object') {
    if (Date.now() - t > ANSWER_WAIT_MS) return `the running service did not answer within ${ANSWER_WAIT_MS / 1000} s`;
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = await ServiceClient.connect(home, 1_000);
  if (!client) return 'the running service went away';
  try {
    const { workspaces } = await client.request<{ workspaces: string[] }>('serve', { workspace: root, optionsKey });
    return `served by the running service (${workspaces.length} folders)`;
  } catch (err) {
    return err instanceof ServiceRefusal ? `refused (${err.code}): ${err.message}` : `failed: ${(err as Error).message}`;
  } finally {
    client.close();
  }
}
