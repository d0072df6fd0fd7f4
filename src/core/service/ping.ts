// Asking a socket whether a checkpoint service answers there: the service's own start-up check (is one running
// already?) and the client's liveness check during a long request (client.ts). Light on purpose: the client loads it.
import { createConnection } from 'node:net';
import { LineReader, type PingValue, type ServiceResponse } from './protocol';

/** false: nobody listens; true: something listens but does not answer as a service; else the running one. */
export function probe(socket: string, secret: string, timeoutMs = 500): Promise<false | true | PingValue> {
  return new Promise((resolve) => {
    const s = createConnection(socket);
    let done = false;
    const finish = (v: false | true | PingValue) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    s.on('error', () => finish(false));
    s.on('connect', () => s.write(JSON.stringify({ v: 1, id: 1, secret, method: 'ping' }) + '\n'));
    const reader = new LineReader(
      1024 * 1024,
      (line) => {
        try {
          const r = JSON.parse(line) as ServiceResponse;
          finish(r.ok ? (r.value as PingValue) : true);
        } catch {
          finish(true);
        }
      },
      () => finish(true),
    );
    s.on('data', (c) => reader.push(c));
    s.on('close', () => finish(true));
  });
}
