// Loopback ports: pick a free one, and wait until a server answers on it.
import { createServer } from 'node:net';
import { get } from 'node:http';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function httpStatus(url) {
  return new Promise((resolve) => {
    const req = get(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

/**
 * Resolves when `url` answers with a 2xx/3xx status. Rejects when `timeoutMs` passes or `isDead()` says the
 * server process already exited (so a crash fails fast with its log instead of waiting out the timeout).
 */
export async function waitForHttp(url, { timeoutMs = 60_000, isDead = () => false, describe = url } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await httpStatus(url);
    if (status >= 200 && status < 400) return;
    if (isDead()) throw new Error(`${describe} exited before answering on ${url}`);
    if (Date.now() > deadline) throw new Error(`${describe} did not answer on ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
