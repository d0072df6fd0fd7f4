// Asking a socket whether a checkpoint service answers there: the service's own start-up check (is one running
// already?) and the client's liveness check during a long request (client.ts). Light on purpose: the client loads it.
import { createConnection } from 'node:net';
import { LineReader, PROTOCOL_VERSION, type PingValue, type ServiceResponse } from './protocol';

/**
 * false: nobody listens; true: something listens but does not answer as a service (or not within timeoutMs, which is
 * also the ping's deadline); else the running one. `extend`: the deadline to give the request `call` when this ping is
 * answered on time (a client's liveness check).
 */
export function probe(socket: string, secret: string, timeoutMs = 500, extend?: { call: string; deadline: number }): Promise<false | true | PingValue> {
  const deadline = Date.now() + timeoutMs;
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
    s.on('connect', () => s.write(JSON.stringify({ v: PROTOCOL_VERSION, id: 1, secret, method: 'ping', deadline, ...(extend ? { extend } : {}) }) + '\n'));
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
